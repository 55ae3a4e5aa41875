package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A project's Claude Code settings with a guard, a rewrite and a Stop check, installed and
// then driven as Claude Code drives a hook: the payload on stdin, the answer read from the
// exit code, stdout and stderr.
const claudeProject = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0"}]},
      {"matcher": "Write", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"file_path\": \"safe.txt\"}}}'"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests not run\"}'"}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "echo 'export FROM_HOOK=yes' >> \"$CLAUDE_ENV_FILE\"; echo project notes"}]}]
  }
}
`

func TestInstallDispatchUninstall(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	settings := s.write("project/.claude/settings.json", claudeProject)
	out := s.run("install", "--agent", "claude")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, ".claude/settings.json: installed (4 matcher groups moved to hookexec-hooks.json; dispatcher for PreToolUse, Stop, SessionStart)")
	installed := s.read("project/.claude/settings.json")
	assert.Contains(t, installed, installMarker)
	assert.NotContains(t, installed, "rm -rf")

	st := s.run("status", "--json")
	require.Equal(t, 0, st.code, st.stderr)
	var rows []struct {
		Agent, Scope, Settings string
		Installed              bool
		Events                 []string
		Managed                int
	}
	require.NoError(t, json.Unmarshal([]byte(st.stdout), &rows))
	found := false
	for _, r := range rows {
		if r.Settings == settings {
			found = true
			assert.True(t, r.Installed)
			assert.Equal(t, 4, r.Managed)
			assert.Equal(t, []string{"PreToolUse", "Stop", "SessionStart"}, r.Events)
		}
	}
	assert.True(t, found, st.stdout)

	hook := func(payload map[string]any) output {
		payload["session_id"] = "s1"
		payload["cwd"] = s.project
		b, _ := json.Marshal(payload)
		return s.runIn(string(b), "hook", "--agent", "claude")
	}
	// exit 2 with the reason: Claude Code blocks the call and shows the reason to the model.
	deny := hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf /"}})
	assert.Equal(t, 0, deny.code, deny.stderr)
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf here"}}`, deny.stdout)
	ok := hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}})
	assert.Equal(t, output{code: 0}, ok, "no decision: exit 0 and nothing said, as a hook that exits 0 silently")
	rewrite := hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": "x.txt", "content": "hi"}})
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"file_path": "safe.txt"}}}`, rewrite.stdout, "Claude Code replaces the input with updatedInput")
	stop := hook(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false})
	assert.JSONEq(t, `{"decision": "block", "reason": "tests not run"}`, stop.stdout)

	envFile := filepath.Join(s.root, "claude-env")
	s.env = append(s.env, "CLAUDE_ENV_FILE="+envFile)
	start := hook(map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	assert.Equal(t, 0, start.code, start.stderr)
	assert.Equal(t, "project notes\n", start.stdout, "plain-text context is answered in plain text, which Claude Code labels as it does the hook's own")
	env, err := os.ReadFile(envFile)
	require.NoError(t, err)
	assert.Equal(t, "export FROM_HOOK=yes\n", string(env))

	bad := s.runIn("not json", "hook", "--agent", "claude")
	// A payload it cannot read fails closed (issue 25): exit 1 would let the tool run.
	assert.Equal(t, exitBlocked, bad.code, "a call whose hooks cannot run is blocked, never let through")
	assert.Contains(t, bad.stderr, "hookexec: the hooks of this call could not run: ")
	assert.Contains(t, bad.stderr, "blocked to be safe (the event cannot be told)")

	un := s.run("uninstall", "--agent", "claude")
	require.Equal(t, 0, un.code, un.stderr)
	assert.Contains(t, un.stdout, "restored")
	assert.Equal(t, claudeProject, s.read("project/.claude/settings.json"))
	entries, err := os.ReadDir(filepath.Join(s.project, ".claude"))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only settings.json is left")
}

// A project whose .claude links to the user's own directory cannot make install write there.
func TestInstallRefusesPlantedLink(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("home/.claude/settings.json", claudeProject)
	require.NoError(t, os.Symlink(filepath.Join(s.home, ".claude"), filepath.Join(s.project, ".claude")))
	out := s.run("install", "--agent", "claude")
	assert.Equal(t, exitFail, out.code)
	assert.Contains(t, out.stderr, "outside")
	assert.Equal(t, claudeProject, s.read("home/.claude/settings.json"))
	assert.False(t, strings.Contains(s.read("home/.claude/settings.json"), installMarker))
}

const installMarker = "hook --agent claude"
