package claude

// The http transport (hookexec install --transport http, docs/daemon.md) in the real
// Claude Code: PreToolUse is an http hook to the daemon on 127.0.0.1, SessionStart the
// command that starts the daemon and checks who holds the port. Every case but the control
// must keep the guarded tool from running: the guard allows it, so only a failure of the
// transport failing closed would stop it, and a transport that failed open would run it.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hookexec/core/daemon"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

// httpRun is one Claude Code session with hookexec installed over the http transport.
type httpRun struct {
	t                     *testing.T
	tree                  livetest.Tree
	runtime, httpDir, out string
	env                   []string
}

// newHTTPRun installs a PreToolUse guard that records each call in root/calls and then
// runs guard (a shell snippet; it allows), and for each of events a hook that records its
// call in root/calls-EVENT, with the http transport, into a fresh tree.
func newHTTPRun(t *testing.T, guard string, events ...string) *httpRun {
	root := t.TempDir()
	tree, err := livetest.NewTree(root)
	if err != nil {
		t.Fatal(err)
	}
	r := &httpRun{t: t, tree: tree, runtime: filepath.Join(root, "run"), httpDir: filepath.Join(root, "http"),
		out: filepath.Join(root, "ran")}
	settings := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "command", "timeout": 30,
			"command": "cat >> " + filepath.Join(root, "calls") + "; echo >> " + filepath.Join(root, "calls") + "; " + guard}}}}}}
	for _, ev := range events {
		settings["hooks"].(map[string]any)[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": "cat >> " + filepath.Join(root, "calls-"+ev)}}}}
	}
	raw, _ := json.MarshalIndent(settings, "", "  ")
	if err := os.MkdirAll(filepath.Join(tree.Home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree.Home, ".claude", "settings.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	r.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tree.Home, "HOOKEXEC_RUNTIME_DIR=" + r.runtime,
		"HOOKEXEC_HTTP_DIR=" + r.httpDir, "LANG=C.UTF-8", "NO_COLOR=1"}
	for k, v := range agent.Env {
		r.env = append(r.env, k+"="+v)
	}
	r.hookexec("--home", tree.Home, "install", "--agent", "claude", "--user", "--transport", "http")
	t.Cleanup(func() { // the daemon the session started, if it still runs
		c := exec.Command(suite.Hookexec(), "daemon", "--ask", "shutdown", "--force")
		c.Env = r.env
		_ = c.Run()
	})
	return r
}

func (r *httpRun) hookexec(args ...string) string {
	c := exec.Command(suite.Hookexec(), args...)
	c.Env = r.env
	out, err := c.CombinedOutput()
	if err != nil {
		r.t.Fatalf("hookexec %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (r *httpRun) port() int {
	b, err := os.ReadFile(filepath.Join(r.httpDir, "port"))
	if err != nil {
		r.t.Fatal(err)
	}
	p, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

// claude runs one session whose model calls Bash with each command in turn (the last one
// writes root/ran), and returns Claude Code's output.
func (r *httpRun) claude(commands ...string) string {
	var script []fakeapi.Turn
	for _, c := range append(commands, "echo ran > "+r.out) {
		in, _ := json.Marshal(map[string]string{"command": c, "description": "step"})
		script = append(script, fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Bash", Input: in}}})
	}
	model := &fakeapi.Anthropic{Script: script}
	base, err := model.Start()
	if err != nil {
		r.t.Fatal(err)
	}
	defer model.Close()
	c := exec.Command(suite.Bin(), "-p", "go", "--output-format", "stream-json", "--verbose",
		"--include-hook-events", "--dangerously-skip-permissions")
	c.Dir = r.tree.Project
	c.Env = append(r.env, "ANTHROPIC_BASE_URL="+base, "ANTHROPIC_API_KEY=sk-ant-fake-key-for-offline-tests")
	done := make(chan struct{})
	var out []byte
	go func() { out, _ = c.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute): // a hang guard only
		_ = c.Process.Kill()
		<-done
		r.t.Fatalf("Claude Code did not end within 3 minutes:\n%s", out)
	}
	return string(out)
}

func (r *httpRun) ran() bool {
	_, err := os.Stat(r.out)
	return err == nil
}

// calls counts the guard's runs for the final command (the one writing root/ran).
func (r *httpRun) calls() int {
	b, _ := os.ReadFile(filepath.Join(r.tree.Root, "calls"))
	return strings.Count(string(b), r.out)
}

// startDaemon starts the user's daemon now (as SessionStart would) and returns its pid.
func (r *httpRun) startDaemon() int {
	c := exec.Command(suite.Hookexec(), "daemon", "--idle", "5m")
	c.Env = r.env
	if err := c.Start(); err != nil {
		r.t.Fatal(err)
	}
	go func() { _ = c.Wait() }()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		st := exec.Command(suite.Hookexec(), "daemon", "--ask", "status")
		st.Env = r.env
		if out, err := st.Output(); err == nil && strings.Contains(string(out), fmt.Sprintf(`"http_port": %d`, r.port())) {
			return c.Process.Pid
		}
	}
	r.t.Fatal("the daemon did not listen on the transport's port within 30 s")
	return 0
}

func skipUnlessClaude(t *testing.T) {
	if suite.Hookexec() == "" || suite.Bin() == "" {
		t.Skip("needs the suite's Claude Code and hookexec")
	}
}

// The control: the session starts the daemon, the guard runs once over http and allows.
func TestHTTPTransportServes(t *testing.T) {
	skipUnlessClaude(t)
	r := newHTTPRun(t, "exit 0")
	out := r.claude()
	if !r.ran() || r.calls() != 1 {
		t.Fatalf("the allowed command: ran=%v, guard calls %d (want true, 1)\n%s", r.ran(), r.calls(), out)
	}
	st := r.hookexec("daemon", "--ask", "status")
	if !strings.Contains(st, fmt.Sprintf(`"http_port": %d`, r.port())) {
		t.Fatalf("the daemon does not serve the transport's port:\n%s", st)
	}
}

// The daemon killed before the call: nothing listens, the http hook fails closed.
func TestHTTPTransportDaemonAbsent(t *testing.T) {
	skipUnlessClaude(t)
	r := newHTTPRun(t, "exit 0")
	pid := r.startDaemon()
	out := r.claude(fmt.Sprintf("kill -9 %d", pid))
	if r.ran() {
		t.Fatalf("the command ran with no daemon behind its http hook\n%s", out)
	}
	if r.calls() != 0 {
		t.Fatalf("the guard ran %d times for the blocked command", r.calls())
	}
}

// The daemon killed while the guard runs: the connection ends unanswered, the call is
// blocked and never sent again (the guard ran once).
func TestHTTPTransportDaemonKilledMidCall(t *testing.T) {
	skipUnlessClaude(t)
	guard := filepath.Join(t.TempDir(), "guard.sh")
	r := newHTTPRun(t, "sh "+guard)
	pid := r.startDaemon()
	// The guard kills the daemon running it, at the guarded command's call.
	script := fmt.Sprintf("grep -q %s %s || exit 0\nkill -9 %d\nsleep 2\nexit 0\n", r.out, filepath.Join(r.tree.Root, "calls"), pid)
	if err := os.WriteFile(guard, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out := r.claude()
	if r.ran() {
		t.Fatalf("the command ran although the daemon died answering its guard\n%s", out)
	}
	if n := r.calls(); n != 1 {
		t.Fatalf("the guard ran %d times (want once: never sent twice)\n%s", n, out)
	}
}

// A wrong secret in the agent's settings: the daemon answers 401, the hook fails closed.
func TestHTTPTransportWrongSecret(t *testing.T) {
	skipUnlessClaude(t)
	r := newHTTPRun(t, "exit 0")
	path := filepath.Join(r.tree.Home, ".claude", "settings.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := os.ReadFile(filepath.Join(r.httpDir, "secret"))
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Repeat("0", len(strings.TrimSpace(string(secret))))
	b = []byte(strings.Replace(string(b), strings.TrimSpace(string(secret)), wrong, 1))
	if !strings.Contains(string(b), wrong) {
		t.Fatal("the settings do not carry the secret")
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out := r.claude()
	if r.ran() || r.calls() != 0 {
		t.Fatalf("with a wrong secret: ran=%v, guard calls %d (want false, 0)\n%s", r.ran(), r.calls(), out)
	}
	if !strings.Contains(out, "401") {
		t.Fatalf("Claude Code does not say the daemon refused the call (401):\n%s", out)
	}
}

// Another user holds the port (the daemon is down) and answers every call with an allow:
// the session's command entry sees the listener is not this user's and stops the session,
// so no call reaches the impostor.
func TestHTTPTransportAnotherUser(t *testing.T) {
	skipUnlessClaude(t)
	if os.Getuid() != 0 {
		t.Skip("needs root to run a listener as nobody")
	}
	// A SessionEnd hook too: under the transport it is an http hook, and Claude Code runs it
	// when it ends gracefully (SIGTERM), so the stop must not let it end gracefully.
	r := newHTTPRun(t, "exit 0", "SessionEnd")
	var installed struct {
		Hooks map[string][]struct{ Hooks []struct{ Type string } }
	}
	b, _ := os.ReadFile(filepath.Join(r.tree.Home, ".claude", "settings.json"))
	if err := json.Unmarshal(b, &installed); err != nil || len(installed.Hooks["SessionEnd"]) != 1 ||
		len(installed.Hooks["SessionEnd"][0].Hooks) != 1 || installed.Hooks["SessionEnd"][0].Hooks[0].Type != "http" {
		t.Fatalf("install gave SessionEnd no http entry (%v):\n%s", err, b)
	}
	python, err := exec.LookPath("/usr/bin/python3") // not a shim under /root, which nobody cannot enter
	if err != nil {
		t.Skipf("needs /usr/bin/python3 for the other user's listener: %v", err)
	}
	dir, err := os.MkdirTemp("", "hookexec-impostor-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(dir, "heard")
	impostor := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", `
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        open(sys.argv[2], "a").write(self.headers.get("Authorization", "") + "\n")
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"{}")
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
`, strconv.Itoa(r.port()), got)
	impostor.Dir = dir
	impostor.Stderr = os.Stderr
	if err := impostor.Start(); err != nil {
		t.Fatalf("cannot run a listener as nobody: %v", err)
	}
	t.Cleanup(func() { _ = impostor.Process.Kill(); _ = impostor.Wait() })
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if uid, err := daemon.ListenerUID(r.port()); err == nil && uid == 65534 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the listener as nobody did not listen within 30 s")
		}
	}
	out := r.claude()
	heard, _ := os.ReadFile(got)
	if r.ran() {
		t.Fatalf("the command ran with another user's listener on the port (it heard %q)\n%s", heard, out)
	}
	if len(heard) > 0 {
		t.Fatalf("another user's listener received hook calls (the secret): %q\n%s", heard, out)
	}
	if !strings.Contains(out, "was killed with SIGKILL") {
		t.Fatalf("the user is not told that Claude Code was killed:\n%s", out)
	}
	if !strings.Contains(out, "not by you") {
		t.Fatalf("the user is not told why the session stopped:\n%s", out)
	}
}

// An upgrade mid-session: a hook call of another hookexec build (a copy of the binary, so
// another identity) reaches the daemon from inside the session. The daemon executes that
// build in its own process, keeping the port and the session, so the session's next http
// call is served by the new build: the guard runs once and allows. (A daemon that exited
// instead would leave the port free and the call blocked, or answered by whoever took it.)
func TestHTTPTransportUpgradeMidSession(t *testing.T) {
	skipUnlessClaude(t)
	r := newHTTPRun(t, "exit 0")
	pid := r.startDaemon()
	data, err := os.ReadFile(suite.Hookexec())
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "hookexec")
	if err := os.WriteFile(other, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(other, time.Now(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	before := r.hookexec("daemon", "--ask", "status")
	call := fmt.Sprintf(`echo '{"hook_event_name":"Notification","session_id":"upgrade","message":"m"}' | %s hook --agent claude; sleep 3`, other)
	out := r.claude(call)
	if !r.ran() || r.calls() != 1 {
		t.Fatalf("after the upgrade: ran=%v, guard calls %d (want true, 1)\n%s", r.ran(), r.calls(), out)
	}
	after := r.hookexec("daemon", "--ask", "status")
	var b, a daemon.Status
	if json.Unmarshal([]byte(before), &b) != nil || json.Unmarshal([]byte(after), &a) != nil {
		t.Fatalf("status: %s / %s", before, after)
	}
	if a.Identity == b.Identity || a.PID != pid || a.HTTPPort != r.port() {
		t.Fatalf("want the other build in the same process on the same port:\nbefore %s\nafter %s", before, after)
	}
}
