package native

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
)

// Each fire outcome and the answer Claude Code acts on the same way as on the hooks' own.
func TestClaudeAnswer(t *testing.T) {
	t.Parallel()
	base := func(event string, f func(r *engine.Result)) *engine.Result {
		r := &engine.Result{Event: event, Decision: "none", Continue: true}
		f(r)
		return r
	}
	for _, tc := range []struct {
		name   string
		r      *engine.Result
		exit   int
		stdout string // JSON, compared as JSON; "" for none
		stderr string
	}{
		{"nothing matched", base("PreToolUse", func(*engine.Result) {}), 0, "", ""},
		{"PreToolUse deny", base("PreToolUse", func(r *engine.Result) { r.Blocked, r.Decision, r.Reason = true, "deny", "no rm" }), 0,
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}`, ""},
		{"PreToolUse ask with context", base("PreToolUse", func(r *engine.Result) { r.Decision, r.Reason, r.AdditionalContext = "ask", "sure?", "ctx" }), 0,
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?", "additionalContext": "ctx"}}`, ""},
		{"PreToolUse rewrite", base("PreToolUse", func(r *engine.Result) { r.Decision, r.UpdatedInput = "allow", json.RawMessage(`{"command":"ls -la"}`) }), 0,
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -la"}}}`, ""},
		{"PreModelSwitch ask (headless Claude Code refuses the switch)", base("PreModelSwitch", func(r *engine.Result) { r.Decision, r.Reason = "ask", "sure?" }), 0,
			`{"hookSpecificOutput": {"hookEventName": "PreModelSwitch", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}`, ""},
		{"PreModelSwitch deny", base("PreModelSwitch", func(r *engine.Result) { r.Blocked, r.Decision, r.Reason = true, "deny", "stay" }), 0,
			`{"hookSpecificOutput": {"hookEventName": "PreModelSwitch", "permissionDecision": "deny", "permissionDecisionReason": "stay"}}`, ""},
		{"PermissionRequest deny interrupt", base("PermissionRequest", func(r *engine.Result) { r.Blocked, r.Decision, r.Reason, r.Interrupt = true, "deny", "never", true }), 0,
			`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "never", "interrupt": true}}}`, ""},
		{"PermissionRequest allow with permissions", base("PermissionRequest", func(r *engine.Result) {
			r.Decision, r.UpdatedPermissions = "allow", json.RawMessage(`[{"type":"setMode","mode":"acceptEdits","destination":"session"}]`)
		}), 0, `{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": [{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}}`, ""},
		{"Stop block", base("Stop", func(r *engine.Result) { r.Blocked, r.Decision, r.Reason = true, "deny", "run the tests" }), 0,
			`{"decision": "block", "reason": "run the tests"}`, ""},
		{"PostToolUse feedback and new output", base("PostToolUse", func(r *engine.Result) {
			r.Blocked, r.Reason, r.UpdatedToolOutput = true, "lint failed", json.RawMessage(`"trimmed"`)
		}), 0, `{"decision": "block", "reason": "lint failed", "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "trimmed"}}`, ""},
		{"PostToolUse exit 2 feedback", base("PostToolUse", func(r *engine.Result) { r.Reason = "fix the lint" }), 0,
			`{"decision": "block", "reason": "fix the lint"}`, ""},
		{"PreCompact block has no JSON form: exit 2", base("PreCompact", func(r *engine.Result) { r.Blocked, r.Reason = true, "not now" }), 2, "", "not now\n"},
		{"continue false wins, with its message", base("Stop", func(r *engine.Result) {
			r.Continue, r.StopReason, r.SystemMessage, r.Blocked, r.Reason = false, "budget spent", "bye", true, "x"
		}), 0, `{"continue": false, "stopReason": "budget spent", "systemMessage": "bye", "decision": "block", "reason": "x"}`, ""},
		{"SessionStart context and title", base("SessionStart", func(r *engine.Result) { r.AdditionalContext, r.SessionTitle = "notes", "T" }), 0,
			`{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "notes", "sessionTitle": "T"}}`, ""},
		{"WorktreeCreate path", base("WorktreeCreate", func(r *engine.Result) { r.WorktreePath = "/w/tree" }), 0, "", ""},
		{"WorktreeCreate failure", base("WorktreeCreate", func(r *engine.Result) { r.Blocked, r.Reason = true, "disk full" }), 1, "", "disk full\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Lookup("claude")
			require.NoError(t, err)
			got := a.Answer(tc.r)
			assert.Equal(t, tc.exit, got.ExitCode)
			assert.Equal(t, tc.stderr, string(got.Stderr))
			switch {
			case tc.r.Event == "WorktreeCreate" && tc.r.WorktreePath != "":
				assert.Equal(t, tc.r.WorktreePath+"\n", string(got.Stdout))
			case tc.stdout == "":
				assert.Empty(t, got.Stdout)
			default:
				assert.JSONEq(t, tc.stdout, string(got.Stdout))
			}
		})
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	_, err := Lookup("nope")
	assert.ErrorContains(t, err, `unknown agent "nope" (known: auggie, claude, cline, codex, copilot, factory, gemini, kilo, opencode, qwen)`)
	a, err := Lookup("claude")
	require.NoError(t, err)
	assert.Equal(t, []string{"/p/.claude/settings.local.json", "/p/.claude/hookexec-hooks.local.json", "/p/.claude/settings.json",
		"/p/.claude/hookexec-hooks.json", "/h/.claude/settings.json", "/h/.claude/hookexec-hooks.json"}, a.Sources("/p", "/h"))
	assert.Equal(t, []string{"/p/.claude/settings.local.json", "/p/.claude/settings.json", "/h/.claude/settings.json"}, a.Settings("/p", "/h"))
}

