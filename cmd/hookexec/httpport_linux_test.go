package main

// The http transport's port against a real attacker: a process of another uid (nobody,
// through setpriv) looping on bind(127.0.0.1:PORT), the daemon's port, while the daemon is
// replaced by another build (an upgrade's call, a new build's session), idles with a
// session registered, or is killed outright. The port must never be theirs while a
// session may post to it; after a crash, the session's next command entry must see the
// foreign listener and stop the session. Real binaries, a real daemon, a real install.
// Needs root (to run the squatter as another user) and /usr/bin/python3; skipped otherwise.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/daemon"
)

// httpScenario is a user's install with --transport http: a guard denying "rm -rf" on
// PreToolUse (an http hook), a Stop hook (a command entry), and the daemon's files in
// directories of the test's own.
type httpScenario struct {
	*scenario
	port             int
	secret           string
	sessionCmd, stop string // the install's SessionStart and Stop commands
}

func newHTTPScenario(t *testing.T, idle string) *httpScenario {
	return newHTTPScenarioWith(t, idle, func(string) string {
		return `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm' >&2; exit 2; }; exit 0"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "exit 0"}]}]
}}`
	})
}

// newHTTPScenarioWith is newHTTPScenario with the user's settings userSettings(root) (root: the
// scenario's directory), which must keep a Stop hook (a command entry).
func newHTTPScenarioWith(t *testing.T, idle string, userSettings func(root string) string) *httpScenario {
	if os.Getuid() != 0 {
		t.Skip("needs root, to run the squatter as another user")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("needs setpriv")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3 for the squatter")
	}
	s := newScenario(t)
	s.write("home/.claude/settings.json", userSettings(s.root))
	run, httpDir := filepath.Join(s.root, "run"), filepath.Join(s.root, "http")
	// CLAUDE_PROJECT_DIR stays unset: a stopped session would otherwise signal this test's
	// process as the agent.
	s.env = append(s.env, "HOOKEXEC_DAEMON=", "HOOKEXEC_RUNTIME_DIR="+run, "HOOKEXEC_HTTP_DIR="+httpDir,
		"HOOKEXEC_DAEMON_IDLE="+idle, "CLAUDE_PROJECT_DIR=")
	out := s.run("install", "--agent", "claude", "--user", "--transport", "http")
	require.Equal(t, 0, out.code, out.stderr)
	cfg, err := daemon.LoadHTTP(httpDir)
	require.NoError(t, err)
	h := &httpScenario{scenario: s, port: cfg.Port, secret: cfg.Secret}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(s.read("home/.claude/settings.json")), &settings))
	h.sessionCmd, _ = settings.Hooks["SessionStart"][0].Hooks[0]["command"].(string)
	h.stop, _ = settings.Hooks["Stop"][0].Hooks[0]["command"].(string)
	require.NotEmpty(t, h.sessionCmd)
	require.NotEmpty(t, h.stop)
	t.Cleanup(func() {
		_ = s.runQuiet("daemon", "--ask", "shutdown", "--force")
		// The daemons this test's calls started, and those waiting for the lock to be
		// one (a caller answered in-process starts one for the next call): each has this
		// test's runtime directory in its environment.
		killWithEnv("HOOKEXEC_RUNTIME_DIR=" + run)
	})
	return h
}

// entry runs a command entry of the install as Claude Code does (through sh -c) with a
// payload.
func (h *httpScenario) entry(command, payload string) output {
	h.t.Helper()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = h.project
	cmd.Env = append(append(os.Environ(), "HOME="+h.home, "HOOKEXEC_HTTP_SECRET="+h.secret, "HOOKEXEC_LOG=", "HOOKEXEC_AUDIT_LOG="), h.env...)
	return runCmd(h.t, cmd, payload)
}

func (h *httpScenario) payload(event, session string, extra ...string) string {
	p := fmt.Sprintf(`{"hook_event_name":%q,"session_id":%q,"cwd":%q,"transcript_path":"/dev/null"`, event, session, h.project)
	for _, e := range extra {
		p += "," + e
	}
	return p + "}"
}

