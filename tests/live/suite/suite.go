// Package suite runs the live conformance suites of the agents that answer a scripted fake
// model offline besides Claude Code: Gemini CLI, Codex and Qwen Code. Each vector runs
// through the real, pinned agent (tests/live/versions.json), whose recorder hook logs every
// event's stdin; then every recorded event is fired through hookexec's engine with the
// payload the agent actually sent, and the two are compared on what the host must do (the
// tool ran or not, with which input; the prompt reached the model or not; the turn went on;
// context reached the model). The agent-specific parts (how to run it, its fake API, where
// its recorder goes) are an Agent.
package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/tests/live/agents"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
)

// Model is a scripted fake model API.
type Model interface {
	Start() (string, error)
	Close() error
	MainRequests() []fakeapi.Request
	// ToolResults are the tool results the conversation carries, by call id.
	ToolResults() map[string]fakeapi.ToolResult
}

// Vector is one tests/live/<agent>/vectors/*.json file.
type Vector struct {
	Description string                     `json:"description"`
	Source      string                     `json:"source"`
	Prompt      string                     `json:"prompt"`
	Script      []fakeapi.Turn             `json:"script"`
	Files       map[string]json.RawMessage `json:"files"`
	Env         map[string]string          `json:"env"`
	// Deliberate names a documented difference the vector is marked with.
	Deliberate string `json:"deliberate"`
	// Skip lists comparisons this vector does not make, with why.
	Skip map[string]string `json:"skip"`
}

// Run is what one run of the real agent left behind.
type Run struct {
	Model          Model
	Stdout, Stderr []byte
}

// Agent is what differs between the suites.
type Agent struct {
	Name    string // as the profile: gemini, codex, qwen
	Title   string // for the report: "Gemini CLI"
	Package string // npm package
	Bin     string // its executable
	// Gate is the variable that enables the suite (make test-<name> sets it).
	Gate string
	// Events are the events the recorder listens to, as the agent spells them.
	Events []string
	// NewModel returns the fake API for a vector.
	NewModel func(v Vector) Model
	// Command builds the agent's command: bin, the tree, the fake API's base URL, the
	// recorder's hooks (event → command) to configure where hookexec will not read them,
	// and the environment both sides share.
	Command func(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v Vector) (*exec.Cmd, error)
	// Command is the tool input's shell command of a PreToolUse payload ("" when the call
	// is not a shell call).
	ShellCommand func(toolName string, input map[string]any) string
}

type suiteState struct {
	a                 Agent
	bin, version, rec string
	report            livetest.Report
	// dispatch is the run's hookexec in dispatch mode (DispatchEnv), nil otherwise.
	dispatch *dispatcher
	// runs bounds the agent processes running at once.
	runs chan struct{}
}

var state *suiteState

// Main is the suite's TestMain: it skips unless a.Gate is set, installs the pinned agent
// (skipping when npm is unreachable), builds the recorder, runs the tests and prints the
// report.
func Main(m *testing.M, a Agent) {
	if os.Getenv(a.Gate) == "" {
		fmt.Printf("tests/live/%s: skipped (set %s=1, or run make test-%s)\n", a.Name, a.Gate, a.Name)
		os.Exit(0)
	}
	bin, version, err := agents.Install(context.Background(), a.Package, a.Bin)
	if errors.Is(err, agents.ErrNoNpm) {
		fmt.Printf("tests/live/%s: SKIPPED: cannot install %s: %v\n", a.Name, a.Title, err)
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tests/live/%s: %v\n", a.Name, err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "hookexec-live-")
	var rec string
	if err == nil {
		rec, err = livetest.BuildRec(dir)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tests/live/%s: %v\n", a.Name, err)
		os.Exit(1)
	}
	state = &suiteState{a: a, bin: bin, version: version, rec: rec, runs: make(chan struct{}, Jobs())}
	if os.Getenv(DispatchEnv) != "" {
		state.dispatch, err = startDispatch(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tests/live/%s: dispatch mode: %v\n", a.Name, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	// Vectors wait on state.runs, not on -test.parallel (GOMAXPROCS, 2 here): an agent run
	// mostly waits, and dispatch mode keeps two runs per vector.
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", "64")
	}
	start := time.Now()
	code := m.Run()
	var served string
	if state.dispatch != nil {
		served = state.dispatch.stop()
	}
	os.RemoveAll(dir)
	secure.Lock()
	for _, d := range secure.dirs {
		os.RemoveAll(d)
	}
	secure.Unlock()
	mode := ""
	if state.dispatch != nil {
		mode = ", each vector also through hookexec install (" + state.dispatch.bin + "; " + served + ")"
	}
	fmt.Printf("%s %s (%s)%s:\n", a.Title, version, bin, mode)
	state.report.Print(os.Stdout)
	fmt.Printf("(%s)\n", time.Since(start).Round(time.Second))
	os.Exit(code)
}

// Test runs every vector of vectors/*.json (HOOKEXEC_LIVE_ONLY narrows them by name).
func Test(t *testing.T) {
	paths, err := filepath.Glob("vectors/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	only := os.Getenv("HOOKEXEC_LIVE_ONLY")
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		if only != "" && !strings.Contains(name, only) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			problems, deliberate := runVector(t, path)
			state.report.Add(name, problems, deliberate)
			if len(problems) > 0 {
				t.Errorf("%s differs:\n  %s", name, strings.Join(problems, "\n  "))
			}
		})
	}
}

