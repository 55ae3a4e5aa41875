package dialect

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
)

// TestAuggieAnswer: only PreToolUse and PostToolUse answers count, read as auggie 0.36.0
// reads them (tests/live/auggie vectors).
func TestAuggieAnswer(t *testing.T) {
	for _, c := range []struct {
		name, event, stdout string
		exit, code          int
		want                string // "" for no answer
	}{
		{"deny", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, 0, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{"deny without hookEventName fails the schema", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"deny"}}`, 0, 0, ""},
		{"ask runs", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`, 0, 0, ""},
		{"allow runs", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, 0, 0, ""},
		{"updatedInput alone", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}`, 0, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}`},
		{"continue false blocks the call", "PreToolUse", `{"continue":false,"stopReason":"halt"}`, 0, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Blocked by hook"}}`},
		{"top-level decision not read", "PreToolUse", `{"decision":"block","reason":"r"}`, 0, 0, ""},
		{"invalid decision is plain text", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"block"}}`, 0, 0, ""},
		{"deny on exit 1 not read", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, 1, 1, ""},
		{"exit 2 blocks whatever the JSON", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, 2, 2, ""},
		{"exit 3 is a failure", "PreToolUse", ``, 3, 1, ""},
		{"post context", "PostToolUse", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c"}}`, 0, 0,
			`{"hookSpecificOutput":{"additionalContext":"c","hookEventName":"PostToolUse"}}`},
		{"post top-level context", "PostToolUse", `{"additionalContext":"top"}`, 0, 0,
			`{"hookSpecificOutput":{"additionalContext":"top","hookEventName":"PostToolUse"}}`},
		{"post hookSpecificOutput context replaces the top-level one", "PostToolUse",
			`{"additionalContext":"top","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c"}}`, 0, 0,
			`{"hookSpecificOutput":{"additionalContext":"c","hookEventName":"PostToolUse"}}`},
		{"post block reason dropped", "PostToolUse", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","decision":"block","reason":"r"}}`, 0, 0, ""},
		{"post exit 2 feeds stderr back", "PostToolUse", ``, 2, 2, ""},
		{"prompt exit 2 does not block", "UserPromptSubmit", ``, 2, 1, ""},
		{"stop block ignored", "Stop", `{"decision":"block","reason":"go on"}`, 0, 0, ""},
		{"session start context ignored", "SessionStart", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c"}}`, 0, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := auggieAnswer(c.event, c.exit, []byte(c.stdout))
			require.Equal(t, c.code, code)
			if c.want == "" {
				require.Empty(t, strings.TrimSpace(string(out)), "%s", out)
				return
			}
			require.JSONEq(t, c.want, string(out))
		})
	}
}

// TestAuggieStdin: a Claude Code payload reaches an auggie hook in auggie's shape.
func TestAuggieStdin(t *testing.T) {
	v := fastjson.MustParse(`{"session_id":"s1","cwd":"/p","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	var got map[string]any
	require.NoError(t, json.Unmarshal(auggieStdin(Fire{Event: "PreToolUse", Canonical: "PreToolUse", Payload: v, Frame: payload.Frame{}}), &got))
	require.Equal(t, map[string]any{"hook_event_name": "PreToolUse", "conversation_id": "s1", "workspace_roots": []any{"/p"},
		"tool_name": "launch-process", "tool_input": map[string]any{"command": "ls"}, "tool_output": "[undefined]",
		"tool_error": nil, "is_mcp_tool": false}, got)
	v = fastjson.MustParse(`{"session_id":"s1","cwd":"/p","prompt":"hi"}`)
	got = nil
	require.NoError(t, json.Unmarshal(auggieStdin(Fire{Event: "UserPromptSubmit", Canonical: "UserPromptSubmit", Payload: v}), &got))
	require.Equal(t, "PromptSubmit", got["hook_event_name"])
	require.Equal(t, "hi", got["user_prompt"])
}

// TestAuggieFiles: the events auggie drops are dropped, PromptSubmit is UserPromptSubmit,
// timeouts are milliseconds.
func TestAuggieFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".augment", "settings.json")
	f := auggieFile(t, path, `{"hooks":{
		"PromptSubmit":[{"hooks":[{"type":"command","command":"p","timeout":1500}]}],
		"UserPromptSubmit":[{"hooks":[{"type":"command","command":"u"}]}],
		"PreToolUse":[{"matcher":"launch-process","hooks":[{"type":"command","command":"g"},{"type":"prompt","prompt":"x"}]}],
		"PostToolUse":[{"hooks":[{"type":"command","command":"post"}]}]}}`)
	var got []string
	for _, h := range f.Hooks {
		got = append(got, h.Event+":"+h.Command+":"+h.Timeout.String())
	}
	require.ElementsMatch(t, []string{"UserPromptSubmit:p:1.5s", "PostToolUse:post:0s"}, got)
	require.Len(t, f.Warnings, 2, "%v", f.Warnings)
	require.Equal(t, Auggie, Detect(path, fastjson.MustParse(`{"hooks":{}}`)))
}

func auggieFile(t *testing.T, path, text string) *File {
	t.Helper()
	f, err := Read(path, []byte(text), Auggie)
	require.NoError(t, err)
	return f
}
