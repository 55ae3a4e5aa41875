//go:build linux

package match

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fastjson"
)

// The differential test of Bash "if" rules, with bash as the oracle: every generated line
// (rule_shellgen_test.go) really runs under bash -c in a sandbox where rm, git and curl are
// recorders, bind-mounted over their files in a private mount namespace so that /bin/rm,
// /usr/bin/rm and every other way of reaching them is recorded. Whenever a recorded run is
// one a rule's pattern covers, the rule must have matched the line: selecting a hook too
// rarely lets a command past its guard. Selecting it too often is safe, and is reported
// as a rate, not a failure.

var (
	ifruleLines = flag.Int("ifrule.lines", 300, "generated lines TestIfRuleShell runs under bash")
	ifruleSeed  = flag.Int64("ifrule.seed", 1, "math/rand seed of TestIfRuleShell's grammar")
)

// sandboxEnv, set to the sandbox directory, makes the test binary the sandbox's server.
const sandboxEnv = "HOOKEXEC_IFRULE_SANDBOX"

// recorded are the programs the sandbox replaces by recorders; busybox is replaced by one
// that records its rm applet and runs the rest.
var recorded = []string{"rm", "git", "curl"}

// diffRules are the rules checked against every line.
var diffRules = []string{"Bash(rm *)", "Bash(rm:*)", "Bash(rm -rf *)", "Bash(git push *)", "Bash(git push:*)", "Bash(git *)", "Bash(curl *)"}

func TestMain(m *testing.M) {
	if dir := os.Getenv(sandboxEnv); dir != "" {
		os.Exit(serveSandbox(dir))
	}
	code := m.Run()
	sandboxes.close()
	os.Exit(code)
}

// A run is one recorded program run: its name and arguments.
type run []string

// sandboxReply is the server's answer for one line.
type sandboxReply struct {
	Runs     []run `json:"runs"`
	TimedOut bool  `json:"timed_out"`
}

// sandbox is a server (this test binary in a private mount namespace) running lines.
type sandbox struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	dir  string
	err  error
	once sync.Once
}

var sandboxes sandbox

// get starts the sandbox once per process; it skips the test where mount namespaces are
// not permitted, unless HOOKEXEC_REQUIRE_SHELLS=1.
func (s *sandbox) get(t testing.TB) *sandbox {
	t.Helper()
	s.once.Do(func() { s.err = s.start() })
	if s.err != nil {
		if os.Getenv("HOOKEXEC_REQUIRE_SHELLS") == "1" {
			t.Fatalf("the if-rule sandbox is required (HOOKEXEC_REQUIRE_SHELLS=1): %v", s.err)
		}
		t.Skipf("no if-rule sandbox (needs root and a private mount namespace; HOOKEXEC_REQUIRE_SHELLS=1 makes this fail): %v", s.err)
	}
	return s
}

func (s *sandbox) start() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("not root")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "hookexec-ifrule-")
	if err != nil {
		return err
	}
	s.dir = dir
	for _, sub := range []string{"rec", "real", "work"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	// A record is the program's name and arguments, each ended by US, the record by RS.
	logf := filepath.Join(dir, "log")
	record := func(name string) string {
		return fmt.Sprintf("printf '%%s\\037' %s \"$@\" '\x1e' >> %s\n", name, logf)
	}
	scripts := map[string]string{
		"rm":   record("rm") + "exit 0\n",
		"curl": record("curl") + "exit 0\n",
		// git runs after being recorded, so that what git itself runs (aliases) is seen.
		"git":     record("git") + "exec " + filepath.Join(dir, "real", "git") + " \"$@\"\n",
		"busybox": "case \"$1\" in rm) shift; " + record("rm") + "exit 0;; esac\nexec " + filepath.Join(dir, "real", "busybox") + " \"$@\"\n",
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, "rec", name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			return err
		}
	}
	for _, name := range []string{"git", "busybox"} {
		if p, err := exec.LookPath(name); err == nil {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "real", name), b, 0o755); err != nil {
				return err
			}
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	s.cmd = exec.Command(self)
	s.cmd.Env = append(os.Environ(), sandboxEnv+"="+dir)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS} // and / made private
	s.cmd.Stderr = os.Stderr
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		return err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("private mount namespace: %w", err)
	}
	s.out = bufio.NewReader(stdout)
	hello, err := s.out.ReadString('\n')
	if err != nil || hello != "ready\n" {
		s.close()
		return fmt.Errorf("sandbox: %q %v", hello, err)
	}
	return nil
}