func runVector(t *testing.T, path string) ([]string, string) {
	a := state.a
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v Vector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if v.Description == "" || v.Source == "" {
		t.Fatalf("%s: every vector says what it checks (description) and where the behaviour is written down (source)", path)
	}
	tree, err := livetest.NewTree(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	written := raw
	raw = livetest.Substitute(raw, map[string]string{"$PROJECT": tree.Project, "$HOME": tree.Home, "$ROOT": tree.Root, "$REC": state.rec})
	v = Vector{}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := tree.WriteFiles(v.Files); err != nil {
		t.Fatal(err)
	}
	run := runAgent(t, tree, v)
	entries, err := livetest.ReadLog(filepath.Join(tree.Root, "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	fires := livetest.Fires(entries)
	if testing.Verbose() {
		for _, f := range fires {
			t.Logf("%s fired %s ran %v: %s", a.Name, f.Event, f.Ran, f.Payload)
		}
		t.Logf("%s stdout: %s\nstderr: %s", a.Name, run.Stdout, run.Stderr)
		if reqs := run.Model.MainRequests(); len(reqs) > 0 {
			var body struct {
				Tools []json.RawMessage `json:"tools"`
			}
			_ = json.Unmarshal(reqs[0].Body, &body)
			for _, tool := range body.Tools {
				t.Logf("tool offered: %.300s", tool)
			}
		}
	}
	results, ran := runHookexec(t, tree, v, fires)
	if testing.Verbose() {
		for i, r := range results {
			t.Logf("hookexec %s ran %v: %s", fires[i].Event, ran[i], r.JSON())
		}
	}
	problems := compare(v, tree, run, fires, results, ran)
	if state.dispatch != nil {
		native, err := outcomeOf(tree, run)
		if err != nil {
			t.Fatal(err)
		}
		diff := runDispatched(t, written, native)
		if v.Deliberate != "" && len(diff) > 0 {
			// The documented difference shows through the dispatcher as it does in the engine.
			t.Logf("deliberate difference (%s):\n  %s", v.Deliberate, strings.Join(diff, "\n  "))
			diff = nil
		}
		problems = append(problems, diff...)
	}
	return problems, v.Deliberate
}

// Jobs is how many agent processes a suite runs at once: $HOOKEXEC_LIVE_JOBS, else 3 (a run
// spends its time starting the agent and waiting on the shared cores; more only queues).
func Jobs() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("HOOKEXEC_LIVE_JOBS"), &n); err == nil && n > 0 {
		return n
	}
	return 3
}

var secure struct {
	sync.Mutex
	dirs []string
}

// SecureDir makes a directory no one else can write to, outside /tmp, for files the agents
// refuse to read from a world-writable tree (system settings); it is linked from the tree
// (root/secure) and removed when the suite ends.
func SecureDir(tree livetest.Tree) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	parent := filepath.Join(cache, "hookexec", "live")
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, state.a.Name+"-")
	if err != nil {
		return "", err
	}
	secure.Lock()
	secure.dirs = append(secure.dirs, dir)
	secure.Unlock()
	return dir, os.Symlink(dir, filepath.Join(tree.Root, "secure"))
}

