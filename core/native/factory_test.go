package native

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
)

// Droid reads a PreToolUse deny as Claude Code's JSON; a PostToolUse or UserPromptSubmit
// block only as exit 2 (it reads no top-level decision there), with the rest of the answer
// still on stdout; a Stop block only with a reason.
func TestFactoryAnswer(t *testing.T) {
	t.Parallel()
	a, err := Lookup("factory")
	require.NoError(t, err)
	deny := a.Answer(&engine.Result{Event: "PreToolUse", Decision: "deny", Blocked: true, Reason: "no rm", Continue: true})
	assert.Equal(t, 0, deny.ExitCode)
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}`, string(deny.Stdout))
	post := a.Answer(&engine.Result{Event: "PostToolUse", Decision: "deny", Blocked: true, Reason: "check it", AdditionalContext: "ctx", Continue: true})
	assert.Equal(t, 2, post.ExitCode)
	assert.Equal(t, "check it\n", string(post.Stderr))
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ctx"}}`, string(post.Stdout))
	prompt := a.Answer(&engine.Result{Event: "UserPromptSubmit", Decision: "deny", Blocked: true, Continue: true})
	assert.Equal(t, 2, prompt.ExitCode)
	assert.Equal(t, "blocked by hook\n", string(prompt.Stderr))
	stop := a.Answer(&engine.Result{Event: "Stop", Decision: "deny", Blocked: true, Continue: true})
	assert.JSONEq(t, `{"decision": "block", "reason": "blocked by hook"}`, string(stop.Stdout))
	halt := a.Answer(&engine.Result{Event: "PostToolUse", Decision: "none", Continue: false, StopReason: "enough"})
	assert.Equal(t, 0, halt.ExitCode)
	assert.JSONEq(t, `{"continue": false, "stopReason": "enough"}`, string(halt.Stdout))
	assert.Equal(t, []string{"/p/.factory/hooks.json", "/p/.factory/hookexec-hooks.hooks.json", "/p/.factory/settings.json",
		"/p/.factory/hookexec-hooks.json", "/h/.factory/hooks.json", "/h/.factory/hookexec-hooks.hooks.json", "/h/.factory/settings.json",
		"/h/.factory/hookexec-hooks.json"}, a.Sources("/p", "/h"))
}
