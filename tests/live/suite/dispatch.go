package suite

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
	"time"

	"github.com/hookexec/hookexec/tests/live/livetest"
)

// Dispatch mode (HOOKEXEC_LIVE_DISPATCH=1, make test-dispatch): after the vector's run with
// its hooks as written (the native run, also compared with the engine as in the plain
// suite), the vector runs once more through the real agent in a fresh tree where
// `hookexec install --agent NAME` (project and user) moved its hooks behind the dispatcher,
// so that the agent runs only hookexec's hook command, which runs the hooks through the
// one daemon of the whole run. The two runs must agree on what the agent did: the events it
// fired and the vector's hooks each ran (in order), the tool results the model got, and the
// text of every user message of the last request (see outcome for what is normalised).

// DispatchEnv is the variable that turns dispatch mode on.
const DispatchEnv = "HOOKEXEC_LIVE_DISPATCH"

// dispatcher is the run's hookexec: its binary and the one daemon every vector shares
// (engines are kept per project, home and environment, so the vectors stay apart).
type dispatcher struct {
	bin     string
	runtime string
	daemon  *exec.Cmd
	exited  chan error
}

// startDispatch finds the hookexec binary ($HOOKEXEC_BIN, else built into dir) and starts
// the run's daemon on a runtime directory in dir.
func startDispatch(dir string) (*dispatcher, error) {
	bin := os.Getenv("HOOKEXEC_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "hookexec")
		cmd := exec.Command("go", "build", "-o", bin, "../../../cmd/hookexec")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building hookexec: %v\n%s", err, out)
		}
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	d := &dispatcher{bin: bin, runtime: filepath.Join(dir, "run"), exited: make(chan error, 1)}
	d.daemon = exec.Command(bin, "daemon", "--idle", "30m")
	d.daemon.Env = []string{"PATH=" + os.Getenv("PATH"), "HOOKEXEC_RUNTIME_DIR=" + d.runtime}
	d.daemon.Stderr = os.Stderr
	if err := d.daemon.Start(); err != nil {
		return nil, err
	}
	go func() { d.exited <- d.daemon.Wait() }()
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

func (d *dispatcher) ask(what string) ([]byte, error) {
	cmd := exec.Command(d.bin, "daemon", "--ask", what)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOOKEXEC_RUNTIME_DIR=" + d.runtime}
	return cmd.Output()
}

// stop shuts the daemon down and reports its status: how many dispatches it served.
func (d *dispatcher) stop() string {
	st, _ := d.ask("status")
	_, _ = d.ask("shutdown")
	select {
	case <-d.exited:
	case <-time.After(30 * time.Second): // a hang guard only
		_ = d.daemon.Process.Kill()
		<-d.exited
	}
	var s struct {
		Requests int64 `json:"requests"`
		Engines  int   `json:"engines"`
	}
	if json.Unmarshal(st, &s) != nil {
		return "the daemon answered no status at the end"
	}
	return fmt.Sprintf("one daemon served %d dispatches", s.Requests)
}

// outcome is what one run of the agent did, run-specific values normalised.
type outcome struct {
	Fires       []string // "Event ran:a,b", in the order the agent fired them
	ToolResults map[string]string
	UserTexts   []string
}

// userTexter is a Model that can list the user-side texts of the conversation.
type userTexter interface{ UserTexts() []string }

// Values that differ between any two runs of the same agent: ids (UUIDs, and the hashes
// Gemini CLI names its per-project temp directories by), the temp tree and the private
// directory of the system settings (as written, and as the agents spell them in paths and
// in their slugs), what a tool reports of its run (its duration, an output id, a process
// group), and the names of the files install adds, where an agent lists the project.
var (
	uuidRE   = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	hashRE   = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)
	// Codex's exec tool reports its wall time ("Wall time: 0.0123 seconds") and a random
	// id of its output ("Chunk ID: 1a52db").
	wallRE  = regexp.MustCompile(`(?i)(wall time: )[0-9.]+( seconds)`)
	chunkRE = regexp.MustCompile(`(Chunk ID: )[0-9a-f]+`)
	// Gemini CLI's shell tool reports the process group it ran the command in.
	pgidRE = regexp.MustCompile(`(Process Group PGID: )[0-9]+`)
	// The files install adds beside the settings: Gemini CLI lists the project's files in
	// the first message (a documented difference, docs/use-with-agents.md).
	installedRE = regexp.MustCompile(`(?m)^.*(hookexec-hooks(\.local)?\.json|\.hookexec-backup)\n`)
)

