package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/dispatch"
)

// A peer that closed its end (the kernel keeps it as a TIME_WAIT or FIN_WAIT2 mini-socket,
// listed with uid 0 whoever owned it) is refused: its uid says nothing about who sent the
// data still queued. Meaningful as root, where uid 0 is the daemon's own.
func TestClosedPeerRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	client, err := net.Dial("tcp4", ln.Addr().String())
	require.NoError(t, err)
	server, err := ln.Accept()
	require.NoError(t, err)
	defer server.Close()
	peer, _ := netip.ParseAddrPort(client.LocalAddr().String())
	ours, _ := netip.ParseAddrPort(server.LocalAddr().String())
	require.True(t, tcpPeerAllowed(server, os.Getuid()), "open: allowed")
	require.NoError(t, client.Close())
	// The closed client socket becomes a timewait socket once our ACK of its FIN is in.
	var diagErr, procErr error
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		_, diagErr = sockDiagUID(peer, ours)
		_, procErr = tcpUID(peer, ours)
		if diagErr != nil && procErr != nil {
			break
		}
	}
	assert.ErrorIs(t, diagErr, ErrNotEstablished, "sock_diag")
	assert.ErrorIs(t, procErr, ErrNotEstablished, "/proc/net/tcp")
	assert.False(t, tcpPeerAllowed(server, os.Getuid()), "a closed peer is refused, even when uid 0 is ours")
}

// Another uid's process connects, writes a whole hook call with the right secret and
// closes at once, again and again: the daemon (run as root) never serves one, although the
// kernel lists each closed socket with uid 0. Needs root and /usr/bin/python3.
func TestHTTPClosedPeerOfAnotherUID(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the attack passes only a daemon of uid 0, and nobody is run with setpriv")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3")
	}
	dir, httpDir, home := t.TempDir(), t.TempDir(), t.TempDir()
	project := filepath.Join(t.TempDir(), "p")
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	marker := filepath.Join(t.TempDir(), "served")
	hooks := `{"hooks":{"PostToolUse":[{"hooks":[{"type":"command","command":"echo served >> ` + marker + `"}]}]}}`
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "hookexec-hooks.json"), []byte(hooks), 0o644))
	for _, d := range []string{dir, httpDir} {
		require.NoError(t, os.Chmod(d, 0o700))
	}
	cfg, err := SetupHTTP(httpDir)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- Run(Options{Dir: dir, Idle: time.Hour, Identity: "closed-peer", HTTPDir: httpDir}) }()
	t.Cleanup(func() {
		_ = ForceShutdown(dir)
		select {
		case <-done:
		case <-time.After(30 * time.Second): // a hang guard
			t.Error("the daemon did not stop")
		}
	})
	start := dispatch.Request{Agent: "claude", Project: project, Home: home, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home},
		Payload: json.RawMessage(`{"hook_event_name":"SessionStart","session_id":"s1","source":"startup","cwd":"` + project + `"}`)}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) { // a hang guard
		if _, err = Dispatch(dir, "closed-peer", start, time.Now().Add(10*time.Second)); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the daemon did not start: %v", err)
	}
	body := `{"hook_event_name":"PostToolUse","session_id":"s1","cwd":"` + project + `","tool_name":"Bash","tool_input":{},"tool_response":{}}`
	request := "POST " + HTTPPath("claude") + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + cfg.Secret +
		"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n" + body
	attacker := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", `
import socket, sys
for i in range(int(sys.argv[2])):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    try:
        s.sendall(sys.argv[3].encode())
    except OSError:
        pass  # refused while it was still open: reset
    s.close()