func (s *sandbox) close() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.in.Close()
		_ = s.cmd.Wait()
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// run runs one line under bash -c in the sandbox and returns what the recorders saw.
func (s *sandbox) run(t testing.TB, line string) sandboxReply {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	req, _ := json.Marshal(line)
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	b, err := s.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	var r sandboxReply
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("sandbox reply %q: %v", b, err)
	}
	return r
}

// serveSandbox is the sandbox's server: it mounts the recorders over every file the
// recorded programs are reached by, then runs the lines it reads, one JSON string a line,
// answering each with a sandboxReply.
func serveSandbox(dir string) int {
	defer os.RemoveAll(dir) // also when the test process died (a fuzz worker stopped)
	fail := func(err error) int {
		fmt.Printf("error: %v\n", err)
		return 1
	}
	mounted := map[string]bool{}
	for _, name := range append(recorded, "busybox") {
		for _, d := range []string{"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"} {
			real, err := filepath.EvalSymlinks(filepath.Join(d, name))
			if err != nil || mounted[real] {
				continue
			}
			if err := syscall.Mount(filepath.Join(dir, "rec", name), real, "", syscall.MS_BIND, ""); err != nil {
				return fail(fmt.Errorf("bind %s: %w", real, err))
			}
			mounted[real] = true
		}
	}
	logf := filepath.Join(dir, "log")
	// The recorders must record, or every line would pass.
	if err := exec.Command("/bin/rm", "probe").Run(); err != nil {
		return fail(err)
	}
	if runs := readRuns(logf); len(runs) != 1 || strings.Join(runs[0], " ") != "rm probe" {
		return fail(fmt.Errorf("the rm recorder did not record: %q", runs))
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<24)
	for n := 0; in.Scan(); n++ {
		var line string
		if err := json.Unmarshal(in.Bytes(), &line); err != nil {
			return fail(err)
		}
		os.Remove(logf)
		work := filepath.Join(dir, "work", strconv.Itoa(n))
		if err := os.Mkdir(work, 0o755); err != nil {
			return fail(err)
		}
		timedOut := runLine(line, work)
		reply, _ := json.Marshal(sandboxReply{Runs: readRuns(logf), TimedOut: timedOut})
		fmt.Println(string(reply))
		os.RemoveAll(work)
	}
	return 0
}

// runLine runs a line under bash -c with a hang guard; it reports a timeout.
func runLine(line, work string) bool {
	c := exec.Command("bash", "-c", line)
	c.Dir = work
	c.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + work, "TERM=dumb",
		"LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Stdout, c.Stderr = io.Discard, io.Discard // pipes: Wait also waits for background children
	c.WaitDelay = 2 * time.Second
	if c.Start() != nil {
		return false
	}
	timer := time.AfterFunc(5*time.Second, func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL) })
	_ = c.Wait()
	stopped := timer.Stop()
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	return !stopped
}

func readRuns(logf string) []run {
	b, _ := os.ReadFile(logf)
	var runs []run
	for _, rec := range strings.Split(string(b), "\x1e\x1f") {
		if rec == "" || rec == "\n" {
			continue
		}
		runs = append(runs, strings.Split(strings.TrimSuffix(rec, "\x1f"), "\x1f"))
	}
	return runs
}

