package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The project whose hooks a call runs is the one in the variable the agent sets for its
// hooks (CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR, QWEN_PROJECT_DIR), else the payload's cwd
// (Codex names no variable). Checked with the real C client and a daemon, the Go binary
// beside it made unrunnable so that no answer can come from a fallback, then with the Go
// dispatcher, which must agree; a relative variable is resolved against the working
// directory (the C client leaves that to the Go binary).
func TestProjectFromAgentVariable(t *testing.T) {
	t.Parallel()
	fast := buildFastClient(t)
	goBin := filepath.Join(filepath.Dir(fast), "hookexec")
	s := newScenario(t)
	run := filepath.Join(s.root, "run")
	s.env = append(s.env, "HOOKEXEC_DAEMON=", "HOOKEXEC_RUNTIME_DIR="+run, "HOOKEXEC_DAEMON_IDLE=10m")
	t.Cleanup(func() { _ = s.runQuiet("daemon", "--ask", "shutdown") })
	d := exec.Command(binary, "daemon")
	d.Env = append(append(os.Environ(), "HOME="+s.home), s.env...)
	require.NoError(t, d.Start())
	t.Cleanup(func() { _ = d.Process.Kill(); _ = d.Wait() })
	eventually(t, "the daemon", func() bool { _, ok := s.status(); return ok })

	vars := []string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "QWEN_PROJECT_DIR"}
	for _, tc := range []struct {
		agent, dir, event, tool, variable string
	}{
		{"claude", ".claude", "PreToolUse", "Bash", "CLAUDE_PROJECT_DIR"},
		{"gemini", ".gemini", "BeforeTool", "run_shell_command", "GEMINI_PROJECT_DIR"},
		{"qwen", ".qwen", "PreToolUse", "run_shell_command", "QWEN_PROJECT_DIR"},
		{"codex", ".codex", "PreToolUse", "Bash", ""},
	} {
		// Two projects whose hooks say which they are.
		for _, p := range []string{"a", "b"} {
			s.write(tc.agent+"/"+p+"/"+tc.dir+"/hookexec-hooks.json", `{"hooks": {"`+tc.event+`": [{"hooks": [{"type": "command",
				"command": "echo 'project `+p+`' >&2; exit 2"}]}]}}`)
		}
		a, b := filepath.Join(s.root, tc.agent, "a"), filepath.Join(s.root, tc.agent, "b")
		payload, _ := json.Marshal(map[string]any{"hook_event_name": tc.event, "session_id": "s1", "cwd": b,
			"tool_name": tc.tool, "tool_input": map[string]any{"command": "ls"}})
		call := func(bin, dir string, env ...string) output {
			args := []string{"--agent", tc.agent}
			if filepath.Base(bin) == "hookexec" {
				args = append([]string{"hook"}, args...)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Env = append(append(append([]string{}, os.Environ()...), "HOME="+s.home, "HOOKEXEC_LOG="), s.env...)
			for _, v := range vars { // the agent's own variable names project a, the others b
				if v == tc.variable || tc.variable == "" { // (all a for Codex, which reads none)
					cmd.Env = append(cmd.Env, v+"="+a)
				} else {
					cmd.Env = append(cmd.Env, v+"="+b)
				}
			}
			cmd.Env = append(cmd.Env, env...) // ... unless the case says otherwise
			return runCmd(t, cmd, string(payload))
		}
		want := "project a"
		if tc.variable == "" {
			want = "project b" // the payload's cwd
		}
		t.Run(tc.agent, func(t *testing.T) {
			before, _ := s.status()
			require.NoError(t, os.Chmod(goBin, 0o644))
			viaC := call(fast, s.root)
			require.NoError(t, os.Chmod(goBin, 0o755))
			after, _ := s.status()
			assert.Equal(t, before.Requests+1, after.Requests, "the C client's call went to the daemon")
			assert.Contains(t, viaC.stdout+viaC.stderr, want, "%+v", viaC)
			viaGo := call(goBin, s.root)
			assert.Equal(t, viaGo, viaC, "the Go dispatcher agrees")
			if tc.variable != "" {
				unset := call(fast, s.root, tc.variable+"=")
				assert.Contains(t, unset.stdout+unset.stderr, "project b", "without the variable: the payload's cwd")
				rel := call(fast, filepath.Join(s.root, tc.agent), tc.variable+"=a")
				assert.Contains(t, rel.stdout+rel.stderr, "project a", "a relative variable, from the working directory")
			}
		})
	}
}
