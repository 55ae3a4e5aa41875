package dialect

import (
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Cursor is Cursor's .cursor/hooks.json (cursor.com/docs/agent/hooks): {"version": 1,
// "hooks": {"beforeShellExecution": [{"command", "type", "timeout", "matcher",
// "failClosed"}]}}. Events are camelCase and partly named after the kind of tool
// (beforeShellExecution, beforeMCPExecution, beforeReadFile, afterFileEdit), which become
// PreToolUse/PostToolUse hooks with that tool as matcher. Hooks see Cursor's payload
// (conversation_id, workspace_roots, command, file_path, edits, ...) and answer with
// permission (allow, deny, ask), user_message, agent_message, continue, followup_message
// updated_input and additional_context. Timeouts are seconds; a hook that fails (crash, timeout, bad JSON)
// fails open unless it sets failClosed. Exit 2 denies, as Cursor documents.
var Cursor = &Dialect{
	Name:     vocab.Cursor,
	Unit:     time.Second,
	Timeout:  60 * time.Second,
	Envelope: payload.Claude,
	Detect: func(path string, v *fastjson.Value) bool {
		return v != nil && v.Exists("version") && objectHooks(v) && (inDir(path, ".cursor") || hasEventOf(v, vocab.Cursor, "beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "afterFileEdit", "beforeSubmitPrompt", "afterShellExecution", "afterMCPExecution"))
	},
	Load:   loadCursor,
	Stdin:  cursorStdin,
	Answer: cursorAnswer,
}

var cursorKeys = keySet(append([]string{"command", "type", "prompt", "timeout", "matcher", "failClosed", "loop_limit", "name"}, policyKeys...)...)

func loadCursor(p *Reader, _ []byte, v *fastjson.Value) error {
	if ver := v.Get("version"); ver != nil && ver.GetInt() != 1 {
		p.warn("", "version %s is not 1; read as version 1", ver)
	}
	p.loadEventLists(v, vocab.Cursor, keySet("version", "hooks", "$schema"), func(where string, item *fastjson.Value, h *Hook) {
		h.Name = p.optStr(where, "name", item)
		label := where
		p.unknownKeys(where, item, cursorKeys)
		if t := p.optStr(where, "type", item); t != "" {
			h.Type = t
		}
		if h.Type != "command" && h.Type != "prompt" && h.Type != "policy" {
			p.disable(h, label, "unknown type %q (Cursor has command and prompt; hookexec adds policy)", h.Type)
		}
		p.policyFields(where, label, item, h)
		h.Command = p.optStr(where, "command", item)
		h.Prompt = p.optStr(where, "prompt", item)
		if h.Type == "prompt" {
			h.Definition = item.MarshalTo(nil)
			if h.Prompt == "" {
				p.disable(h, label, "type prompt needs a non-empty prompt")
			}
		}
		if m := item.Get("matcher"); m != nil {
			h.Matcher = p.str(where, "matcher", m)
		}
		p.seconds(h, label, "timeout", item)
		if b := item.Get("failClosed"); b != nil {
			h.FailClosed = p.boolean(where, "failClosed", b)
		}
		if item.Exists("loop_limit") {
			p.warn(label, "loop_limit is not applied: hookexec's own Stop cap limits follow-ups")
		}
		p.requireCommand(h, label)
	})
	return nil
}

// cursorStdin is Cursor's payload: the common fields (hook_event_name, conversation_id,
// generation_id, workspace_roots) and each event's own.
func cursorStdin(f Fire) []byte {
	p := decode(f.Payload)
	session := firstStr(p, "conversation_id", "session_id")
	if session == "" {
		session = f.Frame.SessionID
	}
	cwd := firstStr(p, "cwd")
	if cwd == "" {
		cwd = f.Frame.Cwd
	}
	out := object{
		"hook_event_name": f.Event,
		"conversation_id": session,
		"generation_id":   str(p, "generation_id"),
		"workspace_roots": []any{f.Frame.Cwd},
	}
	if f.Frame.TranscriptPath != "" {
		out["transcript_path"] = f.Frame.TranscriptPath
	}
	input := obj(p, "tool_input")
	tool := str(p, "tool_name")
	switch f.Event {
	case "beforeShellExecution", "afterShellExecution":
		out["command"] = input["command"]
		out["cwd"] = cwd
		if f.Event == "afterShellExecution" {
			out["output"] = toolOutput(p)
			out["duration"] = p["duration_ms"]
		}
	case "beforeMCPExecution", "afterMCPExecution":
		_, name, _ := mcpParts(tool)
		out["tool_name"] = name
		out["tool_input"] = jsonText(input)
		if f.Event == "afterMCPExecution" {
			out["result_json"] = jsonText(p["tool_response"])
			out["duration"] = p["duration_ms"]
		}
	case "beforeReadFile":
		out["file_path"] = filePathOf(input)
		out["content"] = str(p, "content")
		out["attachments"] = []any{}
	case "afterFileEdit":
		out["file_path"] = filePathOf(input)
		out["edits"] = edits(input)
	case "beforeSubmitPrompt":
		out["prompt"] = p["prompt"]
		out["attachments"] = []any{}
	case "stop":
		status := str(p, "status")
		if status == "" {
			status = "completed"
		}
		out["status"] = status
		out["loop_count"] = p["loop_count"]
		if out["loop_count"] == nil {
			out["loop_count"] = 0
		}
	case "preToolUse", "postToolUse", "postToolUseFailure":
		out["tool_name"] = spellTool(vocab.Cursor, tool)
		if _, name, ok := mcpParts(tool); ok {
			out["tool_name"] = "MCP:" + name // Cursor's spelling of an MCP tool
		}
		out["tool_input"] = input
		out["tool_use_id"] = p["tool_use_id"]
		out["cwd"] = cwd
		if f.Event == "postToolUse" {
			out["tool_output"] = jsonText(p["tool_response"])
		}
		if f.Event == "postToolUseFailure" {
			out["error_message"] = p["error"]
		}
	default:
		for k, v := range p {
			if _, set := out[k]; !set && k != "hook_event_name" {
				out[k] = v
			}
		}
	}
	return encode(out)
}

// toolOutput is a shell tool's output as text.
func toolOutput(p object) string {
	r := p["tool_response"]
	if m, ok := r.(object); ok {
		if s := firstStr(m, "stdout", "output"); s != "" {
			return s
		}
	}
	return jsonText(r)
}

// cursorAnswer reads Cursor's output fields into the canonical ones: permission is the
// decision, agent_message its reason (what the agent is told), user_message the message
// shown to the user, continue false stops, a stop hook's followup_message keeps the agent
// going with it, updated_input rewrites the tool input. Stdout that is not JSON means
// nothing to Cursor; JSON that does not parse is passed on so failClosed can block.
func cursorAnswer(event string, exit int, stdout []byte) (int, []byte) {
	m := parseAnswer(stdout)
	if m == nil {
		return exit, malformed(stdout)
	}
	out := object{}
	decisionAnswer(out, str(m, "permission"), firstStr(m, "agent_message", "agentMessage", "user_message", "userMessage"))
	if um := firstStr(m, "user_message", "userMessage"); um != "" {
		out["systemMessage"] = um
	}
	if c, ok := m["continue"].(bool); ok {
		out["continue"] = c
	}
	if fu := str(m, "followup_message"); fu != "" && (event == "stop" || event == "subagentStop") {
		out["decision"], out["reason"] = "block", fu
	}
	if ui, ok := m["updated_input"].(object); ok {
		out["hookSpecificOutput"] = object{"updatedInput": ui}
	}
	if ac := firstStr(m, "additional_context", "additionalContext"); ac != "" {
		out["additionalContext"] = ac
	}
	return exit, canonicalAnswer(out)
}

// malformed passes on stdout that starts like JSON but does not parse (decide reports it,
// and fail-closed hooks block on it); other text is no answer.
func malformed(stdout []byte) []byte {
	for _, c := range stdout {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return stdout
		}
		return nil
	}
	return nil
}

// objectHooks: "hooks" is an object.
func objectHooks(v *fastjson.Value) bool {
	h := v.Get("hooks")
	return h != nil && h.Type() == fastjson.TypeObject
}

// hasEventOf: the file's hooks object has one of names as a key.
func hasEventOf(v *fastjson.Value, _ string, names ...string) bool {
	h := v.Get("hooks")
	if h == nil {
		return false
	}
	for _, n := range names {
		if h.Exists(n) {
			return true
		}
	}
	return false
}
