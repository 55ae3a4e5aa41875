package suite

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	hookdaemon "github.com/hookexec/hookexec/core/daemon"
	"github.com/hookexec/hookexec/tests/live/livetest"
)

// Dispatch mode (HOOKEXEC_LIVE_DISPATCH=1, make test-dispatch): every vector runs twice
// through the real agent, once with its hooks as written (checked against the engine as in
// the plain suite, so dispatch mode covers it) and once with hookexec installed into the
// temp project and home (`hookexec install --agent <Name>`, so the agent runs only the
// dispatcher, which runs the hooks through the engine and the one daemon of the whole run).
// The two runs must agree on what the agent did: the events it fired and the vector's hooks
// each ran, the tool results the model saw, and every text it got back (NormalizeText says
// what differs between any two runs and is left out).

// DispatchMode says whether the suite runs in dispatch mode.
func DispatchMode() bool { return os.Getenv("HOOKEXEC_LIVE_DISPATCH") != "" }

// TransportHTTP (HOOKEXEC_LIVE_TRANSPORT=http, with dispatch mode; Claude Code) installs
// hookexec with --transport http: the run's daemon serves the http transport on a port and
// secret of the run (daemon.SetupHTTP before it starts), and each vector's install writes
// them into its home's settings.
func TransportHTTP() bool { return os.Getenv("HOOKEXEC_LIVE_TRANSPORT") == "http" }

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
	HookTexts   []string // what hooks put in the system prompt (Claude Code)
}

// userTexter is a fake API that can list the texts of the conversation's user messages.
type userTexter interface{ UserTexts() []string }

// hookTexter is a fake API that can list what hooks put in the system prompt.
type hookTexter interface{ HookTexts() []string }

// Values that differ between any two runs: ids, and the temp tree as agents spell it in
// their own paths (every character but letters and digits as "-"); and the names of the
// files install adds beside the settings, in an agent's listing of the project (Gemini CLI
// sends one in its first message: a documented difference, docs/use-with-agents.md).
var (
	uuidRE      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	nonAlnum    = regexp.MustCompile(`[^A-Za-z0-9]`)
	installedRE = regexp.MustCompile(`(?m)^.*(hookexec-hooks(\.local)?\.json|\.hookexec-backup)\n`)
)

// NormalizeText rewrites the tree's paths to $ROOT and $SLUG and uuids to $UUID, drops the
// lines naming install's files, then applies the agent's Normalize.
func NormalizeText(tree livetest.Tree, s string) string {
	s = strings.ReplaceAll(s, tree.Root, "$ROOT")
	s = strings.ReplaceAll(s, nonAlnum.ReplaceAllString(tree.Root, "-"), "$SLUG")
	s = uuidRE.ReplaceAllLiteralString(s, "$UUID")
	s = installedRE.ReplaceAllLiteralString(s, "")
	if state != nil && state.a.Normalize != nil {
		s = state.a.Normalize(s)
	}
	return strings.TrimSpace(s)
}

