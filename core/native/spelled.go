package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/vocab"
)

// Some agents are answered only as the agent running one converted hook ("hookexec adapt"),
// not as agents whose settings install manages: Cursor, GitHub Copilot CLI, Windsurf, Crush
// and Antigravity CLI. (Cline's answer, clineAnswer, takes the spelled event too; install
// manages Cline, so it is in the agents table.)
// Their answer depends on the event as the agent spells it (Cursor's beforeShellExecution
// and preToolUse take different fields), so their writers take the spelled event.

type spelledAgent struct {
	display string
	answer  func(spelled string, r *engine.Result) Answer
}

var spelledAgents = map[string]spelledAgent{
	"cursor":      {"Cursor", cursorAnswer},
	"copilot":     {"GitHub Copilot CLI", copilotAnswer},
	"windsurf":    {"Windsurf", windsurfAnswer},
	"crush":       {"Crush", crushAnswer},
	"antigravity": {"Antigravity CLI", antigravityAnswer},
}

// Display names an agent for people ("Claude Code", "Cursor"); the name itself when unknown.
func Display(name string) string {
	if a := agents[name]; a != nil {
		return a.Display
	}
	if a, ok := spelledAgents[name]; ok {
		return a.display
	}
	return name
}

// AnswerAs is the native answer of agent for a fire of the event it spells as spelled
// (the canonical event for the agents of the agents table, whose answers do not depend on
// the spelling).
func AnswerAs(agent, spelled string, r *engine.Result) (Answer, error) {
	if a, ok := spelledAgents[agent]; ok { // Copilot CLI is in both tables: its spelling counts
		return a.answer(spelled, r), nil
	}
	if a := agents[agent]; a != nil {
		return a.answer(r), nil
	}
	return Answer{}, fmt.Errorf("hookexec: no native answer for agent %q", agent)
}

// jsonAnswer is exit 0 with v as one JSON line on stdout.
func jsonAnswer(v map[string]any) Answer {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return Answer{ExitCode: 2, Stderr: []byte("hookexec: encoding the answer: " + err.Error() + "\n")}
	}
	return Answer{Stdout: buf.Bytes()}
}

// exit2 is the block every one of these agents reads from the exit status: 2, the reason
// on stderr.
func exit2(r *engine.Result) Answer {
	return Answer{ExitCode: 2, Stderr: []byte(orText(r.Reason, "blocked by hook") + "\n")}
}

// cursorAnswer answers in Cursor's words (cursor.com/docs/agent/hooks): permission
// (allow, deny, ask) with agent_message (what the agent is told) and user_message (what
// the user sees) on the events that ask for a permission; updated_input on preToolUse;
// continue on beforeSubmitPrompt and wherever the fire stops the agent; followup_message
// on stop/subagentStop (a Stop block keeps the agent going); additional_context where
// Cursor reads it. A block on an event with no JSON form of one is exit 2 with the reason
// on stderr, which Cursor reads as a deny.
func cursorAnswer(spelled string, r *engine.Result) Answer {
	out := map[string]any{}
	if r.AdditionalContext != "" {
		out["additional_context"] = r.AdditionalContext
	}
	if !r.Continue {
		out["continue"] = false
		if r.StopReason != "" {
			out["user_message"] = r.StopReason
		}
	}
	switch spelled {
	case "beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "preToolUse":
		switch {
		case r.Blocked || r.Decision == "deny":
			out["permission"] = "deny"
		case r.Decision == "ask" || r.Decision == "allow":
			out["permission"] = r.Decision
		case len(out) > 0 || r.UpdatedInput != nil:
			out["permission"] = "allow"
		}
		if r.Reason != "" && out["permission"] != nil && out["permission"] != "allow" {
			out["agent_message"] = r.Reason
			out["user_message"] = r.Reason
		}
		if r.SystemMessage != "" {
			out["user_message"] = r.SystemMessage
		}
		if spelled == "preToolUse" && r.UpdatedInput != nil && !r.Blocked {
			out["updated_input"] = r.UpdatedInput
		}
	case "beforeSubmitPrompt":
		if r.Blocked {
			out["continue"] = false
			out["user_message"] = orText(r.Reason, "blocked by hook")
		}
	case "stop", "subagentStop":
		if r.Blocked && r.Reason != "" {
			out["followup_message"] = r.Reason
		}
	case "postToolUse", "postToolUseFailure":
		if r.Blocked && r.Reason != "" { // Claude Code's PostToolUse block tells the agent why
			out["additional_context"] = strings.TrimSpace(r.AdditionalContext + "\n" + r.Reason)
		}
	default:
		if r.Blocked {
			return exit2(r)
		}
	}
	if len(out) == 0 {
		return Answer{}
	}
	return jsonAnswer(out)
}