// start runs the session's SessionStart entry and checks the session was not stopped.
func (h *httpScenario) start(command, session string) {
	h.t.Helper()
	out := h.entry(command, h.payload("SessionStart", session, `"source":"startup"`))
	require.Equal(h.t, 0, out.code, out.stderr)
	require.NotContains(h.t, out.stdout, `"continue":false`, out.stderr)
}

// post sends an http hook call as Claude Code does.
func (h *httpScenario) post(body string) (int, string) {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, daemon.HTTPURL(h.port, "claude"), strings.NewReader(body))
	require.NoError(h.t, err)
	req.Header.Set("Authorization", "Bearer "+h.secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// guarded posts the guarded command for session and checks the guard denies it.
func (h *httpScenario) guarded(session string) {
	h.t.Helper()
	code, body := h.post(h.payload("PreToolUse", session, `"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}`))
	assert.False(h.t, code == http.StatusOK && !strings.Contains(body, "deny"), "the guard did not deny: %d %s", code, body)
	assert.Contains(h.t, body, "no rm", "the guard of the session ran (its environment is known)")
}

// otherBuild is a copy of the binary with another identity (its time differs).
func (h *httpScenario) otherBuild() string {
	other := filepath.Join(h.root, "other", "hookexec")
	require.NoError(h.t, os.MkdirAll(filepath.Dir(other), 0o755))
	data, err := os.ReadFile(binary)
	require.NoError(h.t, err)
	require.NoError(h.t, os.WriteFile(other, data, 0o755))
	require.NoError(h.t, os.Chtimes(other, time.Now(), time.Now().Add(-time.Hour)))
	return other
}

// squatter runs, as nobody, a loop binding 127.0.0.1:port (SO_REUSEADDR, as an attacker
// would) until killed; got reports whether it ever bound it.
type squatter struct {
	cmd  *exec.Cmd
	flag string
}

func squat(t *testing.T, port int) *squatter {
	dir, err := os.MkdirTemp("", "hookexec-squatter-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o777))
	sq := &squatter{flag: filepath.Join(dir, "got")}
	sq.cmd = exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", `
import socket, sys, time
port, flag = int(sys.argv[1]), sys.argv[2]
open(flag + ".looping", "w").close()
while True:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
        s.listen(64)
    except OSError:
        s.close()
        continue
    open(flag, "w").write("bound 127.0.0.1:%d\n" % port)
    while True:
        time.sleep(60)
`, strconv.Itoa(port), sq.flag)
	sq.cmd.Dir = dir
	sq.cmd.Stderr = os.Stderr
	require.NoError(t, sq.cmd.Start())
	t.Cleanup(sq.stop)
	eventually(t, "the squatter's loop", func() bool { _, err := os.Stat(sq.flag + ".looping"); return err == nil })
	return sq
}

func (sq *squatter) got() bool {
	_, err := os.Stat(sq.flag)
	return err == nil
}

func (sq *squatter) stop() {
	if sq.cmd.Process != nil && sq.cmd.ProcessState == nil {
		_ = sq.cmd.Process.Kill()
		_ = sq.cmd.Wait()
	}
}

// held checks that the port is this user's daemon's, and the squatter never had it.
func (h *httpScenario) held(sq *squatter) {
	h.t.Helper()
	assert.False(h.t, sq.got(), "a process of another uid bound the daemon's port")
	uid, err := daemon.ListenerUID(h.port)
	require.NoError(h.t, err)
	assert.Equal(h.t, os.Getuid(), uid, "the port's listener")
	st, ok := h.status()
	require.True(h.t, ok, "a daemon answers")
	assert.Equal(h.t, h.port, st.HTTPPort, "the daemon serves the port: %s", st.HTTPError)
}

// (a) An upgrade: a hook call of another build (the command transport's dispatcher) reaches
// the daemon. The daemon executes that build in its own process (same pid), the port
// listening throughout; the session registered before goes on being served.
func TestHTTPPortKeptAcrossAnUpgradesCall(t *testing.T) {
	t.Parallel()
	h := newHTTPScenario(t, "10m")
	h.start(h.sessionCmd, "s1")
	before, ok := h.status()
	require.True(t, ok)
	require.Equal(t, h.port, before.HTTPPort, before.HTTPError)
	other := h.otherBuild()
	sq := squat(t, h.port)
	out := h.entry(other+" hook --agent claude", h.payload("UserPromptSubmit", "s1", `"prompt":"hi"`))
	assert.Equal(t, 0, out.code, out.stderr)
	eventually(t, "the other build in the daemon's place", func() bool {
		st, ok := h.status()
		return ok && st.Identity != before.Identity
	})
	time.Sleep(500 * time.Millisecond) // the squatter keeps trying
	h.held(sq)
	after, _ := h.status()
	assert.Equal(t, before.PID, after.PID, "replaced in place")
	assert.Equal(t, 1, after.Sessions, "the session was handed on")
	h.guarded("s1")
}

// (b) A session of a new build starts: its SessionStart entry has the daemon replaced by
// its build (never shut down), and both sessions are served.
func TestHTTPPortKeptWhenANewBuildsSessionStarts(t *testing.T) {
	t.Parallel()
	h := newHTTPScenario(t, "10m")
	h.start(h.sessionCmd, "s1")
	before, ok := h.status()
	require.True(t, ok)
	other := h.otherBuild()
	sq := squat(t, h.port)
	h.start(other+" hook --agent claude --transport http", "s2")
	time.Sleep(500 * time.Millisecond)
	h.held(sq)
	after, _ := h.status()
	assert.NotEqual(t, before.Identity, after.Identity, "the new build serves")
	assert.Equal(t, 2, after.Sessions)
	h.guarded("s1")
	h.guarded("s2")
}

// (c) Idle with a session registered: the daemon stays (its session's agent, this test,
// runs), so the port is never free. Once the session ends, the daemon exits idle.
func TestHTTPPortKeptWhileASessionIdles(t *testing.T) {
	t.Parallel()
	h := newHTTPScenario(t, "1s")
	h.start(h.sessionCmd, "s1")
	sq := squat(t, h.port)
	time.Sleep(4 * time.Second) // four idle periods
	h.held(sq)
	sq.stop()
	code, body := h.post(h.payload("SessionEnd", "s1", `"reason":"exit"`))
	assert.Equal(t, http.StatusOK, code, body)
	eventually(t, "the idle exit with no session left", func() bool { _, ok := h.status(); return !ok })
}

// An explicit shutdown while a session is registered is refused; --force is needed.
func TestHTTPShutdownRefusedWithSessions(t *testing.T) {
	t.Parallel()
	h := newHTTPScenario(t, "10m")
	h.start(h.sessionCmd, "s1")
	cmd := exec.Command(binary, "daemon", "--ask", "shutdown")
	cmd.Env = append(append(os.Environ(), "HOME="+h.home), h.env...)
	out, err := cmd.CombinedOutput()
	assert.Error(t, err)
	assert.Contains(t, string(out), "1 http session(s) may still post")
	_, ok := h.status()
	assert.True(t, ok, "still running")
}

// A crash: the daemon is killed outright and another user takes the port. The session's
// next command entry (its Stop) finds the port held by another uid and stops the session.
func TestHTTPCommandEntryStopsTheSessionAfterACrash(t *testing.T) {
	t.Parallel()
	h := newHTTPScenario(t, "10m")
	h.start(h.sessionCmd, "s1")
	st, ok := h.status()
	require.True(t, ok)
	require.NoError(t, syscall.Kill(st.PID, syscall.SIGKILL))
	sq := squat(t, h.port)
	eventually(t, "the squatter on the freed port", sq.got)
	out := h.entry(h.stop, h.payload("Stop", "s1", `"stop_hook_active":false`))
	assert.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, `"continue":false`, "the session is stopped: %s", out.stderr)
	assert.Contains(t, out.stderr, "held by uid 65534, not by you")
}

// killWithEnv kills the processes whose environment holds entry (the test's own runtime
// directory, so only processes this test started).
func killWithEnv(entry string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(append(b, 0), []byte(entry+"\x00")) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil && pid != os.Getpid() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
