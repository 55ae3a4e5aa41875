// Package suite runs the live conformance suites: every vector runs through the real,
// pinned agent (tests/live/versions.json), whose recorder hook logs every event's stdin;
// then every recorded event is fired through hookexec's engine with the payload the agent
// actually sent, and the two are compared on what the host must do (the tool ran or not,
// with which input; the prompt reached the model or not; the turn went on; context reached
// the model). Claude Code, Gemini CLI, Codex and Qwen Code each give an Agent: how to run
// it, its fake API, where its recorder goes, and optionally its own comparison.
//
// With HOOKEXEC_LIVE_DISPATCH=1 (dispatch.go) every vector instead runs twice through the
// real agent, natively and with hookexec installed in front of its hooks.
//
// The suite does not start a model: the agents talk to tests/live/fakeapi, which answers
// from the vector's script.
package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hookexec/core/convert"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/tests/live/agents"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/otelcoltest"
)

// Model is a scripted fake model API.
type Model interface {
	Start() (string, error)
	Close() error
	MainRequests() []fakeapi.Request
	// ToolResults are the tool results the conversation carries, by call id.
	ToolResults() map[string]fakeapi.ToolResult
}

// Vector is one tests/live/<agent>/vectors/*.json file. Every field's zero value means
// "not used by this vector".
type Vector struct {
	Description string `json:"description"`
	// Source says where the behaviour is written down (required unless the Agent says
	// SourceOptional).
	Source string         `json:"source"`
	Prompt string         `json:"prompt"`
	Script []fakeapi.Turn `json:"script"`
	// Agents script sub-conversations (fakeapi.Anthropic.Agents).
	Agents map[string][]fakeapi.Turn `json:"agents"`
	// Side answers the model requests without tools (prompt and agent hooks).
	Side  string                     `json:"side"`
	Files map[string]json.RawMessage `json:"files"`
	// Args are extra arguments for the agent's command.
	Args []string `json:"args"`
	// Stdin are the lines written to the agent's stdin, one JSON value each (Claude Code:
	// the user messages of --input-format stream-json, in place of the prompt).
	Stdin []json.RawMessage `json:"stdin"`
	Env   map[string]string `json:"env"`
	// HTTP are the routes of a local server the vector's http hooks call ($HTTP/<route>).
	HTTP map[string]Route `json:"http"`
	// Hookexec are extra engine options (engine.ParseOptions) for the hookexec side.
	Hookexec map[string]any `json:"hookexec"`
	// Unrecorded are the fires to give hookexec when the agent fires no hook at all (not
	// even the recorder: all hooks disabled), with the payloads it would have sent.
	Unrecorded []Unrecorded `json:"unrecorded"`
	// Deliberate names a documented difference the vector is marked with.
	Deliberate string `json:"deliberate"`
	// DispatchDifference names a documented difference between running the vector's hooks
	// natively and through hookexec install (dispatch mode; docs/use-with-agents.md).
	DispatchDifference string `json:"dispatch_difference"`
	// Skip lists comparisons this vector does not make, with why.
	Skip map[string]string `json:"skip"`
	// Convert makes the vector a conversion check (issue 18): another agent's file of Files
	// is converted by core/convert into the suite's agent's format before the run, and
	// then both the real agent and hookexec run the converted file, which must still do
	// what the source said.
	Convert *Conversion `json:"convert"`
}

// Conversion is a vector's conversion check.
type Conversion struct {
	Agent string `json:"agent"` // the source agent, as its profile is named
	From  string `json:"from"`  // the source file, a key of Files
	To    string `json:"to"`    // where the converted file is written, relative to the tree
	// Report lists texts the loss report must contain.
	Report []string `json:"report"`
	// Blocked lists the scripted tool calls (0-based, in script order) the converted hooks
	// must block; every other call must run.
	Blocked []int `json:"blocked"`
	// Context is a text a converted hook adds that must reach the model.
	Context string `json:"context"`
	// Ran lists the hooks (rec names) the real agent must have run. A converted hook that
	// runs through hookexec adapt sees the source agent's payload, not the stdin the
	// recorder saw, so such vectors skip the per-fire "ran" comparison and check this.
	Ran []string `json:"ran"`
	// Output is a text some tool result must contain (a rewritten command's output).
	Output string `json:"output"`
}

