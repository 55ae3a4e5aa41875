package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server in-process, so that its goroutines (requests in flight, listener
// notifications, evaluations answered by the host) run under the race detector. The
// protocol itself is tested from Python and Node against the built binary.
func TestServeUnderRace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	settings := `{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "safe?", "name": "judge"}]}],
		"PostToolUse": [{"hooks": [{"type": "command", "command": "echo bg", "async": true}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}`
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(settings), 0o644))

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- newServer(inR, outW).serve(); outW.Close() }()

	var wmu sync.Mutex
	send := func(v any) {
		b, _ := json.Marshal(v)
		wmu.Lock()
		defer wmu.Unlock()
		_, err := inW.Write(append(b, '\n'))
		assert.NoError(t, err)
	}
	responses := map[float64]rpcMessage{}
	var asyncs, evals int
	sc := bufio.NewScanner(outR)
	read := func() rpcMessage {
		require.True(t, sc.Scan(), "serve ended early")
		var m rpcMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		return m
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "open", "params": map[string]any{
		"profile": "claude", "project_dir": dir, "home": filepath.Join(dir, "nohome"), "evaluate": true}})
	require.JSONEq(t, `{"engine":1}`, string(read().Result))

	const n = 8
	for i := 1; i <= n; i++ {
		ev, payload := "Stop", map[string]any{}
		switch i % 3 {
		case 1:
			ev, payload = "PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": fmt.Sprint("cmd ", i)}}
		case 2:
			ev = "PostToolUse"
		}
		send(map[string]any{"jsonrpc": "2.0", "id": i, "method": "fire", "params": map[string]any{"engine": 1, "event": ev, "payload": payload}})
	}
	for len(responses) < n || asyncs < 3 {
		m := read()
		switch {
		case m.Method == "hookexec.evaluate":
			evals++
			send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(m.ID), "result": map[string]any{"ok": false, "reason": "no"}})
		case m.Method == "hookexec.async":
			asyncs++
		case m.Method == "":
			var id float64
			require.NoError(t, json.Unmarshal(m.ID, &id))
			responses[id] = m
		}
	}
	assert.Equal(t, 3, evals, "one evaluation per PreToolUse fire")
	for i := 1; i <= n; i++ {
		var r struct {
			Blocked bool   `json:"blocked"`
			Reason  string `json:"reason"`
		}
		require.Nil(t, responses[float64(i)].Error)
		require.NoError(t, json.Unmarshal(responses[float64(i)].Result, &r))
		assert.Equal(t, i%3 == 1, r.Blocked, "fire %d", i)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }() // whatever else comes, so writes never block
	inW.Close()
	assert.Equal(t, exitOK, <-done)
}
