package native

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
)

// Each fire outcome and the answer Gemini CLI's hookRunner acts on the same way as on the
// hooks' own.
func TestGeminiAnswer(t *testing.T) {
	t.Parallel()
	base := func(event string, f func(r *engine.Result)) *engine.Result {
		r := &engine.Result{Event: event, Decision: "none", Continue: true}
		f(r)
		return r
	}
	for _, tc := range []struct {
		name   string
		r      *engine.Result
		stdout string // JSON, compared as JSON; "" for none
	}{
		{"nothing matched", base("PreToolUse", func(*engine.Result) {}), ""},
		{"BeforeTool deny", base("PreToolUse", func(r *engine.Result) { r.Blocked, r.Decision, r.Reason = true, "deny", "no rm" }),
			`{"decision": "deny", "reason": "no rm"}`},
		{"BeforeTool rewrite", base("PreToolUse", func(r *engine.Result) { r.Decision, r.UpdatedInput = "allow", json.RawMessage(`{"command":"ls -la"}`) }),
			`{"decision": "allow", "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "ls -la"}}}`},
		{"AfterAgent block", base("Stop", func(r *engine.Result) { r.Blocked, r.Decision, r.Reason = true, "deny", "run the tests" }),
			`{"decision": "block", "reason": "run the tests"}`},
		{"AfterModel block is also a stop: Gemini CLI acts on a blocked response", base("AfterModel", func(r *engine.Result) { r.Blocked, r.Decision, r.Reason = true, "deny", "no" }),
			`{"continue": false, "stopReason": "no", "decision": "block", "reason": "no"}`},
		{"AfterTool withheld result is a block", base("PostToolUse", func(r *engine.Result) {
			r.Reason, r.UpdatedToolOutput = "withheld", json.RawMessage(`{"error":"withheld"}`)
		}), `{"decision": "block", "reason": "withheld"}`},
		{"AfterModel stop stays as it is", base("AfterModel", func(r *engine.Result) { r.Continue, r.StopReason = false, "halt" }),
			`{"continue": false, "stopReason": "halt"}`},
		{"BeforeAgent context", base("UserPromptSubmit", func(r *engine.Result) { r.AdditionalContext, r.SystemMessage = "notes", "hi" }),
			`{"systemMessage": "hi", "hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "notes"}}`},
		{"BeforeModel synthetic response, the later hook's wins", base("BeforeModel", func(r *engine.Result) {
			r.Blocked, r.Decision, r.Reason = true, "deny", "cached"
			r.Hooks = []engine.HookResult{
				{Output: json.RawMessage(`{"decision": "deny", "hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"parts": ["first"]}}]}}}`)},
				{Output: json.RawMessage(`{"hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"parts": ["second"]}}]}, "llm_request": null}}`)},
				{Output: json.RawMessage(`"not an object"`)},
			}
		}), `{"decision": "block", "reason": "cached", "hookSpecificOutput": {"hookEventName": "BeforeModel", "llm_response": {"candidates": [{"content": {"parts": ["second"]}}]}}}`},
		{"BeforeModel request rewrite", base("BeforeModel", func(r *engine.Result) {
			r.Hooks = []engine.HookResult{{Output: json.RawMessage(`{"hookSpecificOutput": {"llm_request": {"messages": [{"role": "user", "content": "x"}]}, "tool_input": {"a": 1}}}`)}}
		}), `{"hookSpecificOutput": {"hookEventName": "BeforeModel", "llm_request": {"messages": [{"role": "user", "content": "x"}]}}}`},
		{"AfterModel response rewrite", base("AfterModel", func(r *engine.Result) {
			r.Hooks = []engine.HookResult{{Output: json.RawMessage(`{"hookSpecificOutput": {"llm_response": {"candidates": []}, "llm_request": {"messages": []}}}`)}}
		}), `{"hookSpecificOutput": {"hookEventName": "AfterModel", "llm_response": {"candidates": []}}}`},
		{"BeforeToolSelection NONE wins", base("BeforeToolSelection", func(r *engine.Result) {
			r.Hooks = []engine.HookResult{
				{Output: json.RawMessage(`{"hookSpecificOutput": {"toolConfig": {"mode": "ANY", "allowedFunctionNames": ["glob"]}}}`)},
				{Output: json.RawMessage(`{"hookSpecificOutput": {"toolConfig": {"mode": "NONE"}}}`)},
			}
		}), `{"hookSpecificOutput": {"hookEventName": "BeforeToolSelection", "toolConfig": {"mode": "NONE", "allowedFunctionNames": []}}}`},
		{"BeforeToolSelection union, ANY", base("BeforeToolSelection", func(r *engine.Result) {
			r.Hooks = []engine.HookResult{
				{Output: json.RawMessage(`{"hookSpecificOutput": {"toolConfig": {"mode": "AUTO", "allowedFunctionNames": ["read_file", "glob"]}}}`)},
				{Output: json.RawMessage(`{"hookSpecificOutput": {"toolConfig": {"mode": "ANY", "allowedFunctionNames": ["glob", "ls"]}}}`)},
				{Output: json.RawMessage(`{"decision": "deny"}`)},
			}
		}), `{"hookSpecificOutput": {"hookEventName": "BeforeToolSelection", "toolConfig": {"mode": "ANY", "allowedFunctionNames": ["glob", "ls", "read_file"]}}}`},
		{"AfterAgent clearContext, AfterTool tail call", base("Stop", func(r *engine.Result) {
			r.Hooks = []engine.HookResult{{Output: json.RawMessage(`{"hookSpecificOutput": {"clearContext": true, "tailToolCallRequest": {"name": "x"}}}`)}}
		}), `{"hookSpecificOutput": {"hookEventName": "AfterAgent", "clearContext": true}}`},
		{"continue false", base("AfterTool", func(r *engine.Result) { r.Continue, r.StopReason = false, "budget spent" }),
			`{"continue": false, "stopReason": "budget spent"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Lookup("gemini")
			require.NoError(t, err)
			got := a.Answer(tc.r)
			assert.Equal(t, 0, got.ExitCode, "Gemini CLI reads every answer from exit 0 JSON")
			assert.Empty(t, got.Stderr)
			if tc.stdout == "" {
				assert.Empty(t, got.Stdout)
			} else {
				assert.JSONEq(t, tc.stdout, string(got.Stdout))
			}
		})
	}
	a, err := Lookup("gemini")
	require.NoError(t, err)
	assert.Equal(t, []string{"/p/.gemini/settings.json", "/p/.gemini/hookexec-hooks.json", "/h/.gemini/settings.json", "/h/.gemini/hookexec-hooks.json"}, a.Sources("/p", "/h"))
}