func outcomeOf(tree livetest.Tree, run Run) (outcome, error) {
	// Longest first: the private directory is not under the tree, the tree's real path may
	// be longer than its name.
	paths := [][2]string{{tree.Root, "$ROOT"}}
	if real, err := filepath.EvalSymlinks(tree.Root); err == nil && real != tree.Root {
		paths = append(paths, [2]string{real, "$ROOT"})
	}
	if secure, err := filepath.EvalSymlinks(filepath.Join(tree.Root, "secure")); err == nil {
		paths = append(paths, [2]string{secure, "$SECURE"})
	}
	sort.Slice(paths, func(i, j int) bool { return len(paths[i][0]) > len(paths[j][0]) })
	norm := func(s string) string {
		for _, p := range paths {
			s = strings.ReplaceAll(s, p[0], p[1])
			s = strings.ReplaceAll(s, nonAlnum.ReplaceAllString(p[0], "-"), p[1])
		}
		s = hashRE.ReplaceAllString(uuidRE.ReplaceAllString(s, "$UUID"), "$HASH")
		s = wallRE.ReplaceAllString(s, "${1}$$S${2}")
		s = chunkRE.ReplaceAllString(s, "${1}$$ID")
		s = pgidRE.ReplaceAllString(s, "${1}$$PGID")
		s = installedRE.ReplaceAllString(s, "")
		return strings.TrimSpace(s)
	}
	var o outcome
	entries, err := livetest.ReadLog(filepath.Join(tree.Root, "agent.log"))
	if err != nil {
		return o, err
	}
	for _, f := range livetest.Fires(entries) {
		o.Fires = append(o.Fires, f.Event+" ran:"+strings.Join(f.Ran, ","))
	}
	o.ToolResults = map[string]string{}
	for id, tr := range run.Model.ToolResults() {
		o.ToolResults[id] = fmt.Sprintf("error=%v %s", tr.IsError, norm(tr.Text))
	}
	if ut, ok := run.Model.(userTexter); ok {
		for _, t := range ut.UserTexts() {
			o.UserTexts = append(o.UserTexts, norm(t))
		}
	}
	return o, nil
}

// runDispatched runs the vector (raw, as in its file) through the agent with hookexec
// installed in a fresh tree, and returns where it disagrees with the native run.
func runDispatched(t *testing.T, raw []byte, native outcome) []string {
	a := state.a
	tree, err := livetest.NewTree(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	raw = livetest.Substitute(raw, map[string]string{"$PROJECT": tree.Project, "$HOME": tree.Home, "$ROOT": tree.Root, "$REC": state.rec})
	var v Vector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if err := tree.WriteFiles(v.Files); err != nil {
		t.Fatal(err)
	}
	for _, scope := range [][]string{{"--user"}, nil} {
		args := append([]string{"--project", tree.Project, "--home", tree.Home, "install", "--agent", a.Name}, scope...)
		cmd := exec.Command(state.dispatch.bin, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tree.Home}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("hookexec install %v: %v\n%s", scope, err, out)
		}
		if testing.Verbose() {
			t.Logf("hookexec install %v:\n%s", scope, out)
		}
	}
	if v.Env == nil {
		v.Env = map[string]string{}
	}
	v.Env["HOOKEXEC_RUNTIME_DIR"] = state.dispatch.runtime
	run := runAgent(t, tree, v)
	got, err := outcomeOf(tree, run)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		t.Logf("dispatched %s stdout: %s\nstderr: %s", a.Name, run.Stdout, run.Stderr)
		t.Logf("native:     %+v\ndispatched: %+v", native, got)
		entries, _ := livetest.ReadLog(filepath.Join(tree.Root, "agent.log"))
		for _, e := range entries {
			t.Logf("dispatched log %s: %q", e.Name, e.Stdin)
		}
	}
	return diffOutcomes(v, native, got)
}

func diffOutcomes(v Vector, native, dispatched outcome) []string {
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
	return problems
}
