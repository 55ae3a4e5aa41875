package adapt

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/vocab"
)

// preToolPayload is a shell tool call as each target agent sends it before the tool runs,
// with the event to name for payloads that do not (Copilot CLI's camelCase ones).
func preToolPayload(to, dir string) (payload, event string) {
	switch to {
	case vocab.Gemini:
		return `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"cwd":"` + dir + `"}`, ""
	case vocab.Cursor:
		return `{"hook_event_name":"beforeShellExecution","command":"ls","cwd":"` + dir + `","workspace_roots":["` + dir + `"]}`, ""
	case vocab.Copilot:
		return `{"timestamp":1704614600000,"cwd":"` + dir + `","toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}`, "preToolUse"
	case vocab.Windsurf:
		return `{"agent_action_name":"pre_run_command","tool_info":{"command_line":"ls","cwd":"` + dir + `"}}`, ""
	case vocab.Crush:
		return `{"event":"PreToolUse","session_id":"s","cwd":"` + dir + `","tool_name":"bash","tool_input":{"command":"ls"}}`, ""
	case vocab.Antigravity:
		return `{"conversationId":"s","workspacePaths":["` + dir + `"],"toolCall":{"name":"run_command","args":{"CommandLine":"ls"}},"stepIdx":1}`, "PreToolUse"
	case vocab.Auggie:
		return `{"hook_event_name":"PreToolUse","conversation_id":"s","workspace_roots":["` + dir + `"],"tool_name":"launch-process","tool_input":{"command":"ls"},"is_mcp_tool":false}`, ""
	}
	return `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"` + dir + `","session_id":"s"}`, ""
}

// restrictiveAnswers are the answers that stop a tool call in each source agent's words:
// the hook's stdout and exit status.
func restrictiveAnswers(from string) map[string]string {
	exit2 := `echo no >&2; exit 2`
	switch from {
	case vocab.Gemini:
		return map[string]string{"deny": `echo '{"decision":"deny","reason":"no"}'`, "continue false": `echo '{"continue":false,"stopReason":"no"}'`, "exit 2": exit2}
	case vocab.Cursor:
		return map[string]string{"deny": `echo '{"permission":"deny","agent_message":"no"}'`, "ask": `echo '{"permission":"ask"}'`, "continue false": `echo '{"continue":false}'`, "exit 2": exit2}
	case vocab.Copilot:
		// 1.0.102 ignores continue on preToolUse and denies on any failing exit (tests/live/copilot).
		return map[string]string{"deny": `echo '{"permissionDecision":"deny","permissionDecisionReason":"no"}'`, "ask": `echo '{"permissionDecision":"ask"}'`,
			"exit 1": `echo no >&2; exit 1`, "exit 2": exit2}
	case vocab.Windsurf:
		return map[string]string{"exit 2": exit2}
	case vocab.Crush:
		return map[string]string{"deny": `echo '{"decision":"deny","reason":"no"}'`, "halt": `echo '{"halt":true,"reason":"no"}'`,
			"exit 2": exit2, "exit 49": `echo no >&2; exit 49`, "claude deny": `echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'`}
	case vocab.Antigravity: // it denies what it cannot read
		return map[string]string{"deny": `echo '{"decision":"deny","reason":"no"}'`, "ask": `echo '{"decision":"ask"}'`,
			"force_ask": `echo '{"decision":"force_ask"}'`, "empty object": `echo '{}'`, "text": `echo no`, "exit 1": `exit 1`, "exit 2": exit2}
	case vocab.Auggie: // auggie 0.36.0 runs a call its hook asks about (tests/live/auggie json_ask_runs)
		return map[string]string{"deny": `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'`,
			"continue false": `echo '{"continue":false,"stopReason":"no"}'`, "exit 2": exit2}
	case vocab.Codex: // Codex itself fails an ask or a continue:false before a tool open
		return map[string]string{"deny": `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'`, "exit 2": exit2}
	}
	return map[string]string{ // Claude Code's words (Codex, Qwen Code and Factory read them)
		"deny":           `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'`,
		"ask":            `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"why"}}'`,
		"continue false": `echo '{"continue":false,"stopReason":"no"}'`,
		"exit 2":         exit2,
	}
}

// stopsTool reads an answer as the target agent does before a tool call: true when the tool
// does not run without a human saying so (a block, a stop, or an ask the agent can put).
func stopsTool(to string, ans native.Answer) bool {
	if ans.ExitCode == 2 {
		return true // every target reads exit 2 before a tool as a block
	}
	if ans.ExitCode != 0 {
		return to == vocab.Copilot // Copilot CLI denies on any failing exit; elsewhere the tool runs
	}
	if to == vocab.Antigravity && len(strings.TrimSpace(string(ans.Stdout))) > 0 {
		var d struct{ Decision string }
		// Antigravity denies an answer it cannot read or that has no decision, and asks on ask.
		return json.Unmarshal(ans.Stdout, &d) != nil || d.Decision != "allow"
	}
	var out struct {
		Continue           *bool
		Halt               bool
		Decision           string
		Permission         string
		PermissionDecision string
		HookSpecificOutput struct{ PermissionDecision string }
	}
	if json.Unmarshal(ans.Stdout, &out) != nil {
		return false
	}
	// Codex rejects continue:false here (fails open); Copilot CLI ignores it on preToolUse.
	if out.Continue != nil && !*out.Continue && to != vocab.Codex && to != vocab.Copilot {
		return true
	}
	canAsk := to != vocab.Codex && to != vocab.Windsurf && to != vocab.Auggie
	switch to {
	case vocab.Gemini:
		return out.Decision == "deny" || out.Decision == "block" || out.Decision == "ask"
	case vocab.Cursor:
		return out.Permission == "deny" || out.Permission == "ask"
	case vocab.Copilot:
		return out.PermissionDecision == "deny" || out.PermissionDecision == "ask"
	case vocab.Windsurf, vocab.Antigravity:
		return false
	case vocab.Crush: // no ask: silence is the permission flow, which --yolo skips
		return out.Decision == "deny" || out.Halt || out.HookSpecificOutput.PermissionDecision == "deny"
	}
	d := out.HookSpecificOutput.PermissionDecision
	return d == "deny" || d == "ask" && canAsk
}

// Every restrictive answer of every source agent stays restrictive in every target's words,
// read as the target reads it (hole 8: Claude Code's continue:false became Codex's silence).
// A pair adapt refuses to run is a block too: the adapt command exits 2 on any error.
func TestRestrictiveAnswersStayRestrictive(t *testing.T) {
	dir := t.TempDir()
	tried := 0
	for _, from := range Sources() {
		for _, to := range Targets() {
			payload, ev := preToolPayload(to, dir)
			for name, cmd := range restrictiveAnswers(from) {
				tried++
				ans, err := Run(Request{From: from, To: to, Command: cmd, Payload: []byte(payload), Event: ev, Project: dir, Home: dir})
				if err != nil {
					if !strings.HasPrefix(err.Error(), "hookexec: adapt: ") {
						t.Errorf("%s→%s %s: %v", from, to, name, err)
					}
					continue
				}
				if !stopsTool(to, ans) {
					t.Errorf("%s→%s %s: the tool runs: exit %d, stdout %q, stderr %q", from, to, name, ans.ExitCode, ans.Stdout, ans.Stderr)
				}
			}
		}
	}
	t.Logf("restrictive answers: %d (from, to, answer) tried", tried)
}