// A SessionStart or UserPromptSubmit fire whose context is only its hooks' plain stdout is
// answered in plain text, which Claude Code labels "hook success" as it does the hooks' own
// (JSON would be labelled "additional context"); anything more needs JSON.
func TestClaudeAnswerPlainContext(t *testing.T) {
	t.Parallel()
	plain := engine.HookResult{Stdout: "branch: main\n"}
	jsonHook := engine.HookResult{Stdout: `{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "from json"}}`,
		Output: []byte(`{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "from json"}}`)}
	for _, tc := range []struct {
		name  string
		r     engine.Result
		plain bool
	}{
		{"SessionStart text", engine.Result{Event: "SessionStart", AdditionalContext: "branch: main", Hooks: []engine.HookResult{plain}}, true},
		{"UserPromptSubmit texts", engine.Result{Event: "UserPromptSubmit", AdditionalContext: "branch: main\nbranch: main",
			Hooks: []engine.HookResult{plain, plain}}, true},
		{"text and JSON", engine.Result{Event: "SessionStart", AdditionalContext: "branch: main\nfrom json", Hooks: []engine.HookResult{plain, jsonHook}}, false},
		{"JSON only", engine.Result{Event: "SessionStart", AdditionalContext: "from json", Hooks: []engine.HookResult{jsonHook}}, false},
		{"text and a system message", engine.Result{Event: "SessionStart", AdditionalContext: "branch: main", SystemMessage: "hi", Hooks: []engine.HookResult{plain}}, false},
		{"text and a title", engine.Result{Event: "UserPromptSubmit", AdditionalContext: "branch: main", SessionTitle: "T", Hooks: []engine.HookResult{plain}}, false},
		{"text on another event", engine.Result{Event: "PostToolUse", AdditionalContext: "branch: main", Hooks: []engine.HookResult{plain}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			r.Decision, r.Continue = "none", true
			ans := claudeAnswer(&r)
			require.Equal(t, 0, ans.ExitCode)
			if tc.plain {
				require.Equal(t, r.AdditionalContext+"\n", string(ans.Stdout))
				return
			}
			var out struct {
				HookSpecificOutput struct {
					AdditionalContext string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			require.NoError(t, json.Unmarshal(ans.Stdout, &out), string(ans.Stdout))
			require.Equal(t, r.AdditionalContext, out.HookSpecificOutput.AdditionalContext)
		})
	}
}
