package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A project's Qwen Code settings whose hooks answer Qwen's way (exit 2 with the reason on
// stderr; a rewrite through PermissionRequest, the only event whose updatedInput Qwen Code
// applies), installed and then driven as Qwen Code drives a hook.
const qwenProject = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0", "timeout": 5}]}
    ],
    "PermissionRequest": [
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PermissionRequest\", \"decision\": {\"behavior\": \"allow\", \"updatedInput\": {\"file_path\": \"safe.txt\"}}}}'"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests not run\"}'", "timeout": 2000}]}]
  },
  "model": {"name": "qwen3-coder-plus"}
}
`

func TestQwenInstallDispatchUninstall(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.qwen/settings.json", qwenProject)
	out := s.run("install", "--agent", "qwen")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, ".qwen/settings.json: installed (3 matcher groups moved to hookexec-hooks.json; dispatcher for PreToolUse, PermissionRequest, Stop)")
	installed := s.read("project/.qwen/settings.json")
	assert.Contains(t, installed, "hook --agent qwen")
	assert.Contains(t, installed, `"timeout": 10`, "5 s plus the margin, in seconds")
	assert.Contains(t, installed, `"timeout": 7`, "2000 is Qwen Code's old milliseconds: 2 s plus the margin")
	assert.NotContains(t, installed, "rm -rf")

	again := s.run("install", "--agent", "qwen")
	require.Equal(t, 0, again.code, again.stderr)
	assert.Equal(t, installed, s.read("project/.qwen/settings.json"), "a second install changes nothing")

	hook := func(payload map[string]any) output {
		payload["session_id"] = "s1"
		payload["cwd"] = s.project
		payload["timestamp"] = "2026-11-24T06:00:00.000Z"
		b, _ := json.Marshal(payload)
		return s.runIn(string(b), "hook", "--agent", "qwen")
	}
	deny := hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": "rm -rf /"}})
	assert.Equal(t, 0, deny.code, deny.stderr)
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf here"}}`, deny.stdout)
	ok := hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": "ls"}})
	assert.Equal(t, output{code: 0}, ok, "no decision: exit 0 and nothing said")
	rewrite := hook(map[string]any{"hook_event_name": "PermissionRequest", "tool_name": "write_file", "tool_input": map[string]any{"file_path": "x.txt", "content": "hi"}})
	assert.Equal(t, 0, rewrite.code, rewrite.stderr)
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"file_path": "safe.txt"}}}}`, rewrite.stdout, "Qwen Code allows the call with updatedInput")
	stop := hook(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false})
	assert.Equal(t, 0, stop.code, stop.stderr)
	assert.JSONEq(t, `{"decision": "block", "reason": "tests not run"}`, stop.stdout)

	un := s.run("uninstall", "--agent", "qwen")
	require.Equal(t, 0, un.code, un.stderr)
	assert.Contains(t, un.stdout, "restored")
	assert.Equal(t, qwenProject, s.read("project/.qwen/settings.json"))
	entries, err := os.ReadDir(filepath.Join(s.project, ".qwen"))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only settings.json is left")
}