// Env is the environment both sides give hooks.
func Env(tree livetest.Tree, v Vector, log string) map[string]string {
	env := map[string]string{
		"PATH":              os.Getenv("PATH"),
		"HOME":              tree.Home,
		"HOOKEXEC_LIVE_LOG": log,
		"LANG":              "C.UTF-8",
		"NO_COLOR":          "1",
	}
	for k, val := range v.Env {
		env[k] = val
	}
	return env
}

func runAgent(t *testing.T, tree livetest.Tree, v Vector) Run {
	a := state.a
	model := a.NewModel(v)
	base, err := model.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	recorder := map[string]string{}
	for _, ev := range a.Events {
		recorder[ev] = state.rec + " @" + ev
	}
	env := Env(tree, v, filepath.Join(tree.Root, "agent.log"))
	cmd, err := a.Command(state.bin, tree, base, recorder, env, v)
	if err != nil {
		t.Fatal(err)
	}
	state.runs <- struct{}{}
	defer func() { <-state.runs }()
	// 240 s is a hang guard only: a run takes a few seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	cmd = withContext(ctx, cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && ctx.Err() != nil {
		t.Fatalf("%s hung: %v\nstderr: %s", a.Name, err, stderr.String())
	}
	return Run{Model: model, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
}

func withContext(ctx context.Context, c *exec.Cmd) *exec.Cmd {
	out := exec.CommandContext(ctx, c.Path, c.Args[1:]...)
	out.Dir, out.Env, out.Stdin = c.Dir, c.Env, c.Stdin
	return out
}

// runHookexec fires, in order, every event the agent fired, with the stdin the agent gave
// its hooks, through hookexec's engine (the agent's profile, the same files and env).
func runHookexec(t *testing.T, tree livetest.Tree, v Vector, fires []livetest.Fire) ([]*engine.Result, [][]string) {
	log := filepath.Join(tree.Root, "hookexec.log")
	opts := map[string]any{"profile": state.a.Name, "project_dir": tree.Project, "home": tree.Home, "env": Env(tree, v, log)}
	optJSON, _ := json.Marshal(opts)
	o, err := engine.ParseOptions(optJSON)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var results []*engine.Result
	var ran [][]string
	seen := 0
	for _, f := range fires {
		r, err := e.Fire(f.Event, []byte(f.Payload))
		if err != nil {
			t.Fatalf("hookexec fire %s: %v", f.Event, err)
		}
		entries, err := livetest.ReadLog(log)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
		ran = append(ran, livetest.Names(entries[seen:]))
		seen = len(entries)
	}
	return results, ran
}

// texts is every string of the main conversation's requests.
func texts(m Model) string {
	var b strings.Builder
	var walk func(x any)
	walk = func(x any) {
		switch y := x.(type) {
		case string:
			b.WriteString(y)
			b.WriteByte('\n')
		case []any:
			for _, z := range y {
				walk(z)
			}
		case map[string]any:
			keys := make([]string, 0, len(y))
			for k := range y {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k != "tools" {
					walk(y[k])
				}
			}
		}
	}
	for _, r := range m.MainRequests() {
		var body any
		_ = json.Unmarshal(r.Body, &body)
		walk(body)
	}
	return b.String()
}

// scriptedCalls are the ids of the script's tool calls, in order.
func scriptedCalls(script []fakeapi.Turn) []string {
	var out []string
	for n, turn := range script {
		for i, c := range turn.Tools {
			out = append(out, fakeapi.CallID(n, i, c))
		}
	}
	return out
}

func shellOutput(dir, cmd string) string {
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Dir = dir
	out, _ := c.CombinedOutput()
	return strings.TrimSpace(string(out))
}