// copilotAnswer answers in GitHub Copilot CLI's words, as 1.0.102 reads them
// (tests/live/copilot, core/dialect/copilot.go): on preToolUse permissionDecision (allow,
// deny, ask) with permissionDecisionReason and modifiedArgs, a stop being a deny (1.0.102
// ignores continue on camelCase events); on permissionRequest behavior deny with message;
// on userPromptSubmitted decision "block" with reason (exit 2 does not block there), a
// stop too; on agentStop/subagentStop decision "block" with reason; additionalContext. A
// block on any other event is exit 2 with the reason on stderr. The PascalCase events
// (VS Code compatible) also get Claude Code's continue, stopReason and systemMessage.
func copilotAnswer(spelled string, r *engine.Result) Answer {
	pascal := spelled != "" && spelled[0] >= 'A' && spelled[0] <= 'Z'
	out := map[string]any{}
	if pascal && !r.Continue {
		out["continue"] = false
		if r.StopReason != "" {
			out["stopReason"] = r.StopReason
		}
	}
	if pascal && r.SystemMessage != "" {
		out["systemMessage"] = r.SystemMessage
	}
	if r.AdditionalContext != "" {
		out["additionalContext"] = r.AdditionalContext
	}
	stopped := r.Blocked || !r.Continue && !pascal
	reason := orText(r.Reason, orText(r.StopReason, "blocked by hook"))
	switch spelled {
	case "preToolUse", "PreToolUse":
		switch {
		case stopped || r.Decision == "deny":
			out["permissionDecision"] = "deny"
			if r.Reason != "" || r.StopReason != "" {
				// Without one Copilot tells the model "No reason provided" (deny_without_reason_blocks).
				out["permissionDecisionReason"] = reason
			}
		case r.Decision == "ask" || r.Decision == "allow":
			out["permissionDecision"] = r.Decision
			if r.Reason != "" {
				out["permissionDecisionReason"] = r.Reason
			}
		}
		if r.UpdatedInput != nil && !stopped {
			out["modifiedArgs"] = r.UpdatedInput
		}
	case "permissionRequest":
		switch {
		case stopped || r.Decision == "deny":
			out["behavior"], out["message"] = "deny", reason
		case r.Decision == "allow":
			out["behavior"] = "allow"
		}
	case "postToolUse", "postToolUseFailure":
		// modifiedResult replaces what the model sees of the call (1.0.102: post_modified_result).
		if len(r.UpdatedToolOutput) > 0 && string(r.UpdatedToolOutput) != "null" {
			out["modifiedResult"] = r.UpdatedToolOutput
		}
		if r.Blocked {
			a := exit2(r)
			if len(out) > 0 {
				a.Stdout = jsonAnswer(out).Stdout
			}
			return a
		}
	case "userPromptSubmitted":
		if stopped {
			out["decision"], out["reason"] = "block", reason
		}
	case "agentStop", "subagentStop", "Stop", "SubagentStop":
		if r.Blocked {
			out["decision"], out["reason"] = "block", orText(r.Reason, "blocked by hook")
		}
	default:
		if r.Blocked {
			return exit2(r)
		}
	}
	if len(out) == 0 {
		return Answer{}
	}
	return jsonAnswer(out)
}

