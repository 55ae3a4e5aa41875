package native

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
)

// Qwen Code reads Claude Code's answers, with its own event names.
func TestQwenAnswer(t *testing.T) {
	t.Parallel()
	a, err := Lookup("qwen")
	require.NoError(t, err)
	deny := a.Answer(&engine.Result{Event: "PreToolUse", Decision: "deny", Blocked: true, Reason: "no rm", Continue: true})
	assert.Equal(t, 0, deny.ExitCode)
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}`, string(deny.Stdout))
	todo := a.Answer(&engine.Result{Event: "TaskCreated", Decision: "none", AdditionalContext: "ctx", Continue: true})
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "TodoCreated", "additionalContext": "ctx"}}`, string(todo.Stdout))
	stop := a.Answer(&engine.Result{Event: "Stop", Decision: "deny", Blocked: true, Reason: "run the tests", Continue: true})
	assert.JSONEq(t, `{"decision": "block", "reason": "run the tests"}`, string(stop.Stdout))
	assert.Equal(t, []string{"/p/.qwen/settings.json", "/p/.qwen/hookexec-hooks.json", "/h/.qwen/settings.json", "/h/.qwen/hookexec-hooks.json"}, a.Sources("/p", "/h"))
}

// A fire that says stop on Stop or SubagentStop is answered with no continue:false, which
// Qwen Code reads there as "go on" (live: stop_continue_false_goes_on); its own default
// stops, and the stop reason reaches the user as the system message. Elsewhere Qwen Code
// stops for continue:false, which is said as it is.
func TestQwenAnswerStop(t *testing.T) {
	t.Parallel()
	a, err := Lookup("qwen")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		r    engine.Result
		want string // "" is no output at all
	}{
		{"stop with a reason", engine.Result{Event: "Stop", Decision: "none", StopReason: "done here"}, `{"systemMessage": "done here"}`},
		{"stop outranks a block", engine.Result{Event: "Stop", Decision: "deny", Blocked: true, Reason: "go on", StopReason: "halt"}, `{"systemMessage": "halt"}`},
		{"both messages", engine.Result{Event: "SubagentStop", Decision: "none", SystemMessage: "note", StopReason: "halt"}, `{"systemMessage": "note\nhalt"}`},
		{"silent stop", engine.Result{Event: "SubagentStop", Decision: "none"}, ""},
		{"block without stop goes on", engine.Result{Event: "Stop", Decision: "deny", Blocked: true, Reason: "go on", Continue: true}, `{"decision": "block", "reason": "go on"}`},
		{"a todo block is decision block", engine.Result{Event: "TaskCompleted", Decision: "deny", Blocked: true, Reason: "tests first", Continue: true}, `{"decision": "block", "reason": "tests first"}`},
		{"PreToolUse says it", engine.Result{Event: "PreToolUse", Decision: "none", StopReason: "halt"}, `{"continue": false, "stopReason": "halt"}`},
	} {
		ans := a.Answer(&tc.r)
		assert.Equal(t, 0, ans.ExitCode, tc.name)
		assert.Empty(t, ans.Stderr, tc.name)
		if tc.want == "" {
			assert.Empty(t, ans.Stdout, tc.name)
			continue
		}
		assert.JSONEq(t, tc.want, string(ans.Stdout), tc.name)
	}
}

// A timeout Qwen Code reads as what was meant: seconds, and milliseconds from 1000 on.
func TestQwenTimeout(t *testing.T) {
	t.Parallel()
	a, err := Lookup("qwen")
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, a.TimeoutOf(30))
	assert.Equal(t, 5*time.Second, a.TimeoutOf(5000), "1000 or more is milliseconds")
	assert.Equal(t, int64(65), a.TimeoutValue(65*time.Second))
	assert.Equal(t, int64(999), a.TimeoutValue(999*time.Second))
	assert.Equal(t, int64(1_005_000), a.TimeoutValue(1005*time.Second), "1005 would read as 1.005 s: milliseconds")
	g, err := Lookup("gemini")
	require.NoError(t, err)
	assert.Equal(t, int64(7500), g.TimeoutValue(7500*time.Millisecond))
}