// compare says, fire by fire, where hookexec and the agent disagree on what the host must
// do; none means they agree. The k-th PreToolUse fire is the k-th scripted tool call.
func compare(v Vector, tree livetest.Tree, run Run, fires []livetest.Fire, results []*engine.Result, ran [][]string) []string {
	var problems []string
	add := func(i int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s #%d: ", fires[i].Event, i)+fmt.Sprintf(format, args...))
	}
	all := texts(run.Model)
	toolResults := run.Model.ToolResults()
	calls := scriptedCalls(v.Script)
	if len(fires) == 0 {
		problems = append(problems, state.a.Name+" fired no event (stderr: "+strings.TrimSpace(string(run.Stderr))+")")
	}
	pre := 0
	for i, f := range fires {
		r := results[i]
		for _, h := range r.Hooks {
			// A vector whose own hook script is broken agrees vacuously: both sides fail open.
			if strings.Contains(h.Stderr, "Traceback (most recent call last)") || strings.Contains(h.Stderr, "SyntaxError") {
				add(i, "the vector's hook %s crashed: %s", h.ID, h.Stderr)
			}
		}
		if !reflect.DeepEqual(f.Ran, ran[i]) && v.Skip["ran"] == "" {
			add(i, "hooks run: %s %v, hookexec %v", state.a.Name, f.Ran, ran[i])
		}
		var p struct {
			ToolName  string         `json:"tool_name"`
			ToolInput map[string]any `json:"tool_input"`
		}
		_ = json.Unmarshal([]byte(f.Payload), &p)
		switch event.Canonical(f.Event) {
		case "PreToolUse":
			if pre >= len(calls) {
				add(i, "more tool calls than the script has")
				break
			}
			id := calls[pre]
			pre++
			tr, ok := toolResults[id]
			if !ok {
				if r.Continue && v.Skip["stop"] == "" {
					add(i, "%s sent no tool result for %s; hookexec says continue", state.a.Name, id)
				}
				break
			}
			command := state.a.ShellCommand(p.ToolName, p.ToolInput)
			if len(r.UpdatedInput) > 0 && string(r.UpdatedInput) != "null" {
				upd := map[string]any{}
				_ = json.Unmarshal(r.UpdatedInput, &upd)
				command = state.a.ShellCommand(p.ToolName, upd)
			}
			want := ""
			if command != "" {
				want = shellOutput(tree.Project, command)
			}
			ranTool := want != "" && strings.Contains(tr.Text, want)
			switch {
			case r.Blocked && ranTool:
				add(i, "hookexec blocks (%q) but the tool ran: %q", r.Reason, tr.Text)
			case r.Blocked && r.Reason != "" && !strings.Contains(tr.Text, r.Reason) && v.Skip["reason"] == "":
				add(i, "reason: hookexec %q, %s told the model %q", r.Reason, state.a.Name, tr.Text)
			case !r.Blocked && r.Decision == "ask" && ranTool && v.Skip["ask"] == "":
				add(i, "hookexec asks the host to confirm (%q) but %s ran the tool without asking", r.Reason, state.a.Name)
			case !r.Blocked && want != "" && !ranTool:
				add(i, "hookexec lets %q run (prints %q, decision %s) but %s's tool returned %q", command, want, r.Decision, state.a.Name, tr.Text)
			}
		case "Stop":
			continued := false
			for _, g := range fires[i+1:] {
				continued = continued || g.Event == f.Event
			}
			if r.Blocked != continued && v.Skip["stop"] == "" {
				add(i, "continuation: hookexec blocked=%v (%q), %s continued=%v", r.Blocked, r.Reason, state.a.Name, continued)
			}
			if r.Blocked && continued && r.Reason != "" && !strings.Contains(all, r.Reason) {
				add(i, "Stop reason %q never reached the model", r.Reason)
			}
		case "UserPromptSubmit":
			asked := len(run.Model.MainRequests()) > 0
			if r.Blocked == asked {
				add(i, "prompt: hookexec blocked=%v, %s sent it to the model=%v", r.Blocked, state.a.Name, asked)
			}
		case "PostToolUse", "PostToolUseFailure":
			if r.Blocked && r.Reason != "" && !strings.Contains(all, r.Reason) && v.Skip["reason"] == "" {
				add(i, "feedback %q never reached the model", r.Reason)
			}
		}
		if ctx := r.AdditionalContext; ctx != "" && v.Skip["context"] == "" && !strings.Contains(all, ctx) {
			add(i, "additional context %q never reached the model", ctx)
		}
	}
	return problems
}
