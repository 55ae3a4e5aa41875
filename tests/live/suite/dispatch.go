package suite

import (
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

// Dispatch mode (HOOKEXEC_LIVE_DISPATCH=1, make test-<agent>-dispatch): every vector runs
// twice through the real agent, once with its hooks as written and once with hookexec
// installed into the temp project and home (`hookexec install --agent <Name>`, so the agent
// runs only the dispatcher, which runs the hooks through the engine and the daemon). The two
// runs must agree on what the agent did: the events it fired and the vector's hooks each
// ran, the tool results the model saw, and every text it got back.

// DispatchMode says whether the suite runs in dispatch mode.
func DispatchMode() bool { return os.Getenv("HOOKEXEC_LIVE_DISPATCH") != "" }

// buildHookexec builds cmd/hookexec into dir ($HOOKEXEC_BIN when set).
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

// Outcome is what one agent run did, its texts normalised (NormalizeText).
type Outcome struct {
	Fires       []string // "Event ran:a,b", sorted
	ToolResults map[string]string
	UserTexts   []string
}

// userTexter is a fake API that can list the texts of the conversation's user messages.
type userTexter interface{ UserTexts() []string }

// Values that differ between any two runs: ids, and the temp tree as agents spell it in
// their own paths (every character but letters and digits as "-").
var (
	uuidRE   = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)
)

// NormalizeText rewrites the tree's paths to $ROOT and $SLUG and uuids to $UUID, then
// applies the agent's Normalize.
func NormalizeText(tree livetest.Tree, s string) string {
	s = strings.ReplaceAll(s, tree.Root, "$ROOT")
	s = strings.ReplaceAll(s, nonAlnum.ReplaceAllString(tree.Root, "-"), "$SLUG")
	s = uuidRE.ReplaceAllLiteralString(s, "$UUID")
	if state.a.Normalize != nil {
		s = state.a.Normalize(s)
	}
	return strings.TrimSpace(s)
}

// OutcomeOf is what a run did.
func OutcomeOf(tree livetest.Tree, run Run) Outcome {
	var o Outcome
	for _, f := range livetest.Fires(run.Log) {
		o.Fires = append(o.Fires, f.Event+" ran:"+strings.Join(f.Ran, ","))
	}
	// Background agents interleave their events with the main conversation's in any order
	// from one run to the next: the events and the hooks each ran are compared as a set.
	sort.Strings(o.Fires)
	o.ToolResults = map[string]string{}
	for id, tr := range run.Model.ToolResults() {
		o.ToolResults[id] = fmt.Sprintf("error=%v %s", tr.IsError, NormalizeText(tree, tr.Text))
	}
	if ut, ok := run.Model.(userTexter); ok {
		for _, t := range ut.UserTexts() {
			o.UserTexts = append(o.UserTexts, NormalizeText(tree, t))
		}
	}
	return o
}

// installHookexec runs `hookexec install --agent <Name>` for the user and the project of
// tree, with a runtime directory (and so a daemon) of the vector's own, stopped at cleanup.
func installHookexec(t *testing.T, tree livetest.Tree, v *Vector) {
	runtime := filepath.Join(tree.Root, "run")
	if v.Env == nil {
		v.Env = map[string]string{}
	}
	v.Env["HOOKEXEC_RUNTIME_DIR"] = runtime
	v.Env["HOOKEXEC_DAEMON_IDLE"] = "2m"
	for _, scope := range [][]string{{"--user"}, nil} {
		args := append([]string{"--project", tree.Project, "--home", tree.Home, "install", "--agent", state.a.Name}, scope...)
		out, err := exec.Command(state.hookexec, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("hookexec install %v: %v\n%s", scope, err, out)
		}
	}
	t.Cleanup(func() {
		cmd := exec.Command(state.hookexec, "daemon", "--ask", "shutdown")
		cmd.Env = append(os.Environ(), "HOOKEXEC_RUNTIME_DIR="+runtime)
		_ = cmd.Run()
	})
}

func runDispatchVector(t *testing.T, path string) ([]string, string) {
	run := func(install bool) (Outcome, Vector) {
		v, tree := loadVector(t, path)
		if install {
			installHookexec(t, tree, &v)
		}
		r := runAgent(t, tree, v)
		if testing.Verbose() {
			t.Logf("install=%v stdout: %s\nstderr: %s", install, r.Stdout, r.Stderr)
		}
		return OutcomeOf(tree, r), v
	}
	native, v := run(false)
	dispatched, _ := run(true)
	problems := diffOutcomes(native, dispatched, v)
	if v.Deliberate != "" && len(problems) > 0 {
		// The documented difference shows through the dispatcher as it does in the engine.
		t.Logf("deliberate difference (%s):\n  %s", v.Deliberate, strings.Join(problems, "\n  "))
		return nil, v.Deliberate
	}
	return problems, v.Deliberate
}

func diffOutcomes(native, dispatched Outcome, v Vector) []string {
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
	return problems
}
