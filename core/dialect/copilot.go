package dialect

import (
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
	Detect: func(path string, v *fastjson.Value) bool {
		if v == nil || !objectHooks(v) {
			return false
		}
		return inDir(path, "hooks") && (inDir(parentDir(path), ".github") || inDir(parentDir(path), ".copilot")) ||
			hasHandlerKey(v.Get("hooks"), "bash") || hasHandlerKey(v.Get("hooks"), "timeoutSec") || hasHandlerKey(v.Get("hooks"), "powershell")
	},
	Load:   loadCopilot,
	Stdin:  copilotStdin,
	Answer: copilotAnswer,
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

// copilotAnswer: permissionDecision and its reason at the top level are the decision
// (permissionRequest's behavior too); modifiedArgs replaces the tool's arguments. Fields Claude Code also has pass as they are.
func copilotAnswer(_ string, exit int, stdout []byte) (int, []byte) {
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
	if b := str(m, "behavior"); b != "" {
		out["decision"] = b // permissionRequest's answer
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
