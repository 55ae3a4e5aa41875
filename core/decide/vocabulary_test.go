package decide

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/event"
)

// Each agent's own reading of the same kinds of answers (sources: Gemini CLI hookRunner.ts
// and hookAggregator.ts, Codex output_parser.rs and events/pre_tool_use.rs, Qwen Code
// hookRunner.ts), checked live by tests/live/{gemini,codex,qwen}.
func TestVocabularies(t *testing.T) {
	for _, c := range []struct {
		name     string
		vocab    Vocabulary
		event    string
		code     int
		stdout   string
		stderr   string
		blocked  bool
		decision Decision
		reason   string
		err      string // substring of Verdict.Error; "" for none
		context  string
		message  string
		updated  string
		output   string // UpdatedToolOutput, JSON; "" for none
	}{
		{name: "gemini exit 3 text blocks", vocab: Gemini, event: "PreToolUse", code: 3, stderr: "no", blocked: true, decision: Deny, reason: "no"},
		{name: "gemini exit 2 reads stdout first", vocab: Gemini, event: "PreToolUse", code: 2, stdout: "out", stderr: "err", blocked: true, decision: Deny, reason: "out"},
		{name: "gemini exit 2 without text blocks", vocab: Gemini, event: "PreToolUse", code: 2, blocked: true, decision: Deny, reason: "blocked by hook (exit status 2)"},
		{name: "gemini exit 2 without text withholds an AfterTool result", vocab: Gemini, event: "PostToolUse", code: 2, reason: "blocked by hook (exit status 2)", output: `{"error":"blocked by hook (exit status 2)"}`},
		{name: "gemini exit 2 without text changes nothing where Gemini ignores flow", vocab: Gemini, event: "SessionStart", code: 2, err: "exit status 2"},
		{name: "gemini exit 3 without text is a failure, not a block", vocab: Gemini, event: "PreToolUse", code: 3, err: "exit status 3"},
		{name: "gemini exit 1 warns", vocab: Gemini, event: "PreToolUse", code: 1, stderr: "careful", message: "Warning: careful", err: "exit status 1"},
		{name: "gemini exit 0 text is a message", vocab: Gemini, event: "UserPromptSubmit", stdout: "hello", message: "hello"},
		{name: "gemini JSON on a failing exit decides", vocab: Gemini, event: "PreToolUse", code: 1, stdout: `{"decision":"deny","reason":"r"}`, blocked: true, decision: Deny, reason: "r", err: "exit status 1"},
		{name: "gemini JSON on stderr", vocab: Gemini, event: "PreToolUse", stderr: `{"decision":"block","reason":"e"}`, blocked: true, decision: Deny, reason: "e"},
		{name: "gemini stopReason is the block reason", vocab: Gemini, event: "PreToolUse", stdout: `{"continue":false,"stopReason":"halt","reason":"r"}`, blocked: true, decision: Deny, reason: "halt"},
		{name: "gemini tool_input rewrites", vocab: Gemini, event: "PreToolUse", stdout: `{"hookSpecificOutput":{"tool_input":{"command":"ls"}}}`, updated: `{"command":"ls"}`},
		{name: "gemini context escaped", vocab: Gemini, event: "PostToolUse", stdout: `{"hookSpecificOutput":{"additionalContext":"<x>"}}`, context: "&lt;x&gt;"},
		{name: "gemini PreCompress cannot block", vocab: Gemini, event: "PreCompact", stdout: `{"decision":"deny","reason":"r"}`},
		{name: "gemini AfterTool deny withholds the result", vocab: Gemini, event: "PostToolUse", stdout: `{"decision":"deny","reason":"hidden"}`, reason: "hidden", output: `{"error":"hidden"}`},
		{name: "gemini AfterTool exit 2 text withholds the result", vocab: Gemini, event: "PostToolUse", code: 2, stderr: "bad", reason: "bad", output: `{"error":"bad"}`},
		{name: "gemini BeforeTool deny keeps no tool output", vocab: Gemini, event: "PreToolUse", stdout: `{"decision":"deny","reason":"r"}`, blocked: true, decision: Deny, reason: "r"},
		{name: "gemini ask", vocab: Gemini, event: "PreToolUse", stdout: `{"decision":"ask","reason":"sure?"}`, decision: Ask, reason: "sure?"},
		{name: "codex ask fails", vocab: Codex, event: "PreToolUse", stdout: `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"x"}}`, err: "unsupported permissionDecision:ask"},
		{name: "codex allow without input fails", vocab: Codex, event: "PreToolUse", stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"}}`, err: "unsupported permissionDecision:allow"},
		{name: "codex allow with input", vocab: Codex, event: "PreToolUse", stdout: `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, updated: `{"command":"ls"}`},
		{name: "codex deny", vocab: Codex, event: "PreToolUse", stdout: `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":" no "}}`, blocked: true, decision: Deny, reason: "no"},
		{name: "codex deny without reason fails", vocab: Codex, event: "PreToolUse", stdout: `{"hookSpecificOutput":{"permissionDecision":"deny"}}`, err: "without a non-empty permissionDecisionReason"},
		{name: "codex approve fails", vocab: Codex, event: "PreToolUse", stdout: `{"decision":"approve"}`, err: "unsupported decision:approve"},
		{name: "codex continue false fails on PreToolUse", vocab: Codex, event: "PreToolUse", stdout: `{"continue":false}`, err: "unsupported continue:false"},
		{name: "codex exit 2 without stderr fails", vocab: Codex, event: "PreToolUse", code: 2, err: "did not write a blocking reason"},
		{name: "codex exit 2 blocks", vocab: Codex, event: "Stop", code: 2, stderr: "go on", blocked: true, decision: Deny, reason: "go on"},
		{name: "codex exit 1 fails", vocab: Codex, event: "PreToolUse", code: 1, stdout: `{"decision":"block","reason":"r"}`, err: "exited with code 1"},
		{name: "codex invalid JSON fails", vocab: Codex, event: "PreToolUse", stdout: `{"decision":`, err: "invalid pre-tool-use JSON"},
		{name: "codex block without reason fails", vocab: Codex, event: "UserPromptSubmit", stdout: `{"decision":"block"}`, err: "without a non-empty reason"},
		{name: "codex prompt text is context", vocab: Codex, event: "UserPromptSubmit", stdout: "ctx", context: "ctx"},
		{name: "codex post reason without decision fails", vocab: Codex, event: "PostToolUse", stdout: `{"reason":"r"}`, err: "reason without decision"},
		{name: "codex permission request deny", vocab: Codex, event: "PermissionRequest", stdout: `{"hookSpecificOutput":{"decision":{"behavior":"deny"}}}`, blocked: true, decision: Deny, reason: "PermissionRequest hook denied approval"},
		{name: "codex permission request interrupt fails", vocab: Codex, event: "PermissionRequest", stdout: `{"hookSpecificOutput":{"decision":{"behavior":"deny","interrupt":true}}}`, err: "unsupported interrupt:true"},
		{name: "qwen exit 2 JSON on stderr", vocab: Qwen, event: "PreToolUse", code: 2, stderr: `{"decision":"block","reason":"json"}`, blocked: true, decision: Deny, reason: "json"},
		{name: "qwen exit 3 warns", vocab: Qwen, event: "PreToolUse", code: 3, stderr: "careful", message: "Warning: careful", err: "exit status 3"},
		{name: "qwen text on a tool event is a message", vocab: Qwen, event: "PreToolUse", stdout: "hi", message: "hi"},
		{name: "qwen text on a prompt is context", vocab: Qwen, event: "UserPromptSubmit", stdout: "hi", context: "hi"},
		{name: "qwen ignores updatedInput on PreToolUse", vocab: Qwen, event: "PreToolUse", stdout: `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"x"}}}`, decision: Allow},
		{name: "claude exit 3 does not block", vocab: ClaudeCode, event: "PreToolUse", code: 3, stderr: "no", err: "exit status 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Read(Input{Event: event.Lookup(c.event), ExitCode: c.code, Stdout: []byte(c.stdout), Stderr: []byte(c.stderr), Vocabulary: c.vocab})
			require.Equal(t, c.blocked, v.Blocked, "blocked")
			require.Equal(t, c.decision, v.Decision, "decision")
			require.Equal(t, c.reason, v.Reason, "reason")
			if c.err == "" {
				require.Empty(t, v.Error)
			} else {
				require.Contains(t, v.Error, c.err)
			}
			require.Equal(t, c.context, v.AdditionalContext, "context")
			require.Equal(t, c.message, v.SystemMessage, "system message")
			if c.updated == "" {
				require.Nil(t, v.UpdatedInput)
			} else {
				require.JSONEq(t, c.updated, string(v.UpdatedInput))
			}
			if c.output == "" {
				require.Nil(t, v.UpdatedToolOutput)
			} else {
				require.JSONEq(t, c.output, string(v.UpdatedToolOutput))
			}
		})
	}
}

func TestCodexLimitKeepsHeadAndTail(t *testing.T) {
	s := "héllo " + string(make([]byte, 100)) + " wörld"
	out := codexLimit(s, 5)
	require.True(t, utf8.ValidString(out))
	require.Less(t, len(out), len(s))
	require.Contains(t, out, "tokens truncated")
	require.Equal(t, "short", codexLimit("short", 0))
}

// fuzzVocabulary reads arbitrary hook output in one agent's vocabulary: Read never panics,
// raw JSON it passes on is valid, and only events that can block are blocked.
func fuzzVocabulary(f *testing.F, vocab Vocabulary) {
	for _, s := range []string{"", `{"decision":"deny","reason":"x"}`, `{"hookSpecificOutput":{"tool_input":{"a":1},"permissionDecision":"allow","updatedInput":{}}}`,
		`"{\"decision\":\"block\"}"`, `{"continue":false}`, "text", `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":3}}}`, "{\"reason\":\"\xff\"}"} {
		f.Add([]byte(s), []byte(s), 2, uint8(0))
	}
	names := event.CanonicalNames()
	f.Fuzz(func(t *testing.T, stdout, stderr []byte, code int, ev uint8) {
		info := event.Lookup(names[int(ev)%len(names)])
		v := Read(Input{Event: info, ExitCode: code, Stdout: stdout, Stderr: stderr, Vocabulary: vocab})
		for _, raw := range [][]byte{v.Output, v.UpdatedInput, v.UpdatedToolOutput} {
			if raw != nil {
				require.True(t, json.Valid(raw), "%q", raw)
			}
		}
		if v.Blocked {
			require.True(t, info.CanBlock, "%s cannot block", info.Name)
		}
	})
}

// FuzzReadGemini, FuzzReadCodex, FuzzReadQwen: the three agents' output readers.
func FuzzReadGemini(f *testing.F) { fuzzVocabulary(f, Gemini) }

func FuzzReadCodex(f *testing.F) { fuzzVocabulary(f, Codex) }

func FuzzReadQwen(f *testing.F) { fuzzVocabulary(f, Qwen) }
