package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A project's Gemini CLI settings whose hooks answer Gemini's way (exit 2 with the reason,
// JSON with hookSpecificOutput.tool_input), installed and then driven as Gemini CLI drives
// a hook.
const geminiProject = `{
  "hooks": {
    "disabled": ["nothing-yet"],
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0", "timeout": 5000}]},
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "echo '{\"decision\": \"allow\", \"hookSpecificOutput\": {\"tool_input\": {\"file_path\": \"safe.txt\"}}}'"}]}
    ],
    "AfterAgent": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests not run\"}'"}]}]
  }
}
`

func TestGeminiInstallDispatchUninstall(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.gemini/settings.json", geminiProject)
	out := s.run("install", "--agent", "gemini")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, ".gemini/settings.json: installed (3 matcher groups moved to hookexec-hooks.json; dispatcher for BeforeTool, AfterAgent)")
	installed := s.read("project/.gemini/settings.json")
	assert.Contains(t, installed, "hook --agent gemini")
	assert.Contains(t, installed, `"timeout": 65000`, "Gemini CLI's default 60 s (the write_file hook has none) plus the margin, in milliseconds")
	assert.Contains(t, installed, "nothing-yet")
	assert.NotContains(t, installed, "rm -rf")

	again := s.run("install", "--agent", "gemini")
	require.Equal(t, 0, again.code, again.stderr)
	assert.Equal(t, installed, s.read("project/.gemini/settings.json"), "a second install changes nothing")

	hook := func(payload map[string]any) output {
		payload["session_id"] = "s1"
		payload["cwd"] = s.project
		payload["timestamp"] = "2026-11-24T06:00:00.000Z"
		b, _ := json.Marshal(payload)
		return s.runIn(string(b), "hook", "--agent", "gemini")
	}
	deny := hook(map[string]any{"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": "rm -rf /"}})
	assert.Equal(t, 0, deny.code, deny.stderr)
	assert.JSONEq(t, `{"decision": "deny", "reason": "no rm -rf here"}`, deny.stdout, "Gemini CLI blocks the tool and gives the model the reason")
	ok := hook(map[string]any{"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": "ls"}})
	assert.Equal(t, output{code: 0}, ok, "no decision: exit 0 and nothing said")
	rewrite := hook(map[string]any{"hook_event_name": "BeforeTool", "tool_name": "write_file", "tool_input": map[string]any{"file_path": "x.txt", "content": "hi"}})
	assert.Equal(t, 0, rewrite.code, rewrite.stderr)
	assert.JSONEq(t, `{"decision": "allow", "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"file_path": "safe.txt"}}}`, rewrite.stdout, "Gemini CLI replaces the input with tool_input")
	stop := hook(map[string]any{"hook_event_name": "AfterAgent", "prompt": "p", "prompt_response": "r", "stop_hook_active": false})
	assert.Equal(t, 0, stop.code, stop.stderr)
	assert.JSONEq(t, `{"decision": "block", "reason": "tests not run"}`, stop.stdout)

	un := s.run("uninstall", "--agent", "gemini")
	require.Equal(t, 0, un.code, un.stderr)
	assert.Contains(t, un.stdout, "restored")
	assert.Equal(t, geminiProject, s.read("project/.gemini/settings.json"))
	entries, err := os.ReadDir(filepath.Join(s.project, ".gemini"))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only settings.json is left")
}