`, strconv.Itoa(cfg.Port), "200", request)
	attacker.Dir = "/"
	out, err := attacker.CombinedOutput()
	require.NoError(t, err, "%s", out)
	time.Sleep(time.Second) // what was let in has run by now
	_, err = os.Stat(marker)
	assert.True(t, errors.Is(err, os.ErrNotExist), "a closed peer of another uid was served")
	// The same call from this user is served: the hook is there to run.
	c, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(cfg.Port))
	require.NoError(t, err)
	_, err = c.Write([]byte(request))
	require.NoError(t, err)
	buf := make([]byte, 4096)
	n, _ := c.Read(buf)
	c.Close()
	assert.Contains(t, string(buf[:n]), "200 OK")
	got, err := os.ReadFile(marker)
	require.NoError(t, err)
	assert.Equal(t, "served\n", string(got))
}

// The uid check runs per connection: a flood of connections whose check is slow (here 300
// ms each, 20 of them) does not hold up a connection behind them.
func TestUIDCheckPerConnection(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	var seen atomic.Int64
	const flood = 20
	allow := func(c net.Conn, uid int) bool {
		if seen.Add(1) <= flood {
			time.Sleep(300 * time.Millisecond)
			return false
		}
		return true
	}
	l := newUIDListener(ln.(*net.TCPListener), os.Getuid(), allow)
	defer ln.Close()
	defer l.Close()
	for i := 0; i < flood; i++ {
		c, err := net.Dial("tcp4", ln.Addr().String())
		require.NoError(t, err)
		defer c.Close()
	}
	for seen.Load() < flood {
		time.Sleep(time.Millisecond)
	}
	began := time.Now()
	good, err := net.Dial("tcp4", ln.Addr().String())
	require.NoError(t, err)
	defer good.Close()
	got, err := l.Accept()
	require.NoError(t, err)
	defer got.Close()
	assert.Equal(t, good.LocalAddr().String(), got.RemoteAddr().String())
	assert.Less(t, time.Since(began), 250*time.Millisecond, "waited behind the flood's checks")
	// Closing stops accepting but leaves the socket listening (the daemon hands it on).
	require.NoError(t, l.Close())
	_, err = l.Accept()
	assert.ErrorIs(t, err, net.ErrClosed)
	uid, err := ListenerUID(ln.Addr().(*net.TCPAddr).Port)
	require.NoError(t, err, "still listening")
	assert.Equal(t, os.Getuid(), uid)
}

// A session is kept however long it is quiet while its agent runs, dropped when the agent
// is gone; one whose agent is unknown is kept SessionKeep. While one is kept the daemon
// does not exit idle, so its port is never free.
func TestSessionKeptWhileItsAgentRuns(t *testing.T) {
	t.Parallel()
	d := &daemon{}
	d.httpPort.Store(1)
	self := agentSelf(t, os.Getpid())
	sleeper := exec.Command("sleep", "60")
	require.NoError(t, sleeper.Start())
	gone := agentSelf(t, sleeper.Process.Pid)
	require.NoError(t, sleeper.Process.Kill())
	_ = sleeper.Wait()
	req := dispatch.Request{Agent: "claude", Env: []string{"A=1"}}
	d.remember("claude", "quiet for two days", "SessionStart", req, self)
	d.remember("claude", "agent gone", "SessionStart", req, gone)
	d.remember("claude", "unknown agent, recent", "SessionStart", req, procID{})
	d.remember("claude", "unknown agent, old", "SessionStart", req, procID{})
	d.sessions["claude\x00quiet for two days"].used = time.Now().Add(-48 * time.Hour)
	d.sessions["claude\x00unknown agent, old"].used = time.Now().Add(-SessionKeep - time.Minute)
	assert.Equal(t, 2, d.liveSessions())
	_, ok := d.session("claude", "quiet for two days")
	assert.True(t, ok)
	_, ok = d.session("claude", "unknown agent, recent")
	assert.True(t, ok)
	// A later call that cannot tell its agent keeps the one known.
	d.remember("claude", "quiet for two days", "Stop", req, procID{})
	assert.Equal(t, self, d.sessions["claude\x00quiet for two days"].agent)

	// Handed on to a successor and read back whole.
	saved, err := d.saveSessions()
	require.NoError(t, err)
	f, err := os.CreateTemp(t.TempDir(), "sessions")
	require.NoError(t, err)
	_, err = f.Write(saved)
	require.NoError(t, err)
	_, err = f.Seek(0, 0)
	require.NoError(t, err)
	next := &daemon{}
	next.loadSessions(f)
	got, ok := next.session("claude", "quiet for two days")
	assert.True(t, ok)
	assert.Equal(t, req.Env, got.Env)
	assert.Equal(t, self, next.sessions["claude\x00quiet for two days"].agent)
}

func agentSelf(t *testing.T, pid int) procID {
	_, _, start, ok := procStat(pid)
	require.True(t, ok)
	return procID{PID: pid, Start: start}
}

// The same attack with the timing the attacker wants: another uid's process connects,
// writes a whole call and closes before the daemon's listener accepts anything (here the
// accepting starts only after it exited). Before the state check each of these calls was
// served, since the kernel lists the closed sockets with uid 0, this root test's uid.
func TestClosedPeerOfAnotherUIDNotServed(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the closed sockets read as uid 0, and nobody is run with setpriv")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	request := "POST " + HTTPPath("claude") + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}"
	attacker := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", `
