package adapt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/vocab"
)

// script writes an executable hook into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755))
	return p
}

func run(t *testing.T, from, to, cmd, payload string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	ans, err := Run(Request{From: from, To: to, Command: cmd, Payload: []byte(payload), Project: dir, Home: dir})
	require.NoError(t, err)
	return ans.ExitCode, string(ans.Stdout), string(ans.Stderr)
}

// A Claude Code guard answering with permissionDecision deny, which Gemini CLI does not
// read, blocks Gemini's call through adapt; the guard sees Claude Code's names.
func TestClaudeGuardBlocksInGemini(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.json")
	guard := script(t, dir, "guard.sh", `tee `+seen+` | grep -q secret && echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"secrets stay put"}}'
exit 0
`)
	payload := `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"cat secret"},"session_id":"s","cwd":"` + dir + `"}`
	code, out, _ := run(t, vocab.Claude, vocab.Gemini, guard, payload)
	require.Equal(t, 0, code)
	var ans map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &ans), out)
	require.Equal(t, "deny", ans["decision"])
	require.Equal(t, "secrets stay put", ans["reason"])
	var got map[string]any
	raw, err := os.ReadFile(seen)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Equal(t, "PreToolUse", got["hook_event_name"])
	require.Equal(t, "Bash", got["tool_name"])

	code, out, _ = run(t, vocab.Claude, vocab.Gemini, guard, `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"cwd":"`+dir+`"}`)
	require.Equal(t, 0, code)
	require.Empty(t, out, "an allowed call has no answer")
}

// A rewrite Qwen Code cannot apply (it ignores updatedInput) is a block, never a silent
// allow of the original input; Gemini CLI applies it as its tool_input.
func TestRewriteTheAgentCannotApplyBlocks(t *testing.T) {
	rewrite := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -a"}}}'`
	code, out, _ := run(t, vocab.Claude, vocab.Qwen, rewrite, `{"hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`)
	require.Equal(t, 0, code)
	require.Contains(t, out, `"permissionDecision":"deny"`)
	require.Contains(t, out, "Qwen Code cannot apply")
	require.NotContains(t, out, "ls -a")

	code, out, _ = run(t, vocab.Claude, vocab.Gemini, rewrite, `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`)
	require.Equal(t, 0, code)
	require.Contains(t, out, `"tool_input":{"command":"ls -a"}`)
	require.NotContains(t, out, "deny")
}