// OutcomeOf is what a run did.
func OutcomeOf(tree livetest.Tree, run Run) Outcome {
	var o Outcome
	seen := map[string]bool{}
	for _, f := range livetest.Fires(run.Log) {
		fire := f.Event + " ran:" + strings.Join(f.Ran, ",")
		if state != nil && slices.Contains(state.a.Uncounted, f.Event) {
			if seen[fire] {
				continue
			}
			seen[fire] = true
		}
		o.Fires = append(o.Fires, fire)
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
	if ht, ok := run.Model.(hookTexter); ok {
		for _, t := range ht.HookTexts() {
			o.HookTexts = append(o.HookTexts, NormalizeText(tree, t))
		}
	}
	return o
}

// installHookexec runs `hookexec install --agent <Name>` for the user and the project of
// tree, and points the agent's hook calls at the run's daemon.
func installHookexec(t *testing.T, tree livetest.Tree, v *Vector) {
	if v.Env == nil {
		v.Env = map[string]string{}
	}
	v.Env["HOOKEXEC_RUNTIME_DIR"] = state.daemon.runtime
	var transport []string
	if state.daemon.httpDir != "" {
		v.Env["HOOKEXEC_HTTP_DIR"] = state.daemon.httpDir
		transport = []string{"--transport", "http"}
	}
	for _, scope := range [][]string{{"--user"}, nil} {
		args := append([]string{"--project", tree.Project, "--home", tree.Home, "install", "--agent", state.a.Name}, scope...)
		cmd := exec.Command(state.hookexec, append(args, transport...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tree.Home, "HOOKEXEC_HTTP_DIR=" + state.daemon.httpDir}
		for k, val := range v.Env {
			if k != "HOME" && k != "PATH" { // what the vector gives the agent: Copilot CLI's COPILOT_HOME
				cmd.Env = append(cmd.Env, k+"="+val)
			}
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("hookexec install %v: %v\n%s", scope, err, out)
		}
	}
}

// daemon is the run's one hookexec daemon: engines are kept per agent, project, home and
// environment, so vectors stay apart, and every hook call of the run is a warm one.
type daemon struct {
	runtime string
	httpDir string // the http transport's (TransportHTTP), else ""
	cmd     *exec.Cmd
	exited  chan error
}

// startDaemon starts `hookexec daemon` on a runtime directory in dir and waits until it
// answers.
func startDaemon(dir string) (*daemon, error) {
	d := &daemon{runtime: filepath.Join(dir, "run"), exited: make(chan error, 1)}
	d.cmd = exec.Command(state.hookexec, "daemon", "--idle", "30m")
	d.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOOKEXEC_RUNTIME_DIR=" + d.runtime}
	if TransportHTTP() {
		d.httpDir = filepath.Join(dir, "http")
		if _, err := hookdaemon.SetupHTTP(d.httpDir); err != nil {
			return nil, err
		}
		d.cmd.Env = append(d.cmd.Env, "HOOKEXEC_HTTP_DIR="+d.httpDir)
	}
	d.cmd.Stderr = os.Stderr
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { d.exited <- d.cmd.Wait() }()
	// 60 s is a hang guard only: the daemon answers within milliseconds of its start.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := d.ask("status"); err == nil {
			return d, nil
		}
		select {
		case err := <-d.exited:
			return nil, fmt.Errorf("the daemon exited at start: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, fmt.Errorf("the daemon did not answer within a minute")
		}
	}
}

func (d *daemon) ask(what string) ([]byte, error) {
	cmd := exec.Command(state.hookexec, "daemon", "--ask", what)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOOKEXEC_RUNTIME_DIR=" + d.runtime}
	return cmd.Output()
}

// stop shuts the daemon down and returns how many dispatches it served (-1: it did not say).
func (d *daemon) stop() int64 {
	st, _ := d.ask("status")
	_, _ = d.ask("shutdown")
	select {
	case <-d.exited:
	case <-time.After(30 * time.Second): // a hang guard only
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
	var s struct {
		Requests int64 `json:"requests"`
	}
	if json.Unmarshal(st, &s) != nil {
		return -1
	}
	return s.Requests
}

func runDispatchVector(t *testing.T, path string) ([]string, string) {
	problems, v, native := runNative(t, path)
	w, tree := loadVector(t, path)
	installHookexec(t, tree, &w)
	var tr telemetryRun
	if TelemetryMode() {
		tr = withTelemetry(t, tree, &w)
	}
	r := runAgent(t, tree, w)
	if TelemetryMode() {
		problems = append(problems, checkTelemetry(t, tr, r)...)
	}
	dispatched := OutcomeOf(tree, r)
	if testing.Verbose() {
		t.Logf("dispatched stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
		t.Logf("hook texts of the system prompt:\n  native     %q\n  dispatched %q", native.HookTexts, dispatched.HookTexts)
		for _, e := range r.Log {
			t.Logf("dispatched log %s: %q", e.Name, e.Stdin)
		}
	}
	diff := diffOutcomes(native, dispatched, v)
	deliberate := v.Deliberate
	switch {
	case len(diff) == 0:
	case v.DispatchDifference != "":
		t.Logf("documented difference of the dispatcher (%s):\n  %s", v.DispatchDifference, strings.Join(diff, "\n  "))
		deliberate = strings.TrimPrefix(deliberate+"; ", "; ") + "through hookexec install: " + v.DispatchDifference
		diff = nil
	case v.Deliberate != "":
		// The documented difference shows through the dispatcher as it does in the engine.
		t.Logf("deliberate difference (%s):\n  %s", v.Deliberate, strings.Join(diff, "\n  "))
		diff = nil
	}
	return append(problems, diff...), deliberate
}

func diffOutcomes(native, dispatched Outcome, v Vector) []string {
	var problems []string
	if !reflect.DeepEqual(native.Fires, dispatched.Fires) && v.Skip["ran"] == "" {
		problems = append(problems, fmt.Sprintf("dispatch: events and hooks run:\n    native     %v\n    dispatched %v", native.Fires, dispatched.Fires))
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
			problems = append(problems, fmt.Sprintf("dispatch: tool result %s: native %q, dispatched %q", id, native.ToolResults[id], dispatched.ToolResults[id]))
		}
	}
	if !reflect.DeepEqual(native.UserTexts, dispatched.UserTexts) && v.Skip["context"] == "" {
		problems = append(problems, fmt.Sprintf("dispatch: texts the model got:\n    native     %q\n    dispatched %q", native.UserTexts, dispatched.UserTexts))
	}
	if !reflect.DeepEqual(native.HookTexts, dispatched.HookTexts) && v.Skip["context"] == "" {
		problems = append(problems, fmt.Sprintf("dispatch: what hooks put in the system prompt:\n    native     %q\n    dispatched %q", native.HookTexts, dispatched.HookTexts))
	}
	return problems
}
