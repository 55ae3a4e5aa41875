package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A project's Codex hooks.json whose hooks answer Codex's way, beside a config.toml with
// its own [hooks] table, installed and then driven as Codex drives a hook.
const codexProject = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0", "timeout": 5}]},
      {"matcher": "apply_patch", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"input\": \"safe\"}}}'", "timeout": 5}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests not run\"}'", "timeout": 5}]}]
  }
}
`

const codexTOML = "[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = \"echo native\"\n"

func TestCodexInstallDispatchUninstall(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.codex/hooks.json", codexProject)
	s.write("project/.codex/config.toml", codexTOML)
	out := s.run("install", "--agent", "codex")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, ".codex/hooks.json: installed (3 matcher groups moved to hookexec-hooks.json; dispatcher for PreToolUse, Stop)")
	assert.Contains(t, out.stdout, ".codex/config.toml: not moved: its [hooks] table stays with the agent (install does not rewrite TOML)")
	assert.Equal(t, codexTOML, s.read("project/.codex/config.toml"))
	installed := s.read("project/.codex/hooks.json")
	assert.Contains(t, installed, "hook --agent codex")
	assert.Contains(t, installed, `"timeout": 10`)
	assert.NotContains(t, installed, "rm -rf")

	again := s.run("install", "--agent", "codex")
	require.Equal(t, 0, again.code, again.stderr)
	assert.Equal(t, installed, s.read("project/.codex/hooks.json"), "a second install changes nothing")

	hook := func(payload map[string]any) output {
		payload["session_id"] = "s1"
		payload["cwd"] = s.project
		payload["transcript_path"] = nil
		payload["model"] = "gpt-5-codex"
		b, _ := json.Marshal(payload)
		return s.runIn(string(b), "hook", "--agent", "codex")
	}
	deny := hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "c1", "tool_input": map[string]any{"command": "rm -rf /"}})
	assert.Equal(t, 0, deny.code, deny.stderr)
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf here"}}`, deny.stdout)
	ok := hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "c2", "tool_input": map[string]any{"command": "ls"}})
	assert.Equal(t, output{code: 0}, ok, "no decision: exit 0 and nothing said")
	rewrite := hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_use_id": "c3", "tool_input": map[string]any{"input": "x"}})
	assert.Equal(t, 0, rewrite.code, rewrite.stderr)
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"input": "safe"}}}`, rewrite.stdout)
	stop := hook(map[string]any{"hook_event_name": "Stop", "turn_id": "t1", "stop_hook_active": false, "last_assistant_message": "done"})
	assert.Equal(t, 0, stop.code, stop.stderr)
	assert.JSONEq(t, `{"decision": "block", "reason": "tests not run"}`, stop.stdout)

	un := s.run("uninstall", "--agent", "codex")
	require.Equal(t, 0, un.code, un.stderr)
	assert.Contains(t, un.stdout, "restored")
	assert.Equal(t, codexProject, s.read("project/.codex/hooks.json"))
	entries, err := os.ReadDir(filepath.Join(s.project, ".codex"))
	require.NoError(t, err)
	assert.Len(t, entries, 2, "only hooks.json and config.toml are left")
}
