package dialect

import (
	"path/filepath"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Copilot is GitHub Copilot CLI's .github/hooks/*.json and ~/.copilot/hooks/*.json
// (docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference):
// {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash", "powershell", "cwd",
// "env", "timeoutSec", "matcher"}]}}. Timeouts are seconds (default 30); the hooks of an
// event run in order. Two payload spellings, chosen by how the file names the event:
// camelCase events (preToolUse) get camelCase fields (toolName, toolArgs as an object — the
// reference says a JSON string, 1.0.102 sends an object — timestamp in ms), PascalCase ones (PreToolUse) the VS Code compatible snake_case fields.
// Hooks answer with permissionDecision (allow, deny, ask) and permissionDecisionReason,
// modifiedArgs, additionalContext, or decision "block" on agentStop.
var Copilot = &Dialect{
	Name:       vocab.Copilot,
	Unit:       time.Second,
	Timeout:    30 * time.Second,
	Envelope:   payload.Claude,
	Sequential: true,
	// The first hook that denies ends the fire: the rest do not run (1.0.102,
	// tests/live/copilot two_files_*).
	StopOnBlock: true,
	Detect: func(path string, v *fastjson.Value) bool {
		if v == nil || !objectHooks(v) {
			return false
		}
		// hookexec-copilot-hooks.json: the hooks install moved out of a Copilot hooks
		// directory (core/native CopilotManaged), beside it.
		return inDir(path, "hooks") && (inDir(parentDir(path), ".github") || inDir(parentDir(path), ".copilot")) ||
			filepath.Base(path) == "hookexec-copilot-hooks.json" ||
			hasHandlerKey(v.Get("hooks"), "bash") || hasHandlerKey(v.Get("hooks"), "timeoutSec") || hasHandlerKey(v.Get("hooks"), "powershell")
	},
	Load:   loadCopilot,
	Stdin:  copilotStdin,
	Answer: copilotAnswer,
	// A preToolUse hook that errors (a failing exit, a powershell-only hook off Windows)
	// denies the call; a timeout does not (tests/live/copilot exit1_*, exit3_*,
	// powershell_only_*, timeout_sec_*).
	ErrorBlocks: func(spelled string) string {
		if spelled == "preToolUse" {
			return copilotErrored
		}
		return ""
	},
}

var copilotKeys = keySet(append([]string{"type", "bash", "powershell", "command", "cwd", "env", "timeoutSec", "matcher", "prompt", "comment", "name"}, policyKeys...)...)

func loadCopilot(p *Reader, _ []byte, v *fastjson.Value) error {
	if ver := v.Get("version"); ver != nil && ver.GetInt() != 1 {
		p.warn("", "version %s is not 1; read as version 1", ver)
	}
	p.loadEventLists(v, vocab.Copilot, keySet("version", "hooks", "$schema", "disableAllHooks"), func(where string, item *fastjson.Value, h *Hook) {
		h.Name = p.optStr(where, "name", item)
		label := where
		p.unknownKeys(where, item, copilotKeys)
		if t := p.optStr(where, "type", item); t != "" {
			h.Type = t
		}
		switch h.Type {
		case "command":
		case "policy":
			p.policyFields(where, label, item, h)
		case "prompt":
			// Copilot's prompt hooks submit their text as if the user typed it: on
			// sessionStart only, as the first prompt.
			h.Type = "askAgent"
			h.Prompt = p.optStr(where, "prompt", item)
			if h.Spelling != "sessionStart" && h.Spelling != "SessionStart" {
				p.disable(h, label, "prompt hooks run on sessionStart only (Copilot CLI)")
			}
		default:
			p.disable(h, label, "unknown type %q (Copilot CLI has command and prompt; hookexec adds policy)", h.Type)
		}
		bash, ps := p.optStr(where, "bash", item), p.optStr(where, "powershell", item)
		h.Command = p.optStr(where, "command", item)
		switch {
		case bash != "":
			h.Command = bash
		case h.Command == "" && ps != "":
			h.Command, h.Shell = ps, "powershell"
		}
		if h.Type == "command" && bash == "" && ps == "" && h.Command == "" {
			p.disable(h, label, "a command hook needs \"bash\" or \"powershell\"")
		}
		h.Cwd = p.optStr(where, "cwd", item)
		if e := item.Get("env"); e != nil {
			h.Env = p.env(where, e)
		}
		if m := item.Get("matcher"); m != nil {
			h.Matcher = p.str(where, "matcher", m)
			h.RegexMatcher = true // Copilot's matcher is a regex
		}
		p.seconds(h, label, "timeoutSec", item)
	})
	return nil
}

// copilotStdin: camelCase fields for camelCase events, Claude-style snake_case for
// PascalCase ones.
func copilotStdin(f Fire) []byte {
	p := decode(f.Payload)
	cwd := firstStr(p, "cwd")
	if cwd == "" {
		cwd = f.Frame.Cwd
	}
	session := firstStr(p, "session_id", "sessionId")
	if session == "" {
		session = f.Frame.SessionID
	}
	host, fromHost := p[HostPayloadField].(object)
	delete(p, HostPayloadField)
	if f.Event != "" && f.Event[0] >= 'A' && f.Event[0] <= 'Z' {
		out := object{"hook_event_name": f.Event, "session_id": session, "cwd": cwd, "timestamp": isoTime(f.Frame.Time)}
		if f.Frame.TranscriptPath != "" {
			out["transcript_path"] = f.Frame.TranscriptPath
		}
		for k, v := range p {
			if _, set := out[k]; !set {
				out[k] = v
			}
		}
		return encode(out)
	}
	if fromHost {
		// Copilot CLI fired this camelCase event itself (through hookexec's dispatcher): its
		// hooks get the payload it sent.
		return encode(host)
	}
	out := object{"timestamp": millis(f.Frame.Time), "cwd": cwd, "sessionId": session}
	switch f.Event {
	case "permissionRequest":
		// 1.0.102 (tests/live/copilot): {hookName, sessionId, timestamp, cwd, toolName,
		// toolInput (an object), permissionSuggestions}.
		out = object{"hookName": f.Event, "sessionId": session, "timestamp": millis(f.Frame.Time), "cwd": cwd,
			"toolName": spellTool(vocab.Copilot, str(p, "tool_name")), "toolInput": obj(p, "tool_input"),
			"permissionSuggestions": orEmpty(p["permission_suggestions"])}
	case "preToolUse", "postToolUse", "postToolUseFailure":
		// toolArgs is an object, as 1.0.102 sends it (the reference says a JSON string).
		out["toolName"] = spellTool(vocab.Copilot, str(p, "tool_name"))
		out["toolArgs"] = obj(p, "tool_input")
		if f.Event != "preToolUse" {
			result := "success"
			if p["error"] != nil {
				result = "failure"
			}
			out["toolResult"] = object{"resultType": result, "textResultForLlm": jsonText(p["tool_response"])}
		}
	case "userPromptSubmitted":
		out["prompt"] = p["prompt"]
	case "sessionStart":
		out["source"] = firstStr(p, "source")
		out["initialPrompt"] = p["initial_prompt"]
	case "agentStop", "subagentStop":
		if t := firstStr(p, "transcript_path"); t != "" {
			out["transcriptPath"] = t
		} else if f.Frame.TranscriptPath != "" {
			out["transcriptPath"] = f.Frame.TranscriptPath
		}
		out["stopReason"] = firstStr(p, "stopReason", "stop_reason")
		if out["stopReason"] == "" {
			out["stopReason"] = "end_turn"
		}
		active, _ := p["stop_hook_active"].(bool)
		out["stop_hook_active"] = active
	case "sessionEnd":
		out["reason"] = firstStr(p, "reason", "session_end_reason")
	case "errorOccurred":
		out["error"] = object{"message": firstStr(p, "error", "message"), "name": firstStr(p, "error_code")}
	default:
		for k, v := range p {
			if _, set := out[k]; !set {
				out[k] = v
			}
		}
	}
	return encode(out)
}

// HostPayloadField carries, in a canonical payload the dispatcher read from an agent's own
// (core/dispatch: Copilot CLI's camelCase payloads), that payload as the agent sent it: the
// agent's hooks of the spelling it fired get it unchanged. Other hooks never see it.
const HostPayloadField = "hookexec_host_payload"

// copilotAnswer reads a hook's answer as Copilot CLI 1.0.102 does (tests/live/copilot),
// event by event; on camelCase events Claude Code's nested answers (hookSpecificOutput),
// decision "block" outside userPromptSubmitted and agentStop, continue and systemMessage
// are not read:
//
//   - preToolUse: permissionDecision allow, deny or ask with permissionDecisionReason,
//     modifiedArgs, additionalContext; exit 2 denies with "hook exited with code 2" (its
//     stdout and stderr are not read); any other failing exit denies ("hook errored");
//   - permissionRequest: behavior deny (message its reason) or allow; exit 2 denies;
//   - postToolUse: additionalContext, modifiedResult (replaces the tool's result the model
//     sees); exit 2 gives stderr to the model;
//   - userPromptSubmitted: decision "block" with reason, additionalContext; exit 2 does not
//     block;
//   - agentStop, subagentStop: decision "block" with reason goes on; exit 2 does not;
//   - every other event: additionalContext.
//
// A PascalCase (VS Code compatible) event's answer is read as Claude Code's
// (pascal_pre_tool_use_deny: hookSpecificOutput.permissionDecision deny holds there), but
// a PreToolUse exit 2 denies with the same words as preToolUse's (pascal_pre_tool_use_exit2).
func copilotAnswer(spelled string, exit int, stdout []byte) (int, []byte) {
	if spelled == "PreToolUse" && exit == 2 {
		return 0, canonicalAnswer(object{"decision": "deny", "reason": "hook exited with code 2"})
	}
	if spelled == "" || spelled[0] >= 'A' && spelled[0] <= 'Z' {
		return claudeLikeAnswer(exit, stdout)
	}
	switch {
	case spelled == "preToolUse" && exit == 2:
		return 0, canonicalAnswer(object{"decision": "deny", "reason": "hook exited with code 2"})
	case spelled == "preToolUse" && exit != 0:
		return 0, canonicalAnswer(object{"decision": "deny", "reason": copilotErrored})
	case spelled == "permissionRequest" && exit == 2:
		return 0, canonicalAnswer(object{"decision": "deny", "reason": "Permission denied by hook."})
	case exit == 2 && (spelled == "userPromptSubmitted" || spelled == "agentStop" || spelled == "subagentStop"):
		exit = 1 // a failure, not a block
	}
	m := parseAnswer(stdout)
	if m == nil {
		return exit, malformed(stdout)
	}
	out := object{}
	if c, ok := m["additionalContext"]; ok {
		out["additionalContext"] = c
	}
	switch spelled {
	case "preToolUse":
		if d := str(m, "permissionDecision"); d != "" {
			out["decision"] = d
			if r := str(m, "permissionDecisionReason"); r != "" {
				out["reason"] = r
			}
		}
		if args, ok := m["modifiedArgs"].(object); ok {
			out["hookSpecificOutput"] = object{"updatedInput": args}
		}
	case "permissionRequest":
		if b := str(m, "behavior"); b != "" {
			out["decision"] = b
			if r := str(m, "message"); r != "" {
				out["reason"] = r
			}
		}
	case "postToolUse", "postToolUseFailure":
		if r, ok := m["modifiedResult"]; ok && r != nil {
			out["hookSpecificOutput"] = object{"hookEventName": "PostToolUse", "updatedToolOutput": r}
		}
	case "userPromptSubmitted", "agentStop", "subagentStop":
		if d := str(m, "decision"); d == "block" {
			out["decision"] = d
			if r, ok := m["reason"]; ok {
				out["reason"] = r
			}
		}
	}
	return exit, canonicalAnswer(out)
}

// copilotErrored is the reason Copilot CLI gives the model when a preToolUse hook errored.
const copilotErrored = "hook errored"

// claudeLikeAnswer: fields Claude Code also has pass as they are; permissionDecision and
// its reason at the top level are the decision, modifiedArgs the tool's new arguments.
func claudeLikeAnswer(exit int, stdout []byte) (int, []byte) {
	m := parseAnswer(stdout)
	if m == nil {
		return exit, malformed(stdout)
	}
	out := object{}
	for _, k := range []string{"continue", "stopReason", "systemMessage", "suppressOutput", "decision", "reason", "hookSpecificOutput", "additionalContext"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	if d := str(m, "permissionDecision"); d != "" {
		out["decision"] = d
		if r := str(m, "permissionDecisionReason"); r != "" {
			out["reason"] = r
		}
	}
	if args, ok := m["modifiedArgs"].(object); ok {
		hs := obj(out, "hookSpecificOutput")
		hs["updatedInput"] = args
		out["hookSpecificOutput"] = hs
	}
	return exit, canonicalAnswer(out)
}

func parentDir(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[:i]
		}
	}
	return ""
}

// orEmpty is v, or an empty list when v is absent.
func orEmpty(v any) any {
	if v == nil {
		return []any{}
	}
	return v
}