// Codex fails an "ask" open; through adapt it is a block with the hook's reason.
func TestAskCodexCannotPutIsABlock(t *testing.T) {
	ask := `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`
	code, out, stderr := run(t, vocab.Claude, vocab.Codex, ask, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	require.Contains(t, out+stderr, "cannot ask for")
	require.Contains(t, out+stderr, "sure?")
	if code == 0 {
		require.Contains(t, out, `"permissionDecision":"deny"`)
	} else {
		require.Equal(t, 2, code)
	}
}

// A Cursor hook (its payload, its permission answer) runs for Claude Code: Claude Code's
// Bash call reaches it as beforeShellExecution with Cursor's fields, and its deny blocks.
func TestCursorHookAnswersClaude(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.json")
	hook := script(t, dir, "cursor.sh", `tee `+seen+` >/dev/null; echo '{"permission":"deny","user_message":"no","agent_message":"not here"}'
`)
	code, out, stderr := run(t, vocab.Cursor, vocab.Claude, hook, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf x"},"session_id":"s","cwd":"`+dir+`"}`)
	require.Contains(t, out+stderr, "not here")
	if code == 0 {
		require.Contains(t, out, `"permissionDecision":"deny"`)
	} else {
		require.Equal(t, 2, code)
	}
	raw, err := os.ReadFile(seen)
	require.NoError(t, err)
	require.Contains(t, string(raw), `"hook_event_name":"beforeShellExecution"`)
	require.Contains(t, string(raw), `"command":"rm -rf x"`)
}

func TestBadRequestsFail(t *testing.T) {
	for _, r := range []Request{
		{From: "nope", To: vocab.Gemini, Command: "true", Payload: []byte(`{"hook_event_name":"BeforeTool"}`)},
		{From: vocab.Claude, To: vocab.Cursor, Command: "true", Payload: []byte(`{"hook_event_name":"BeforeTool"}`)},
		{From: vocab.Claude, To: vocab.Gemini, Command: "", Payload: []byte(`{"hook_event_name":"BeforeTool"}`)},
		{From: vocab.Claude, To: vocab.Gemini, Command: "true", Payload: []byte(`[1]`)},
		{From: vocab.Claude, To: vocab.Gemini, Command: "true", Payload: []byte(`{"hook_event_name":"NoSuchEvent"}`)},
		{From: vocab.Windsurf, To: vocab.Claude, Command: "true", Payload: []byte(`{"hook_event_name":"PreToolUse","tool_name":"Grep"}`)},
	} {
		_, err := Run(r)
		require.Error(t, err, "%+v", r)
	}
}

// Cline's payload (cline 3.0.65, tests/live/cline) in canonical words: run_commands is Bash
// with the commands one per line, editor an Edit or a Write.
func TestReadCline(t *testing.T) {
	c, err := read("cline", "", []byte(`{"hookName":"tool_call","taskId":"conv_1","workspaceRoots":["/p"],
		"tool_call":{"id":"call_0_0","name":"run_commands","input":{"commands":["ls","pwd"]}},
		"preToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"ls\",\"pwd\"]"}}}`))
	require.NoError(t, err)
	require.Equal(t, "PreToolUse", c.event)
	require.Equal(t, "Bash", c.tool)
	require.Equal(t, "/p", c.cwd)
	var p map[string]any
	require.NoError(t, json.Unmarshal(c.payload, &p))
	require.Equal(t, "ls\npwd", p["tool_input"].(map[string]any)["command"])
	require.Equal(t, "conv_1", p["session_id"])
	require.Equal(t, "call_0_0", p["tool_use_id"])
	require.Nil(t, p["preToolUse"])

	c, err = read("cline", "", []byte(`{"hookName":"tool_result","taskId":"t","workspaceRoots":["/p"],
		"tool_result":{"id":"c","name":"editor","input":{"path":"/p/a","old_text":"x","new_text":"y"},"output":"ok"}}`))
	require.NoError(t, err)
	require.Equal(t, "PostToolUse", c.event)
	require.Equal(t, "Edit", c.tool)

	_, err = read("cline", "", []byte(`{"hookName":"what"}`))
	require.Error(t, err, "an unknown hookName is an error, not a guess")
}

// What Qwen Code 0.24.4 would read otherwise through adapt: a Claude Code Stop hook's
// continue:false (Qwen Code goes on for it) is said as no continue at all, so Qwen Code
// stops, with the stop reason for the user; a TaskCompleted hook's exit 2 (Qwen Code lets
// the todo through on a deny) is said as decision block; an exit 2 without stderr still
// blocks the call, with a JSON deny Qwen Code obeys.
func TestQwenReadsItsOwnWay(t *testing.T) {
	code, out, _ := run(t, vocab.Claude, vocab.Qwen, `echo '{"continue": false, "stopReason": "all done"}'`, `{"hook_event_name":"Stop","stop_hook_active":false}`)
	require.Equal(t, 0, code)
	require.JSONEq(t, `{"systemMessage": "all done"}`, out)

	code, out, _ = run(t, vocab.Claude, vocab.Qwen, `echo 'tests first' >&2; exit 2`, `{"hook_event_name":"TodoCompleted","todo_id":"t1"}`)
	require.Equal(t, 0, code)
	require.JSONEq(t, `{"decision": "block", "reason": "tests first"}`, out)

	code, out, _ = run(t, vocab.Qwen, vocab.Qwen, `exit 2`, `{"hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`)
	require.Equal(t, 0, code)
	require.Contains(t, out, `"permissionDecision":"deny"`)
}
