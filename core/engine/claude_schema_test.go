package engine

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// Claude Code 2.1.330 reads a hook's JSON through its output schema (the live legacy_*
// vectors of tests/live/claude show each case with the binary): a top-level decision other
// than "approve" or "block", or a field of the wrong type, makes the whole output a hook
// error (nothing in it counts, exit 2 still blocks with stderr); fields outside the schema
// are ignored; a reason counts only beside a decision; and on exit 2 the reason is the
// JSON's only when the JSON itself blocks. continue:false is ignored on the events where
// the binary went on (legacy_continue_false_*).
func TestClaudeReadsOutputThroughItsSchema(t *testing.T) {
	tests := []struct {
		name     string
		event    string
		stdout   string
		stderr   string
		exit     int
		decision string
		blocked  bool
		reason   string
		cont     bool
		message  string
		hookErr  bool
	}{
		{name: "decision ask is invalid, the tool runs", event: "PreToolUse", stdout: `{"decision":"ask","reason":"sure?"}`, decision: "none", cont: true, hookErr: true},
		{name: "decision allow is invalid", event: "PreToolUse", stdout: `{"decision":"allow","reason":"ok"}`, decision: "none", cont: true, hookErr: true},
		{name: "decision deny is invalid", event: "PreToolUse", stdout: `{"decision":"deny","reason":"no"}`, decision: "none", cont: true, hookErr: true},
		{name: "an unknown decision is invalid", event: "Stop", stdout: `{"decision":"maybe"}`, decision: "none", cont: true, hookErr: true},
		{name: "an invalid output shows no system message", event: "UserPromptSubmit", stdout: `{"decision":"deny","systemMessage":"hi"}`, decision: "none", cont: true, hookErr: true},
		{name: "continue must be a boolean", event: "UserPromptSubmit", stdout: `{"continue":"false"}`, decision: "none", cont: true, hookErr: true},
		{name: "reason must be a string", event: "PreToolUse", stdout: `{"decision":"block","reason":7}`, decision: "none", cont: true, hookErr: true},
		{name: "block blocks", event: "PreToolUse", stdout: `{"decision":"block","reason":"no"}`, decision: "deny", blocked: true, reason: "no", cont: true},
		{name: "approve allows", event: "PreToolUse", stdout: `{"decision":"approve","reason":"fine"}`, decision: "allow", reason: "fine", cont: true},
		{name: "a reason alone says nothing", event: "PostToolUse", stdout: `{"reason":"lint"}`, decision: "none", cont: true},
		{name: "a top-level permissionDecision is ignored", event: "PreToolUse", stdout: `{"permissionDecision":"deny","permissionDecisionReason":"flat"}`, decision: "none", cont: true},
		{name: "a top-level updatedInput is ignored", event: "PreToolUse", stdout: `{"decision":"approve","updatedInput":{"command":"rm -rf /"}}`, decision: "allow", cont: true},
		{name: "exit 2 with an invalid JSON blocks with stderr", event: "PreToolUse", exit: 2, stdout: `{"decision":"deny","reason":"json"}`, stderr: "from stderr", decision: "deny", blocked: true, reason: "from stderr", cont: true},
		{name: "exit 2 with a JSON that does not block takes stderr", event: "PreToolUse", exit: 2, stdout: `{"reason":"json","systemMessage":"shown"}`, stderr: "from stderr", decision: "deny", blocked: true, reason: "from stderr", cont: true, message: "shown"},
		{name: "exit 2 with an approve takes stderr", event: "PreToolUse", exit: 2, stdout: `{"decision":"approve","reason":"json"}`, stderr: "from stderr", decision: "deny", blocked: true, reason: "from stderr", cont: true},
		{name: "exit 2 with a permissionDecisionReason but no decision takes stderr", event: "PreToolUse", exit: 2, stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecisionReason":"json"}}`, stderr: "from stderr", decision: "deny", blocked: true, reason: "from stderr", cont: true},
		{name: "exit 2 with continue false on UserPromptSubmit takes stderr", event: "UserPromptSubmit", exit: 2, stdout: `{"continue":false,"stopReason":"json"}`, stderr: "from stderr", decision: "deny", blocked: true, reason: "from stderr"},
		{name: "continue false on SessionStart goes on", event: "SessionStart", stdout: `{"continue":false,"stopReason":"halt"}`, decision: "none", cont: true},
		{name: "continue false on PreCompact does not block it", event: "PreCompact", stdout: `{"continue":false,"stopReason":"halt"}`, decision: "none", cont: true},
		{name: "continue false on PermissionRequest does not deny", event: "PermissionRequest", stdout: `{"continue":false,"stopReason":"halt"}`, decision: "none", cont: true},
		{name: "continue false on ConfigChange does not block it", event: "ConfigChange", stdout: `{"continue":false,"stopReason":"halt"}`, decision: "none", cont: true},
		{name: "continue false on UserPromptSubmit stops", event: "UserPromptSubmit", stdout: `{"continue":false,"stopReason":"halt"}`, decision: "deny", blocked: true, reason: "halt"},
		{name: "exit 2 with a JSON block takes the JSON's reason", event: "PreToolUse", exit: 2, stdout: `{"decision":"block","reason":"json"}`, stderr: "from stderr", decision: "deny", blocked: true, reason: "json", cont: true},
		{name: "exit 2 with a JSON deny takes the JSON's reason", event: "PreToolUse", exit: 2, stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json"}}`, stderr: "from stderr", decision: "deny", blocked: true, reason: "json", cont: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := fmt.Sprintf("printf '%%s' '%s'; printf '%%s' '%s' >&2; exit %d", tt.stdout, tt.stderr, tt.exit)
			settings, err := json.Marshal(map[string]any{"hooks": map[string]any{tt.event: []any{
				map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}}})
			require.NoError(t, err)
			e, _, _ := openProfile(t, "claude", func(project, home string) {
				writeFile(t, project, ".claude/settings.json", string(settings))
			})
			r := fireT(t, e, tt.event, `{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1", "prompt": "go"}`)
			require.Equal(t, tt.decision, r.Decision, r.JSON())
			require.Equal(t, tt.blocked, r.Blocked, r.JSON())
			require.Equal(t, tt.reason, r.Reason, r.JSON())
			require.Equal(t, tt.cont, r.Continue, r.JSON())
			require.Equal(t, tt.message, r.SystemMessage, r.JSON())
			require.Nil(t, r.UpdatedInput, "no input rewrite: %s", r.JSON())
			require.Len(t, r.Hooks, 1)
			require.Equal(t, tt.hookErr, r.Hooks[0].Error != "", r.JSON())
		})
	}
}