import socket, sys
for i in range(5):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.sendall(sys.argv[2].encode())
    s.close()
`, strconv.Itoa(port), request)
	attacker.Dir = "/"
	out, err := attacker.CombinedOutput()
	require.NoError(t, err, "%s", out)
	time.Sleep(300 * time.Millisecond) // the closed sockets settle into TIME_WAIT (uid 0)
	var served atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served.Add(1) })}
	l := newUIDListener(ln.(*net.TCPListener), os.Getuid(), tcpPeerAllowed)
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	time.Sleep(500 * time.Millisecond)
	assert.Zero(t, served.Load(), "calls of another uid's closed sockets were served")
	// This user's call on the same listener is served.
	c, err := net.Dial("tcp4", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte(request))
	require.NoError(t, err)
	buf := make([]byte, 512)
	n, _ := c.Read(buf)
	assert.Contains(t, string(buf[:n]), "200 OK")
	assert.Equal(t, int64(1), served.Load())
}

// The sessions kept are bounded in number and bytes: past either a new session is refused
// (its http calls then fail closed), one kept is updated, never dropped for it; a session
// whose agent is gone makes room, and so does a SessionEnd.
func TestSessionsBounded(t *testing.T) {
	t.Parallel()
	d := &daemon{}
	d.httpPort.Store(1)
	self := agentSelf(t, os.Getpid())
	req := dispatch.Request{Agent: "claude", Env: []string{"A=1"}}
	for i := range MaxSessions {
		require.NoError(t, d.remember("claude", fmt.Sprint(i), "SessionStart", req, self))
	}
	assert.ErrorIs(t, d.remember("claude", "one more", "SessionStart", req, self), errSessionsFull)
	assert.True(t, d.sessionsFull())
	assert.NoError(t, d.remember("claude", "7", "Stop", req, self), "a kept session is updated")
	assert.NoError(t, d.remember("claude", "7", "SessionEnd", req, self))
	assert.NoError(t, d.remember("claude", "one more", "SessionStart", req, self), "room after a SessionEnd")
	// A session whose agent is gone is dropped to make room (at most once a second).
	sleeper := exec.Command("sleep", "60")
	require.NoError(t, sleeper.Start())
	gone := agentSelf(t, sleeper.Process.Pid)
	require.NoError(t, d.remember("claude", "8", "Stop", req, gone))
	require.NoError(t, sleeper.Process.Kill())
	_ = sleeper.Wait()
	d.pruned = time.Time{}
	assert.NoError(t, d.remember("claude", "after the agent went", "SessionStart", req, self))
	_, ok := d.session("claude", "8")
	assert.False(t, ok)
	// Bytes: a few sessions with large environments reach MaxSessionBytes first.
	b := &daemon{}
	b.httpPort.Store(1)
	big := dispatch.Request{Agent: "claude", Env: []string{"PAD=" + strings.Repeat("x", 1<<20)}}
	n := 0
	for ; b.remember("claude", fmt.Sprint(n), "SessionStart", big, self) == nil; n++ {
	}
	assert.Equal(t, MaxSessionBytes>>20-1, n, "sessions of 1 MiB")
	assert.LessOrEqual(t, b.sessionBytes, MaxSessionBytes)
	require.NoError(t, b.remember("claude", "0", "SessionEnd", big, self))
	assert.NoError(t, b.remember("claude", "small", "SessionStart", req, self))
}
