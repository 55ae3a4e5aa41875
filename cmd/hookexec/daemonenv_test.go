//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What the engine reads from its host's environment, the daemon reads from the call's.

// A Gemini CLI guard in the system settings file named by the agent's
// GEMINI_CLI_SYSTEM_SETTINGS_PATH blocks the same whether the engine runs in-process (hookexec
// fire, the variable in its environment) or in the daemon, which clears its own environment
// and gets the variable with the engine's options: the configuration is found from the
// environment the engine is opened with, not from the process's.
func TestDaemonEngineReadsTheCallersSystemSettings(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	system := s.write("etc/gemini-system.json", `{"hooks": {"BeforeTool": [{"matcher": "run_shell_command",
		"hooks": [{"type": "command", "command": "echo system guard >&2; exit 2"}]}]}}`)
	payload := `{"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}`

	s.env = append(s.env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+system)
	out := s.run("--profile", "gemini", "fire", "BeforeTool", "--payload", payload)
	require.Equal(t, 2, out.code, "blocked in-process: %s %s", out.stdout, out.stderr)
	require.Contains(t, out.stdout, "system guard")

	run := filepath.Join(s.root, "run")
	s.env = []string{"HOOKEXEC_DAEMON=", "HOOKEXEC_RUNTIME_DIR=" + run, "HOOKEXEC_DAEMON_IDLE=10m"}
	d := exec.Command(binary, "daemon")
	d.Env = append(append(os.Environ(), "HOME="+s.home), s.env...)
	require.NoError(t, d.Start())
	t.Cleanup(func() {
		_ = s.runQuiet("daemon", "--ask", "shutdown")
		_ = d.Wait()
	})
	eventually(t, "the daemon answers", func() bool { _, ok := s.status(); return ok })
	conn, err := net.Dial("unix", filepath.Join(run, "daemon.sock"))
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(2*time.Minute))) // a hang guard
	r := bufio.NewReader(conn)
	call := func(id int, method string, params any) json.RawMessage {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		require.NoError(t, err)
		_, err = conn.Write(append(b, '\n'))
		require.NoError(t, err)
		line, err := r.ReadBytes('\n')
		require.NoError(t, err)
		var resp struct {
			Result json.RawMessage
			Error  json.RawMessage
		}
		require.NoError(t, json.Unmarshal(line, &resp), string(line))
		require.Empty(t, resp.Error, string(line))
		return resp.Result
	}
	call(1, "open", map[string]any{"profile": "gemini", "project_dir": s.project, "home": s.home,
		"env": map[string]string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH": system}})
	res := call(2, "fire", map[string]any{"engine": 1, "event": "BeforeTool", "payload": json.RawMessage(payload)})
	var fired struct {
		Blocked bool   `json:"blocked"`
		Reason  string `json:"reason"`
	}
	require.NoError(t, json.Unmarshal(res, &fired), string(res))
	assert.True(t, fired.Blocked, "blocked through the daemon: %s", res)
	assert.Contains(t, fired.Reason, "system guard", string(res))
}

// HOOKEXEC_TRUST=project in the agent's environment holds back an unapproved project hook
// through the daemon as in-process: the engine reads the trust mode from the call's
// environment, not from the daemon's own (which is empty).
func TestDaemonHonoursTheCallersTrustMode(t *testing.T) {
	t.Parallel()
	s, ran := droppedScenario(t, "exit 0")
	s.env = append(s.env, "HOOKEXEC_TRUST=project")
	first := s.hookWith(binary, s.bashCall()) // in-process; starts the daemon
	assert.Equal(t, 0, first.code, first.stderr)
	assert.Empty(t, runs(t, ran), "held back in-process")
	eventually(t, "the daemon the call started", func() bool { _, ok := s.status(); return ok })
	second := s.hookWith(binary, s.bashCall())
	st, ok := s.status()
	require.True(t, ok)
	assert.Positive(t, st.Requests, "the second call went to the daemon")
	assert.Empty(t, runs(t, ran), "held back through the daemon")
	assert.Equal(t, first, second, "the same answer both ways")
}
