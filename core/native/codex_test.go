package native

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
)

// Codex's strict parser accepts every answer the dispatcher gives: what it would reject
// (ask, a bare allow, continue:false on PreToolUse) is left out, a block keeps a reason.
func TestCodexAnswer(t *testing.T) {
	t.Parallel()
	a, err := Lookup("codex")
	require.NoError(t, err)
	r := func(event string, f func(r *engine.Result)) *engine.Result {
		x := &engine.Result{Event: event, Decision: "none", Continue: true}
		f(x)
		return x
	}
	for _, tc := range []struct {
		name   string
		r      *engine.Result
		exit   int
		stdout string
		stderr string
	}{
		{"deny", r("PreToolUse", func(r *engine.Result) { r.Blocked, r.Decision, r.Reason = true, "deny", "no rm" }), 0,
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}`, ""},
		{"deny without reason gets one", r("PreToolUse", func(r *engine.Result) { r.Blocked, r.Decision = true, "deny" }), 0,
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "blocked by hook"}}`, ""},
		{"rewrite", r("PreToolUse", func(r *engine.Result) { r.Decision, r.UpdatedInput = "allow", json.RawMessage(`{"command":"ls -la"}`) }), 0,
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -la"}}}`, ""},
		{"rewrite without a decision gets allow", r("PreToolUse", func(r *engine.Result) { r.UpdatedInput = json.RawMessage(`{"command":"ls"}`) }), 0,
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls"}}}`, ""},
		{"deny drops the new input", r("PreToolUse", func(r *engine.Result) {
			r.Blocked, r.Decision, r.Reason, r.UpdatedInput = true, "deny", "no", json.RawMessage(`{"command":"ls"}`)
		}), 0, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}`, ""},
		{"bare allow says nothing", r("PreToolUse", func(r *engine.Result) { r.Decision, r.Reason = "allow", "fine" }), 0, "", ""},
		{"ask says nothing", r("PreToolUse", func(r *engine.Result) { r.Decision, r.Reason = "ask", "sure?" }), 0, "", ""},
		{"continue false dropped on PreToolUse", r("PreToolUse", func(r *engine.Result) { r.Continue, r.StopReason = false, "stop" }), 0, "", ""},
		{"PermissionRequest allow without input", r("PermissionRequest", func(r *engine.Result) {
			r.Decision, r.UpdatedInput = "allow", json.RawMessage(`{"x":1}`)
		}), 0, `{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}`, ""},
		{"Stop block", r("Stop", func(r *engine.Result) { r.Blocked, r.Decision, r.Reason = true, "deny", "run the tests" }), 0,
			`{"decision": "block", "reason": "run the tests"}`, ""},
		{"PreCompact block: exit 2 with the reason", r("PreCompact", func(r *engine.Result) { r.Blocked = true }), 2, "", "blocked by hook\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := a.Answer(tc.r)
			assert.Equal(t, tc.exit, got.ExitCode)
			assert.Equal(t, tc.stderr, string(got.Stderr))
			if tc.stdout == "" {
				assert.Empty(t, got.Stdout)
			} else {
				assert.JSONEq(t, tc.stdout, string(got.Stdout))
			}
		})
	}
	assert.Equal(t, []string{"/p/.codex/hooks.json", "/p/.codex/hookexec-hooks.json", "/h/.codex/hooks.json", "/h/.codex/hookexec-hooks.json"}, a.Sources("/p", "/h"))
}