// covers reports whether a rule's pattern covers a run, read independently of the
// matcher: "p:*" is the prefix p at a word boundary, "*" any text, and a trailing " *"
// also takes the bare command.
func covers(rule string, r run) bool {
	p := strings.TrimSuffix(strings.TrimPrefix(rule, "Bash("), ")")
	text := strings.Join(r, " ")
	if prefix, ok := strings.CutSuffix(p, ":*"); ok {
		return text == prefix || strings.HasPrefix(text, prefix+" ")
	}
	if bare, ok := strings.CutSuffix(p, " *"); ok && text == bare {
		return true
	}
	parts := strings.Split(p, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile(`^(?s:` + strings.Join(parts, ".*") + `)$`).MatchString(text)
}

// diffStats counts what the differential test did.
type diffStats struct {
	lines, runs, timeouts, misses, matched, overSelected int
	perRule                                              map[string]*[2]int // rule: selections, of them with no covered run
}

// check runs a line and tests every rule against it, reporting each miss: a recorded run a
// rule covers on a line it did not select.
func (st *diffStats) check(t testing.TB, sb *sandbox, line string) {
	t.Helper()
	reply := sb.run(t, line)
	st.lines++
	st.runs += len(reply.Runs)
	if reply.TimedOut {
		st.timeouts++
		t.Logf("hang guard: %q", line)
	}
	var a fastjson.Arena
	input := a.NewObject()
	input.Set("command", a.NewString(line))
	for _, text := range diffRules {
		rule, err := CompileRule(text, "/p", "/home/u")
		if err != nil {
			t.Fatal(err)
		}
		matched := rule.Match("Bash", input, "/p")
		ran := false
		for _, r := range reply.Runs {
			if covers(text, r) {
				ran = true
				if !matched {
					st.misses++
					t.Errorf("%s does not select a line that ran %q:\n%s", text, strings.Join(r, " "), line)
					break
				}
			}
		}
		if matched {
			if st.perRule == nil {
				st.perRule = map[string]*[2]int{}
			}
			if st.perRule[text] == nil {
				st.perRule[text] = new([2]int)
			}
			st.matched++
			st.perRule[text][0]++
			if !ran {
				st.overSelected++
				st.perRule[text][1]++
			}
		}
	}
}

func (st *diffStats) String() string {
	rate := 0.0
	if st.matched > 0 {
		rate = float64(st.overSelected) / float64(st.matched)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d lines run under bash, %d recorded runs, %d hang-guard timeouts, %d misses; %d rule selections, %d of them (%.1f%%) with no covered run (over-selection)",
		st.lines, st.runs, st.timeouts, st.misses, st.matched, st.overSelected, 100*rate)
	for _, text := range diffRules {
		if n := st.perRule[text]; n != nil {
			fmt.Fprintf(&b, "\n  %-18s selected %4d lines of %d, %4d (%.1f%%) with no covered run", text, n[0], st.lines, n[1], 100*float64(n[1])/float64(n[0]))
		}
	}
	return b.String()
}

// TestIfRuleShell runs the hole 5 shapes and -ifrule.lines generated lines (seed
// -ifrule.seed) under bash, checking every rule against what ran.
func TestIfRuleShell(t *testing.T) {
	sb := sandboxes.get(t)
	var st diffStats
	for _, line := range holeShapes {
		st.check(t, sb, line)
	}
	n := *ifruleLines
	if testing.Short() {
		n /= 5
	}
	g := &choices{rnd: rand.New(rand.NewSource(*ifruleSeed))}
	for i := 0; i < n; i++ {
		st.check(t, sb, g.line())
	}
	t.Logf("seed %d: %s", *ifruleSeed, &st)
}

// FuzzIfRuleShell: the fuzzer's bytes choose a line from the grammar; bash runs it. The
// seeds are the hole 5 shapes.
func FuzzIfRuleShell(f *testing.F) {
	for i := range holeShapes {
		f.Add([]byte{9, byte(i)}) // list's last choice: holeShapes[i]
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sb := sandboxes.get(t)
		var st diffStats
		st.check(t, sb, (&choices{bytes: b}).line())
	})
}
