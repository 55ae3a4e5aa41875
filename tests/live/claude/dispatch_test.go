package claude

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hookexec/hookexec/tests/live/livetest"
)

// Dispatch mode (HOOKEXEC_LIVE_DISPATCH=1, make test-claude-dispatch): every vector runs
// twice through the real Claude Code, once with its hooks as written and once with
// hookexec installed into the temp project and home (`hookexec install --agent claude`,
// so Claude Code runs only the dispatcher, which runs the hooks through the engine and the
// daemon). The two runs must agree on what Claude Code did: the events it fired and the
// vector's hooks each ran, the tool results the model saw, and every text it got back.

// hookexecBin is the built CLI for dispatch mode ("" otherwise).
var hookexecBin string

func dispatchMode() bool { return os.Getenv("HOOKEXEC_LIVE_DISPATCH") != "" }

// buildHookexec builds cmd/hookexec into dir.
func buildHookexec(dir string) (string, error) {
	if b := os.Getenv("HOOKEXEC_BIN"); b != "" {
		return filepath.Abs(b)
	}
	bin := filepath.Join(dir, "hookexec")
	cmd := exec.Command("go", "build", "-o", bin, "../../../cmd/hookexec")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building hookexec: %v\n%s", err, out)
	}
	return bin, nil
}

// outcome is what one Claude Code run did, with the tree's root spelled $ROOT.
type outcome struct {
	Fires       []string // "Event ran:a,b"
	ToolResults map[string]string
	UserTexts   []string
}

// hookPrefix is how Claude Code names the hook before its exit-2 reason ("[command]: ");
// through the dispatcher the model gets the reason alone (docs/use-with-agents.md).
var hookPrefix = regexp.MustCompile(`(?s)\[[^\]]*?(\][^:\]]*?)*?\]: `)

// Values that differ between any two runs of Claude Code: ids of sessions and background
// agents, and the temp tree as Claude Code spells it in its own paths.
var (
	uuidRE    = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	agentIDRE = regexp.MustCompile(`\ba[0-9a-f]{16}\b`)
	nonAlnum  = regexp.MustCompile(`[^A-Za-z0-9]`)
	// how long a background agent ran, in its completion notice
	durationRE = regexp.MustCompile(`<duration_ms>\d+</duration_ms>`)
)

func outcomeOf(tree livetest.Tree, cr claudeRun) outcome {
	slug := nonAlnum.ReplaceAllString(tree.Root, "-")
	norm := func(s string) string {
		s = hookPrefix.ReplaceAllString(strings.ReplaceAll(s, tree.Root, "$ROOT"), "")
		s = strings.ReplaceAll(s, slug, "$SLUG")
		s = agentIDRE.ReplaceAllString(uuidRE.ReplaceAllString(s, "$UUID"), "$AGENT")
		s = durationRE.ReplaceAllString(s, "<duration_ms>$$MS</duration_ms>")
		return strings.TrimSpace(s)
	}
	var o outcome
	for _, f := range livetest.Fires(cr.log) {
		o.Fires = append(o.Fires, f.Event+" ran:"+strings.Join(f.Ran, ","))
	}
	// Background agents interleave their events with the main conversation's in any order
	// from one run to the next: the events and the hooks each ran are compared as a set.
	sort.Strings(o.Fires)
	o.ToolResults = map[string]string{}
	for id, tr := range cr.api.ToolResults() {
		o.ToolResults[id] = fmt.Sprintf("error=%v %s", tr.IsError, norm(tr.Text))
	}
	for _, t := range cr.api.UserTexts() {
		o.UserTexts = append(o.UserTexts, norm(t))
	}
	return o
}

func runDispatchVector(t *testing.T, path string) ([]string, string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	run := func(install bool) (outcome, vector) {
		tree, err := livetest.NewTree(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		vars := map[string]string{"$PROJECT": tree.Project, "$HOME": tree.Home, "$ROOT": tree.Root,
			"$REC": recBin, "$HTTP": serveHTTP(t, nil)}
		var v vector
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		vars["$HTTP"] = serveHTTP(t, v.HTTP)
		v = vector{}
		if err := json.Unmarshal(livetest.Substitute(raw, vars), &v); err != nil {
			t.Fatal(err)
		}
		if err := tree.WriteFiles(v.Files); err != nil {
			t.Fatal(err)
		}
		if install {
			runtime := filepath.Join(tree.Root, "run")
			if v.Env == nil {
				v.Env = map[string]string{}
			}
			v.Env["HOOKEXEC_RUNTIME_DIR"] = runtime
			v.Env["HOOKEXEC_DAEMON_IDLE"] = "2m"
			for _, scope := range [][]string{{"--user"}, nil} {
				args := append([]string{"--project", tree.Project, "--home", tree.Home, "install", "--agent", "claude"}, scope...)
				out, err := exec.Command(hookexecBin, args...).CombinedOutput()
				if err != nil {
					t.Fatalf("hookexec install %v: %v\n%s", scope, err, out)
				}
			}
			t.Cleanup(func() {
				cmd := exec.Command(hookexecBin, "daemon", "--ask", "shutdown")
				cmd.Env = append(os.Environ(), "HOOKEXEC_RUNTIME_DIR="+runtime)
				_ = cmd.Run()
			})
		}
		cr := runClaude(t, tree, v)
		if testing.Verbose() {
			t.Logf("install=%v stdout: %s\nstderr: %s", install, cr.stdout, cr.stderr)
		}
		return outcomeOf(tree, cr), v
	}
	native, v := run(false)
	dispatched, _ := run(true)
	var problems []string
	if !reflect.DeepEqual(native.Fires, dispatched.Fires) && v.Skip["ran"] == "" {
		problems = append(problems, fmt.Sprintf("events and hooks run:\n    native     %v\n    dispatched %v", native.Fires, dispatched.Fires))
	}
	ids := map[string]bool{}
	for id := range native.ToolResults {
		ids[id] = true
	}
	for id := range dispatched.ToolResults {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		if native.ToolResults[id] != dispatched.ToolResults[id] {
			problems = append(problems, fmt.Sprintf("tool result %s: native %q, dispatched %q", id, native.ToolResults[id], dispatched.ToolResults[id]))
		}
	}
	if !reflect.DeepEqual(native.UserTexts, dispatched.UserTexts) && v.Skip["context"] == "" {
		problems = append(problems, fmt.Sprintf("texts the model got:\n    native     %q\n    dispatched %q", native.UserTexts, dispatched.UserTexts))
	}
	if v.Deliberate != "" && len(problems) > 0 {
		// The documented difference shows through the dispatcher as it does in the engine.
		t.Logf("deliberate difference (%s):\n  %s", v.Deliberate, strings.Join(problems, "\n  "))
		return nil, v.Deliberate
	}
	return problems, v.Deliberate
}