// windsurfAnswer answers in Windsurf's words (docs.windsurf.com/windsurf/cascade/hooks):
// the exit status only. A block of a pre_ hook is exit 2 with the reason on stderr;
// post_ hooks cannot block, so a block there is told on stderr with exit 0. Messages
// for the user go to stdout, which Windsurf shows with show_output.
func windsurfAnswer(spelled string, r *engine.Result) Answer {
	if (r.Blocked || !r.Continue) && strings.HasPrefix(spelled, "pre_") {
		if !r.Blocked {
			return Answer{ExitCode: 2, Stderr: []byte(orText(r.StopReason, "stopped by hook") + "\n")}
		}
		return exit2(r)
	}
	var a Answer
	var msg []string
	for _, s := range []string{r.SystemMessage, r.AdditionalContext} {
		if s != "" {
			msg = append(msg, s)
		}
	}
	if len(msg) > 0 {
		a.Stdout = []byte(strings.Join(msg, "\n") + "\n")
	}
	if r.Blocked && r.Reason != "" {
		a.Stderr = []byte(r.Reason + "\n")
	}
	return a
}

// crushAnswer answers in Crush's words (its docs/hooks/README.md, v0.90): decision allow or
// deny with reason, halt with reason for a fire that stops the agent, context, and
// updated_input (Crush merges it into the tool input key by key, so the whole new input
// is given). Crush has no ask: an ask arrives here already turned into a block
// (core/adapt). Crush hooks exist for PreToolUse only.
func crushAnswer(_ string, r *engine.Result) Answer {
	out := map[string]any{}
	switch {
	case r.Blocked || r.Decision == "deny":
		out["decision"], out["reason"] = "deny", orText(r.Reason, "blocked by hook")
	case r.Decision == "allow":
		out["decision"] = "allow"
	}
	if !r.Continue {
		out["halt"] = true
		out["reason"] = orText(r.StopReason, orText(r.Reason, "stopped by hook"))
	}
	if r.AdditionalContext != "" {
		out["context"] = r.AdditionalContext
	}
	if r.UpdatedInput != nil && !r.Blocked {
		out["updated_input"] = json.RawMessage(r.UpdatedInput)
	}
	if len(out) == 0 {
		return Answer{}
	}
	return jsonAnswer(out)
}

// antigravityAnswer answers in Antigravity CLI's words (the hooks reference its harness
// embeds). PreToolUse: nothing when no hook decided (Antigravity denies "{}", so an empty
// object is never printed), else decision allow, deny or ask with reason, and overwrite
// (the whole new input, spelled as the tool's arguments; a rewrite needs a decision, and
// ask is given where the hooks gave none, so that a rewrite never approves a call on the
// user's behalf). Stop: a block is decision "continue" with the reason, which keeps the
// agent going. SessionStart: context is an injected system message. Other events read
// nothing but "{}".
func antigravityAnswer(spelled string, r *engine.Result) Answer {
	out := map[string]any{}
	switch spelled {
	case "PreToolUse":
		switch {
		case r.Blocked || r.Decision == "deny" || !r.Continue:
			out["decision"] = "deny"
			out["reason"] = orText(r.Reason, orText(r.StopReason, "blocked by hook"))
			return jsonAnswer(out)
		case r.Decision == "allow" || r.Decision == "ask":
			out["decision"] = r.Decision
		case r.UpdatedInput != nil:
			out["decision"] = "ask"
		default:
			return Answer{}
		}
		if r.Reason != "" {
			out["reason"] = r.Reason
		}
		if r.UpdatedInput != nil {
			var in map[string]any
			if json.Unmarshal(r.UpdatedInput, &in) == nil {
				out["overwrite"] = vocab.SpellArgs(vocab.Antigravity, "run_command", in) // core/adapt lets through rewrites of shell commands only
			}
		}
	case "Stop":
		if !r.Blocked {
			return Answer{Stdout: []byte("{}\n")}
		}
		out["decision"], out["reason"] = "continue", orText(r.Reason, "a hook asked to continue")
	case "SessionStart":
		if r.AdditionalContext == "" {
			return Answer{Stdout: []byte("{}\n")}
		}
		out["injectSteps"] = []any{map[string]any{"systemMessage": map[string]any{"systemMessage": r.AdditionalContext}}}
	default:
		return Answer{Stdout: []byte("{}\n")}
	}
	return jsonAnswer(out)
}