// Unrecorded is one fire the agent would have made.
type Unrecorded struct {
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

// Route is one answer of the vector's HTTP server; a JSON string body is sent as-is.
type Route struct {
	Status  int             `json:"status"` // 0: 200
	Body    json.RawMessage `json:"body"`
	DelayMs int             `json:"delay_ms"`
	// ContentType is the answer's Content-Type ("": Go's sniffing, text/plain for JSON).
	ContentType string `json:"content_type"`
}

// Run is what one run of the real agent left behind.
type Run struct {
	Model          Model
	Stdout, Stderr []byte
	// Log is the rec log of the run: the recorder's and the vector's hooks.
	Log []livetest.Entry
}

// Agent is what differs between the suites. Optional fields' zero values say what the
// suite does without them.
type Agent struct {
	Name    string // as the profile and `hookexec install --agent`: claude, gemini, codex, qwen
	Title   string // for the report: "Gemini CLI"
	Package string // npm package
	Bin     string // its executable
	// Gate is the variable that enables the suite (make test-<name> sets it).
	Gate string
	// Events are the events the recorder listens to, as the agent spells them.
	Events []string
	// Uncounted are events whose number of fires in a run is the agent's own business, not
	// the hooks' (Qwen Code fires MessageDisplay once or twice for the same answer, as its
	// output streams): dispatch mode compares whether they fired and what ran, not how often.
	Uncounted []string
	// NewModel returns the fake API for a vector.
	NewModel func(v Vector) Model
	// Command builds the agent's command: bin, the tree, the fake API's base URL, the
	// recorder's hooks (event → command) to configure where hookexec will not read them,
	// and the environment both sides share.
	Command func(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v Vector) (*exec.Cmd, error)
	// ShellCommand is the tool input's shell command of a PreToolUse payload ("" when the
	// call is not a shell call); used by the default comparison.
	ShellCommand func(toolName string, input map[string]any) string
	// ToolCall reads a PreToolUse payload's tool name and input where they are not
	// tool_name and tool_input (Cline's tool_call.name and .input); nil: those two.
	ToolCall func(payload []byte) (string, map[string]any)

	// Parallel is how many vectors run at a time (0: 3).
	Parallel int
	// SourceOptional lets vectors leave Source empty.
	SourceOptional bool
	// Env is added to the environment of both sides.
	Env map[string]string
	// Setup prepares the hookexec side's engine for a vector (nil: nothing), e.g. an
	// evaluator that gives prompt hooks the fake API's answer or a listener; what it returns
	// is the Comparison's Setup.
	Setup func(e *engine.Engine, v Vector) (any, error)
	// Compare replaces the default comparison (nil: Compare).
	Compare func(c *Comparison) []string
	// PayloadFields is the file recording the payload fields the pinned version sends per
	// event (fields.go); "" records nothing.
	PayloadFields string
	// Normalize rewrites a text of the agent's before dispatch mode compares two runs (nil:
	// only the paths and ids NormalizeText handles).
	Normalize func(s string) string
	// Vars are extra substitutions for a vector, given its text ("$MCP" → a helper the
	// suite built; nil: none); an error wrapping ErrSkip skips the vector.
	Vars func(raw []byte) (map[string]string, error)
	// TelemetryEnv turns the agent's own OpenTelemetry tracing on ("NAME=value", the
	// collector's endpoint added), for HOOKEXEC_LIVE_TELEMETRY=agent (telemetry.go).
	TelemetryEnv []string
	// Generated are vectors built by code rather than written in vectors/ (a table of
	// cases), by name; they run, filter and report exactly as the files do (nil: none).
	Generated func() (map[string][]byte, error)
	// Read turns a payload the agent sent for the event it spells as event into the
	// canonical event and payload hookexec's engine is fired with (nil: fired as sent), for
	// agents whose payloads are not Claude Code's shape (Copilot CLI's camelCase ones).
	Read func(event string, payload []byte) (string, []byte, error)
}

// generatedPrefix marks a generated vector where a vector's path is expected.
const generatedPrefix = "generated:"

// ErrSkip, wrapped in an error of Agent.Command or Agent.Vars, skips the vector with that error's text
// (what the vector needs cannot be had on this machine).
var ErrSkip = errors.New("vector skipped")

type suiteState struct {
	a                 Agent
	bin, version, rec string
	// hookexec is the built CLI: dispatch mode installs it, converted hooks run its adapt;
	// daemon is dispatch mode's one daemon for the run.
	hookexec string
	daemon   *daemon
	// collector is telemetry mode's one OpenTelemetry Collector for the run.
	collector *otelcoltest.Collector
	report    livetest.Report
	fields    fieldSet
	// generated are the Agent's generated vectors, by generatedPrefix + name.
	generated map[string][]byte
	// mark is this run's RunMarkEnv value, in every agent process's environment.
	mark string
}

var state *suiteState

// Main is the suite's TestMain: it skips unless a.Gate is set, installs the pinned agent
// (skipping when npm is unreachable), builds the recorder (and hookexec in dispatch mode),
// runs the tests and prints the report.
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
	var rec, hookexec string
	if err == nil {
		rec, err = livetest.BuildRec(dir)
	}
	if err == nil {
		// Dispatch mode installs it; converted hooks run "hookexec adapt" (first on the PATH).
		hookexec, err = buildHookexec(dir)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tests/live/%s: %v\n", a.Name, err)
		os.Exit(1)
	}
	state = &suiteState{a: a, bin: bin, version: version, rec: rec, hookexec: hookexec, generated: map[string][]byte{},
		mark: newRunMark(a.Name)}
	if a.Generated != nil {
		vectors, err := a.Generated()
		if err != nil {
			fmt.Fprintf(os.Stderr, "tests/live/%s: generated vectors: %v\n", a.Name, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		for name, raw := range vectors {
			state.generated[generatedPrefix+name] = raw
		}
	}
	if DispatchMode() {
		if state.daemon, err = startDaemon(dir); err != nil {
			fmt.Fprintf(os.Stderr, "tests/live/%s: dispatch mode: %v\n", a.Name, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	// Vectors wait on the suite's own bound (Test), not on -test.parallel, whose default
	// (GOMAXPROCS: 2 on a 2-core machine) would cap every suite at two agent runs at a time.
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", "256")
	}
	start := time.Now()
	code := m.Run()
	served := int64(-1)
	if state.daemon != nil {
		served = state.daemon.stop()
		if served <= 0 && code == 0 {
			fmt.Fprintf(os.Stderr, "tests/live/%s: dispatch mode: the run's daemon served no hook call (%d)\n", a.Name, served)
			code = 1
		}
	}
	os.RemoveAll(dir)
	secure.Lock()
	for _, d := range secure.dirs {
		os.RemoveAll(d)
	}
	secure.Unlock()
	mode := ""
	if DispatchMode() {
		mode = fmt.Sprintf(", each vector also through hookexec install (%s; one daemon, %d hook calls)", hookexec, served)
	}
	fmt.Printf("%s %s (%s)%s:\n", a.Title, version, bin, mode)
	state.report.Print(os.Stdout)
	if a.PayloadFields != "" {
		if fc := checkPayloadFields(a.PayloadFields, version, fullRun()); fc != 0 && code == 0 {
			code = fc
		}
	}
	if os.Getenv(agents.LatestEnv) != "" {
		if ec := latestEvents(a, version); ec != 0 && code == 0 {
			code = ec
		}
	}
	fmt.Printf("(%s)\n", time.Since(start).Round(time.Second))
	os.Exit(code)
}

// DispatchGeneratedEnv set runs the generated vectors (Agent.Generated: Claude Code's 156
// legacy-field vectors) through hookexec install too in dispatch mode. Without it they run
// as in plain mode, natively and against hookexec's engine: through install as well, the
// Claude Code dispatch suite took 13 minutes in CI, past make test's budget.
const DispatchGeneratedEnv = "HOOKEXEC_LIVE_DISPATCH_GENERATED"

// HangEnv overrides, in seconds, how long one agent run may take before it counts as hung.
const HangEnv = "HOOKEXEC_LIVE_HANG_SECONDS"

// RerunEnv set to "0" keeps a vector that differs from being run a second time (by default
// it is, and passes only if the second run agrees; the report says so).
const RerunEnv = "HOOKEXEC_LIVE_RERUN"

// JobsEnv overrides how many vectors a suite runs at a time (Agent.Parallel).
const JobsEnv = "HOOKEXEC_LIVE_JOBS"

// Version is the pinned agent's version (after Main installed it).
func Version() string { return state.version }

// Rec is the path of the built rec hook.
func Rec() string { return state.rec }

// Test runs every vector of vectors/*.json (HOOKEXEC_LIVE_ONLY narrows them by name).
func Test(t *testing.T) {
	paths, err := filepath.Glob("vectors/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	generated := make([]string, 0, len(state.generated))
	for path := range state.generated {
		generated = append(generated, path)
	}
	sort.Strings(generated)
	paths = append(paths, generated...)
	only := os.Getenv("HOOKEXEC_LIVE_ONLY")
	if TelemetryMode() {
		startCollector(t)
	}
	// A few at a time: each runs an agent process; more only queues on the shared cores.
	n := state.a.Parallel
	if j, err := strconv.Atoi(os.Getenv(JobsEnv)); err == nil && j > 0 {
		n = j
	}
	if n <= 0 {
		n = 3
	}
	sem := make(chan struct{}, n)
	for _, path := range paths {
		name := strings.TrimPrefix(strings.TrimSuffix(filepath.Base(path), ".json"), generatedPrefix)
		if only != "" && !strings.Contains(name, only) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			run := runVector
			if DispatchMode() && (!strings.HasPrefix(filepath.Base(path), generatedPrefix) || os.Getenv(DispatchGeneratedEnv) != "") {
				run = runDispatchVector
			}
			problems, deliberate := run(t, path)
			if len(problems) > 0 && os.Getenv(RerunEnv) != "0" {
				// Once more: a real agent under load has races of its own. A difference
				// that holds fails; one that goes away is reported as such.
				first := problems
				if problems, deliberate = run(t, path); len(problems) == 0 {
					state.report.AddAgain(name, first, deliberate)
					return
				}
			}
			state.report.Add(name, problems, deliberate)
			if len(problems) > 0 {
				t.Errorf("%s differs:\n  %s", name, strings.Join(problems, "\n  "))
			}
		})
	}
}

// fullRun says whether every vector runs: no HOOKEXEC_LIVE_ONLY and no -test.run filter.
func fullRun() bool {
	if os.Getenv("HOOKEXEC_LIVE_ONLY") != "" {
		return false
	}
	if f := flagValue("test.run"); f != "" {
		return false
	}
	return flagValue("test.skip") == ""
}

// loadVector reads a vector (a file, or a generated one), makes its tree, starts its HTTP
// server and substitutes $PROJECT, $HOME, $ROOT, $REC and $HTTP.
func loadVector(t *testing.T, path string) (Vector, livetest.Tree) {
	raw, ok := state.generated[path]
	if !ok {
		var err error
		if raw, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	var v Vector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if v.Description == "" {
		t.Fatalf("%s: every vector says what it checks (description)", path)
	}
	if v.Source == "" && !state.a.SourceOptional {
		t.Fatalf("%s: every vector says where the behaviour is written down (source)", path)
	}
	tree, err := livetest.NewTree(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"$PROJECT": tree.Project, "$HOME": tree.Home, "$ROOT": tree.Root,
		"$REC": state.rec, "$HTTP": serveHTTP(t, v.HTTP)}
	if state.a.Vars != nil {
		more, err := state.a.Vars(raw)
		if errors.Is(err, ErrSkip) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		for k, val := range more {
			vars[k] = val
		}
	}
	raw = livetest.Substitute(raw, vars)
	v = Vector{}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := tree.WriteFiles(v.Files); err != nil {
		t.Fatal(err)
	}
	if v.Convert != nil {
		convertFile(t, tree, v.Convert)
	}
	return v, tree
}

func runVector(t *testing.T, path string) ([]string, string) {
	problems, v, _ := runNative(t, path)
	return problems, v.Deliberate
}

// runNative runs a vector through the agent with its hooks as written and compares the run
// with the engine's; it returns the differences, the vector and what the run did.
func runNative(t *testing.T, path string) ([]string, Vector, Outcome) {
	a := state.a
	v, tree := loadVector(t, path)
	run := runAgent(t, tree, v)
	outcome := OutcomeOf(tree, run)
	fires := livetest.Fires(run.Log)
	unrecorded := len(fires) == 0 && len(v.Unrecorded) > 0
	if unrecorded {
		for _, u := range v.Unrecorded {
			fires = append(fires, livetest.Fire{Event: u.Event, Payload: string(u.Payload), Ran: livetest.Names(run.Log)})
		}
	} else if a.PayloadFields != "" {
		state.fields.add(fires)
	}
	if a.Read != nil {
		for i, f := range fires {
			ev, p, err := a.Read(f.Event, []byte(f.Payload))
			if err != nil {
				t.Fatalf("reading %s's %s payload: %v", a.Name, f.Event, err)
			}
			fires[i].Event, fires[i].Payload = ev, string(p)
		}
	}
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
	results, ran, setup := runHookexec(t, tree, v, fires)
	if testing.Verbose() {
		for i, r := range results {
			t.Logf("hookexec %s ran %v: %s", fires[i].Event, ran[i], r.JSON())
		}
	}
	if unrecorded {
		// The agent ran no hook at all: hookexec must run none either.
		var problems []string
		for i, f := range fires {
			if !reflect.DeepEqual(f.Ran, ran[i]) {
				problems = append(problems, fmt.Sprintf("%s: hooks run: %s %v, hookexec %v", f.Event, a.Name, f.Ran, ran[i]))
			}
		}
		return problems, v, outcome
	}
	c := &Comparison{V: v, Tree: tree, Run: run, Fires: fires, Results: results, Ran: ran, Setup: setup}
	cmp := Compare
	if a.Compare != nil {
		cmp = a.Compare
	}
	problems := cmp(c)
	if v.Convert != nil {
		problems = append(problems, converted(v, run, fires, results)...)
	}
	return problems, v, outcome
}

// convertFile converts the vector's source file for the suite's agent, checking its report.
func convertFile(t *testing.T, tree livetest.Tree, c *Conversion) {
	src := filepath.Join(tree.Root, c.From)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	res, err := convert.Convert(c.Agent, state.a.Name, src, data)
	if err != nil {
		t.Fatalf("convert %s -> %s: %v", c.Agent, state.a.Name, err)
	}
	report := res.Report(c.Agent, state.a.Name)
	for _, want := range c.Report {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if testing.Verbose() {
		t.Logf("%s\n%s", report, res.Output)
	}
	dst := filepath.Join(tree.Root, c.To)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, res.Output, 0o644); err != nil {
		t.Fatal(err)
	}
}

// converted checks that the converted hooks did what the source said: the calls it blocks
// are blocked (and, the comparison having found both sides agree, the agent did not run
// them), the others ran, the hooks ran under the agent, the context reached the model.
func converted(v Vector, run Run, fires []livetest.Fire, results []*engine.Result) []string {
	var problems []string
	ran := livetest.Names(run.Log)
	for _, name := range v.Convert.Ran {
		if !slices.Contains(ran, name) {
			problems = append(problems, fmt.Sprintf("converted: %s never ran under %s (ran: %v)", name, state.a.Name, ran))
		}
	}
	pre := 0
	for i, f := range fires {
		if event.Canonical(f.Event) != "PreToolUse" {
			continue
		}
		want := slices.Contains(v.Convert.Blocked, pre)
		if results[i].Blocked != want {
			problems = append(problems, fmt.Sprintf("converted: call %d blocked=%v, the vector wants blocked=%v (%q)", pre, results[i].Blocked, want, results[i].Reason))
		}
		pre++
	}
	for _, b := range v.Convert.Blocked {
		if b >= pre {
			problems = append(problems, fmt.Sprintf("converted: call %d never reached a PreToolUse hook", b))
		}
	}
	if out := v.Convert.Output; out != "" {
		found := false
		for _, tr := range run.Model.ToolResults() {
			found = found || strings.Contains(tr.Text, out)
		}
		if !found {
			problems = append(problems, fmt.Sprintf("converted: no tool result holds %q", out))
		}
	}
	if c := v.Convert.Context; c != "" && !strings.Contains(Texts(run.Model), c) {
		problems = append(problems, fmt.Sprintf("converted: context %q never reached the model", c))
	}
	return problems
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

// Env is the environment both sides give hooks: the agent passes its own to them.
func Env(tree livetest.Tree, v Vector, log string) map[string]string {
	env := map[string]string{
		"PATH":              filepath.Dir(state.hookexec) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME":              tree.Home,
		"HOOKEXEC_LIVE_LOG": log,
		"LANG":              "C.UTF-8",
		"NO_COLOR":          "1",
	}
	for k, val := range state.a.Env {
		env[k] = val
	}
	for k, val := range v.Env {
		env[k] = val
	}
	return env
}

// serveHTTP serves a vector's routes on 127.0.0.1 (an ephemeral port) for the test's
// life and returns the base URL; "" when the vector has none.
func serveHTTP(t *testing.T, routes map[string]Route) string {
	if len(routes) == 0 {
		return ""
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt, ok := routes[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(time.Duration(rt.DelayMs) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		var text string
		body := []byte(rt.Body)
		if json.Unmarshal(rt.Body, &text) == nil {
			body = []byte(text)
		}
		if rt.ContentType != "" {
			w.Header().Set("Content-Type", rt.ContentType)
		}
		if rt.Status != 0 {
			w.WriteHeader(rt.Status)
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
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
	log := filepath.Join(tree.Root, "agent.log")
	env := Env(tree, v, log)
	cmd, err := a.Command(state.bin, tree, base, recorder, env, v)
	if errors.Is(err, ErrSkip) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	// 240 s is a hang guard only: a run takes a few seconds (HangEnv raises it on a machine
	// so loaded that a run takes minutes).
	hang := 240 * time.Second
	if s, err := strconv.Atoi(os.Getenv(HangEnv)); err == nil && s > 0 {
		hang = time.Duration(s) * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cmd = withContext(ctx, cmd)
	// The run's mark: what the agent starts inherits it, so NoLeftovers finds this run's
	// processes, and only them.
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, RunMarkEnv+"="+state.mark)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && ctx.Err() != nil {
		t.Fatalf("%s hung: %v\nstderr: %s", a.Name, err, stderr.String())
	}
	entries, err := livetest.ReadLog(log)
	if err != nil {
		t.Fatal(err)
	}
	// A hook the agent left running when it exited (it stopped waiting but did not kill
	// it) may still log: wait for every rec process to end, so that whether a hook
	// finished (rec -done) does not depend on when the log is read. 120 s is a hang guard.
	for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		alive := false
		for _, e := range entries {
			alive = alive || e.Alive()
		}
		if !alive {
			break
		}
		if entries, err = livetest.ReadLog(log); err != nil {
			t.Fatal(err)
		}
	}
	return Run{Model: model, Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Log: entries}
}

func withContext(ctx context.Context, c *exec.Cmd) *exec.Cmd {
	out := exec.CommandContext(ctx, c.Path, c.Args[1:]...)
	out.Dir, out.Env, out.Stdin = c.Dir, c.Env, c.Stdin
	return out
}

// runHookexec fires, in order, every event the agent fired, with the stdin the agent gave
// its hooks, through hookexec's engine (the agent's profile, the same files and env).
func runHookexec(t *testing.T, tree livetest.Tree, v Vector, fires []livetest.Fire) ([]*engine.Result, [][]string, any) {
	log := filepath.Join(tree.Root, "hookexec.log")
	opts := map[string]any{}
	for k, x := range v.Hookexec {
		opts[k] = x
	}
	opts["profile"], opts["project_dir"], opts["home"] = state.a.Name, tree.Project, tree.Home
	opts["env"] = Env(tree, v, log)
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
	var setup any
	if state.a.Setup != nil {
		if setup, err = state.a.Setup(e, v); err != nil {
			t.Fatal(err)
		}
	}
	var results []*engine.Result
	var bounds []int // the log's length after each fire
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
		bounds = append(bounds, len(entries))
	}
	// Close waits for the hooks still running in the background (async), whose results
	// reach the listener.
	e.Close()
	entries, err := livetest.ReadLog(log)
	if err != nil {
		t.Fatal(err)
	}
	return results, attribute(fires, entries, bounds), setup
}

// attribute says which fire each hook of the hookexec log ran for: the fire it was logged
// during, unless that fire's payload is not on its stdin, when it is the latest earlier fire
// whose payload is (a background hook that logged after its fire returned).
func attribute(fires []livetest.Fire, entries []livetest.Entry, bounds []int) [][]string {
	ran := make([][]string, len(fires))
	if len(fires) == 0 {
		return ran
	}
	payloads := make([]map[string]any, len(fires))
	for i, f := range fires {
		_ = json.Unmarshal([]byte(f.Payload), &payloads[i])
	}
	pos := 0
	for k, en := range entries {
		for pos < len(bounds)-1 && k >= bounds[pos] {
			pos++
		}
		if strings.HasPrefix(en.Name, "@") {
			continue
		}
		i := pos
		var stdin map[string]any
		if json.Unmarshal([]byte(en.Stdin), &stdin) == nil && !carries(stdin, payloads[pos]) {
			for j := pos - 1; j >= 0; j-- {
				if carries(stdin, payloads[j]) {
					i = j
					break
				}
			}
		}
		ran[i] = append(ran[i], en.Name)
	}
	for i := range ran {
		sort.Strings(ran[i])
	}
	return ran
}

// carries says whether stdin holds every field of payload with the same value.
func carries(stdin, payload map[string]any) bool {
	if payload == nil {
		return false
	}
	for k, v := range payload {
		if !reflect.DeepEqual(stdin[k], v) {
			return false
		}
	}
	return true
}

// Bin is the pinned agent's binary, Hookexec the built CLI (after Main).
func Bin() string      { return state.bin }
func Hookexec() string { return state.hookexec }
