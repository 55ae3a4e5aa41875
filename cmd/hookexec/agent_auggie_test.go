package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A project's auggie settings: an exit-2 guard on launch-process, a JSON deny on save-file,
// a PostToolUse hook whose exit 2 tells the model; timeouts in milliseconds.
const auggieProject = `{
  "model": "kept as it is",
  "hooks": {
    "PreToolUse": [
      {"matcher": "^(launch-process)$", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0", "timeout": 7000}]},
      {"matcher": "^(save-file)$", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"read only\"}}'"}]}
    ],
    "PostToolUse": [{"matcher": "launch-process", "hooks": [{"type": "command", "command": "echo 'look at the output' >&2; exit 2"}]}]
  }
}
`

// auggieCall is a payload as auggie 0.36.0 sends it (no cwd: the workspace roots).
func auggieCall(project, conversation, event, tool, command string) string {
	b, _ := json.Marshal(map[string]any{"hook_event_name": event, "conversation_id": conversation, "workspace_roots": []string{project},
		"tool_name": tool, "tool_input": map[string]any{"command": command}, "is_mcp_tool": false, "tool_error": nil})
	return string(b)
}

func TestAuggieInstallDispatchUninstall(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.augment/settings.json", auggieProject)
	out := s.run("install", "--agent", "auggie")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, ".augment/settings.json: installed (3 matcher groups moved to hookexec-hooks.json; dispatcher for PreToolUse, PostToolUse)")
	installed := s.read("project/.augment/settings.json")
	assert.Contains(t, installed, "hook --agent auggie")
	assert.Contains(t, installed, `"timeout": 65000`, "milliseconds: 60 s (auggie's default) and the margin")
	assert.Contains(t, installed, `"model": "kept as it is"`)
	assert.NotContains(t, installed, "rm -rf")

	hook := func(payload string) output {
		s.env = []string{"AUGMENT_PROJECT_DIR=" + s.project}
		return s.runIn(payload, "hook", "--agent", "auggie")
	}
	exit2 := hook(auggieCall(s.project, "c1", "PreToolUse", "launch-process", "rm -rf /"))
	assert.Equal(t, output{code: 2, stderr: "no rm -rf here\n"}, exit2, "auggie words an exit-2 block its own way: exit 2 it is")
	deny := hook(auggieCall(s.project, "c1", "PreToolUse", "save-file", "x"))
	assert.Equal(t, 0, deny.code, deny.stderr)
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "read only"}}`, deny.stdout)
	assert.Equal(t, output{}, hook(auggieCall(s.project, "c1", "PreToolUse", "launch-process", "ls")))
	post := hook(auggieCall(s.project, "c1", "PostToolUse", "launch-process", "ls"))
	assert.Equal(t, 2, post.code, "a PostToolUse block reaches the model only as exit 2's stderr")
	assert.Equal(t, "look at the output\n", post.stderr)

	un := s.run("uninstall", "--agent", "auggie")
	require.Equal(t, 0, un.code, un.stderr)
	assert.Contains(t, un.stdout, "restored")
	assert.Equal(t, auggieProject, s.read("project/.augment/settings.json"))
	entries, err := os.ReadDir(filepath.Join(s.project, ".augment"))
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

func TestAuggieDaemonWarmAndNoMatch(t *testing.T) {
	t.Parallel()
	s := installedDaemonScenario(t, "auggie", map[string]string{"project/.augment/settings.json": auggieProject})
	s.env = append(s.env, "AUGMENT_PROJECT_DIR="+s.project)
	warmAndNoMatch(t, s, []string{"--agent", "auggie"}, func(session string, matching bool) string {
		if matching {
			return auggieCall(s.project, session, "PreToolUse", "launch-process", "rm -rf /")
		}
		return auggieCall(s.project, session, "PreToolUse", "view", "README.md")
	}, "no rm -rf here")
}
