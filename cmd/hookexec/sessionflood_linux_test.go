package main

// A process of this user registering http-transport sessions without end on the daemon's
// socket (every socket call with a session id registers one; the socket lets no other uid
// in, TestDaemonRefusesOtherUID): the sessions kept stay bounded in number and bytes, a
// refused session fails closed, the sessions kept go on being served. The built binary, a
// real install, a real daemon; needs root (newHTTPScenario).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/daemon"
)

// vmRSS is a process's resident set in KiB.
func vmRSS(t *testing.T, pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// flood registers sessions prefix0…prefixN-1 on one connection to the daemon's socket,
// each call's environment padded with pad bytes; it returns how many were taken and how
// many refused with CodeSessionsFull.
func (h *httpScenario) flood(identity, prefix string, n, pad int, event string) (taken, refused int) {
	h.t.Helper()
	conn, err := net.Dial("unix", filepath.Join(h.root, "run", daemon.SocketName))
	require.NoError(h.t, err)
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 1<<16)
	padding := "PAD=" + strings.Repeat("x", pad)
	for i := range n {
		req := map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "dispatch", "params": map[string]any{
			"identity": identity,
			"request": map[string]any{"agent": "claude", "project": h.project, "home": h.home,
				"env":     []string{"PATH=/usr/bin:/bin", "HOME=" + h.home, padding, fmt.Sprintf("N=%d", i)},
				"payload": map[string]any{"hook_event_name": event, "session_id": fmt.Sprintf("%s%d", prefix, i), "cwd": h.project, "prompt": "hi", "reason": "exit"}}}}
		b, _ := json.Marshal(req)
		_, err := conn.Write(append(b, '\n'))
		require.NoError(h.t, err)
		line, err := r.ReadBytes('\n')
		require.NoError(h.t, err)
		var ans struct {
			Result json.RawMessage
			Error  *struct {
				Code    int
				Message string
			}
		}
		require.NoError(h.t, json.Unmarshal(line, &ans))
		switch {
		case ans.Error == nil:
			taken++
		case ans.Error.Code == daemon.CodeSessionsFull:
			refused++
		default:
			h.t.Fatalf("call %d: %s", i, line)
		}
	}
	return taken, refused
}

func TestHTTPSessionFloodBounded(t *testing.T) {
	t.Parallel()
	h := newHTTPScenario(t, "10m")
	h.start(h.sessionCmd, "real")
	st, ok := h.status()
	require.True(t, ok)
	time.Sleep(4 * time.Second) // the quiet release
	rss0 := vmRSS(t, st.PID)

	// Many small sessions: the number is bounded.
	taken, refused := h.flood(st.Identity, "small-", 3000, 512, "UserPromptSubmit")
	after, _ := h.status()
	t.Logf("3000 sessions of 0.5 KiB: %d taken, %d refused; sessions %d", taken, refused, after.Sessions)
	assert.Equal(t, daemon.MaxSessions, after.Sessions, "kept at the bound")
	assert.Equal(t, daemon.MaxSessions-1, taken)
	assert.Equal(t, 3000-taken, refused, "the rest refused")

	// A refused session fails closed: its http calls are blocked, saying why; its command
	// entry stops it. The session kept before goes on being guarded.
	code, body := h.post(h.payload("PreToolUse", "small-2999", `"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"}`))
	assert.Contains(t, body, `"permissionDecision":"deny"`, "%d %s", code, body)
	assert.Contains(t, body, "its most")
	out := h.entry(h.sessionCmd, h.payload("SessionStart", "one-more", `"source":"startup"`))
	assert.Contains(t, out.stdout, `"continue":false`, out.stderr)
	assert.Contains(t, out.stdout+out.stderr, "its most")
	h.guarded("real")

	// Ending sessions makes room; large environments are bounded by bytes.
	ended, _ := h.flood(st.Identity, "small-", 1000, 16, "SessionEnd")
	require.Equal(t, 1000, ended)
	taken, refused = h.flood(st.Identity, "large-", 2000, 16<<10, "UserPromptSubmit")
	after, _ = h.status()
	t.Logf("2000 sessions of 16 KiB: %d taken, %d refused; sessions %d", taken, refused, after.Sessions)
	assert.Less(t, taken*16<<10, daemon.MaxSessionBytes, "taken within the bytes bound")
	assert.Greater(t, refused, 1000)
	assert.LessOrEqual(t, after.Sessions, daemon.MaxSessions)

	time.Sleep(4 * time.Second) // the quiet release
	rss1 := vmRSS(t, st.PID)
	t.Logf("daemon RSS: %d KiB before the flood, %d KiB after 5000 registrations (%d kept)", rss0, rss1, after.Sessions)
	// Unbounded, the 2000 large sessions alone keep 32 MiB of environments.
	assert.Less(t, rss1-rss0, 24<<10, "RSS growth bounded")
	h.guarded("real")
}
