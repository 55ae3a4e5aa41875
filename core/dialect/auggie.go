package dialect

import (
	"fmt"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Auggie is Augment's auggie CLI, as the binary reads its hooks (@augmentcode/auggie 0.36.0,
// its bundle augment.mjs, checked live in tests/live/auggie; docs/agents/auggie.md): the
// "hooks" of ~/.augment/settings.json and of the workspace's .augment/settings.local.json
// and .augment/settings.json, all merged. Claude Code's shape — events, groups {"matcher",
// "hooks"}, handlers {"type": "command", "command", "args", "timeout"} — with timeouts in
// milliseconds (default 60 s) and the prompt's event spelled PromptSubmit. The events are
// PreToolUse, PostToolUse, Stop, SessionStart, SessionEnd, Notification and PromptSubmit;
// auggie drops any other key of "hooks" with a warning, and a whole event whose list fails
// its schema. A tool matcher is an unanchored regex tested against auggie's tool name
// (launch-process, view, save-file, str-replace-editor, ...); a matcher on another event
// is ignored (auggie 0.36.0 runs the hook).
//
// Hooks see auggie's own payload — {hook_event_name, conversation_id, workspace_roots,
// tool_name, tool_input, tool_output, tool_error, is_mcp_tool, file_changes, user_prompt,
// agent_stop_cause} (no session_id, cwd or transcript_path) — and AUGMENT_PROJECT_DIR,
// AUGMENT_CONVERSATION_ID, AUGMENT_HOOK_EVENT and AUGMENT_TOOL_NAME. Their answers are
// read as auggie reads them (auggieAnswer).
var Auggie = &Dialect{
	Name:             vocab.Auggie,
	Unit:             time.Millisecond,
	Timeout:          60 * time.Second,
	Envelope:         payload.Claude,
	CanonicalOnStdin: true,
	Names:            map[string]string{"UserPromptSubmit": "PromptSubmit"},
	OwnAliases:       map[string]bool{"PromptSubmit": true},
	// The hook sees the tool as auggie spells it, and the matcher tests that spelling.
	SpellsTools:       true,
	RegexToolMatchers: true,
	// auggie 0.36.0 runs a Stop hook whose group has a matcher (live: stop_matcher_ignored).
	StrayMatcherIgnored: true,
	ToolEnv:             "AUGMENT_TOOL_NAME",
	ProjectEnv:          []string{"AUGMENT_PROJECT_DIR"},
	PayloadEnv:          [][2]string{{"AUGMENT_CONVERSATION_ID", "conversation_id"}, {"AUGMENT_HOOK_EVENT", "hook_event_name"}},
	Detect: func(path string, v *fastjson.Value) bool {
		return claudeShaped(v) && inDir(path, ".augment")
	},
	Load:   loadAuggie,
	Stdin:  auggieStdin,
	Answer: auggieAnswer,
}

// auggieHandlerKeys are the keys auggie's handler schema has; hookexec's policy handlers
// run only where hookexec runs the hooks.
var auggieHandlerKeys = map[string]bool{"type": true, "command": true, "args": true, "timeout": true}

// loadAuggie reads the "hooks" of an auggie settings file. An event auggie does not know
// (UserPromptSubmit, which it spells PromptSubmit; PermissionRequest; ...) and an event
// whose list auggie's schema refuses are dropped, as auggie drops them; the rest is Claude
// Code's shape, read as such.
func loadAuggie(p *Reader, data []byte, v *fastjson.Value) error {
	obj := p.hooksObject(v)
	if obj == nil {
		return nil
	}
	var a fastjson.Arena
	kept := a.NewObject()
	obj.Visit(func(k []byte, list *fastjson.Value) {
		name := string(k)
		if _, known := vocab.EventOf(vocab.Auggie, name); !known {
			hint := ""
			if name == "UserPromptSubmit" {
				hint = " (auggie spells it PromptSubmit)"
			}
			p.warn("", "auggie has no event %q%s; it ignores these hooks, and so does hookexec", name, hint)
			return
		}
		if why := auggieSchema(name, list); why != "" {
			p.warn("", "auggie ignores every %s hook of this file: %s", name, why)
			return
		}
		kept.Set(name, list)
	})
	top := a.NewObject()
	top.Set("hooks", kept)
	return loadClaudeShape(p, data, top)
}

// auggieSchema says why auggie's settings schema refuses one event's list ("" when it takes
// it): a list of groups, each with an optional string matcher that compiles as a regex and
// a list of handlers {"type": "command", "command": non-empty string, "args": strings,
// "timeout": positive number}. hookexec's own policy handlers pass (only hookexec runs them).
func auggieSchema(event string, list *fastjson.Value) string {
	groups, err := list.Array()
	if err != nil {
		return fmt.Sprintf("the list is %s, not an array", list.Type())
	}
	for i, g := range groups {
		if g.Type() != fastjson.TypeObject {
			return fmt.Sprintf("group %d is %s, not an object", i, g.Type())
		}
		if m := g.Get("matcher"); m != nil && m.Type() != fastjson.TypeString {
			return fmt.Sprintf("group %d's matcher is %s, not a string", i, m.Type())
		}
		inner := g.Get("hooks")
		if inner == nil || inner.Type() != fastjson.TypeArray {
			return fmt.Sprintf("group %d has no list of hooks", i)
		}
		for j, h := range inner.GetArray() {
			typ := string(h.GetStringBytes("type"))
			if typ == "policy" {
				continue
			}
			c := h.Get("command")
			if typ != "command" || c == nil || c.Type() != fastjson.TypeString || strings.TrimSpace(string(c.GetStringBytes())) == "" {
				return fmt.Sprintf(`hook %d of group %d is not {"type": "command", "command": "..."}`, j, i)
			}
			if t := h.Get("timeout"); t != nil && (t.Type() != fastjson.TypeNumber || t.GetFloat64() <= 0) {
				return fmt.Sprintf("hook %d of group %d has a timeout that is not a positive number (milliseconds)", j, i)
			}
			unknown := ""
			h.GetObject().Visit(func(k []byte, _ *fastjson.Value) {
				if !auggieHandlerKeys[string(k)] && unknown == "" {
					unknown = string(k)
				}
			})
			if unknown != "" {
				return fmt.Sprintf("hook %d of group %d has %q, which auggie does not have (it strips it; hookexec would not)", j, i, unknown)
			}
		}
	}
	return ""
}

// auggieStdin is auggie's payload for the fire: the host's own fields when the host is
// auggie, else built from Claude Code's (session_id is the conversation, cwd the workspace,
// prompt the user_prompt).
func auggieStdin(f Fire) []byte {
	p := decode(f.Payload)
	conv := firstStr(p, "conversation_id", "session_id")
	if conv == "" {
		conv = f.Frame.SessionID
	}
	roots, ok := p["workspace_roots"].([]any)
	if !ok {
		cwd := firstStr(p, "cwd")
		if cwd == "" {
			cwd = f.Frame.Cwd
		}
		roots = []any{cwd}
	}
	ev := f.Event
	if f.Canonical == "UserPromptSubmit" {
		ev = "PromptSubmit"
	}
	out := object{"hook_event_name": ev, "conversation_id": conv, "workspace_roots": roots}
	switch f.Canonical {
	case "PreToolUse", "PostToolUse":
		out["tool_name"] = spellTool(vocab.Auggie, str(p, "tool_name"))
		out["tool_input"] = obj(p, "tool_input")
		if f.Canonical == "PreToolUse" {
			out["tool_output"] = "[undefined]" // auggie's serializer spells the missing output so
		} else if o, ok := p["tool_output"]; ok {
			out["tool_output"] = o
		} else {
			out["tool_output"] = jsonText(p["tool_response"])
		}
		out["tool_error"] = p["tool_error"]
		mcp, _ := p["is_mcp_tool"].(bool)
		if _, _, ok := mcpParts(str(p, "tool_name")); ok {
			mcp = true
		}
		out["is_mcp_tool"] = mcp
		if fc, ok := p["file_changes"]; ok {
			out["file_changes"] = fc
		}
	case "UserPromptSubmit":
		if u := firstStr(p, "user_prompt", "prompt"); u != "" {
			out["user_prompt"] = u
		}
	case "Stop":
		cause := str(p, "agent_stop_cause")
		if cause == "" {
			cause = "end_turn"
		}
		out["agent_stop_cause"] = cause
		if x, ok := p["_exchange"]; ok {
			out["_exchange"] = x // auggie's own record of the turn, when auggie fired the Stop (through the dispatcher)
		}
	case "Notification":
		out["notification_type"] = firstStr(p, "notification_type")
		out["notification_message"] = firstStr(p, "notification_message", "message")
	}
	return encode(out)
}

// auggieAnswer reads a hook's answer as auggie 0.36.0 does (its HookExecutor and the agent
// loop that uses the result):
//
//   - Only PreToolUse and PostToolUse answers change anything. SessionStart, PromptSubmit
//     and Stop hooks are fired and their results dropped (no block, no context, no
//     continuation); SessionEnd and Notification read nothing either. A failing hook there
//     stays a (non-blocking) failure.
//   - PreToolUse: exit 2 blocks the call (stderr, else a JSON permissionDecisionReason,
//     is the model's reason); on exit 0, hookSpecificOutput.permissionDecision deny blocks
//     with its reason, continue:false blocks the call (the run goes on), ask and allow run
//     it, and updatedInput replaces the whole tool input whatever the decision. The
//     top-level decision is not read. Any other exit status runs the call.
//   - PostToolUse: exit 2's stderr, and on exit 0 the top-level or hookSpecificOutput
//     additionalContext, are appended to the tool result for the model ("[Hook Context]");
//     a decision block (its reason included) and continue:false change nothing.
//   - JSON that fails auggie's schema (an unknown permissionDecision, a hookEventName
//     it does not have) is read as plain text: no answer.
func auggieAnswer(event string, exit int, stdout []byte) (int, []byte) {
	switch event {
	case "PreToolUse", "PostToolUse":
	default:
		if exit != 0 {
			return 1, nil
		}
		return 0, nil
	}
	m := auggieParse(stdout)
	if exit == 2 {
		return 2, nil
	}
	if exit != 0 || m == nil {
		if exit != 0 {
			return 1, nil
		}
		return 0, nil
	}
	hs := obj(m, "hookSpecificOutput")
	out := object{}
	if event == "PreToolUse" {
		spec := object{"hookEventName": event}
		if u, ok := hs["updatedInput"].(object); ok && str(hs, "hookEventName") == "PreToolUse" {
			spec["updatedInput"] = u
		}
		deny := str(hs, "hookEventName") == "PreToolUse" && str(hs, "permissionDecision") == "deny"
		if c, ok := m["continue"].(bool); ok && !c {
			deny = true
		}
		if deny {
			spec["permissionDecision"] = "deny"
			reason := str(hs, "permissionDecisionReason")
			if reason == "" {
				reason = "Blocked by hook"
			}
			spec["permissionDecisionReason"] = reason
			delete(spec, "updatedInput")
		}
		if len(spec) > 1 {
			out["hookSpecificOutput"] = spec
		}
		return 0, canonicalAnswer(out)
	}
	// auggie routes the context — hookSpecificOutput's in place of the top-level one — to the
	// model. A decision block's reason does not reach it: auggie reads the reason only from a
	// result that stops, which a PostToolUse block never is (live: post_decision_block_reason).
	var context []string
	ctx := str(m, "additionalContext")
	if str(hs, "hookEventName") == "PostToolUse" {
		if c := str(hs, "additionalContext"); c != "" {
			ctx = c
		}
	}
	if ctx != "" {
		context = append(context, ctx)
	}
	if len(context) > 0 {
		out["hookSpecificOutput"] = object{"hookEventName": event, "additionalContext": strings.Join(context, "\n")}
	}
	return 0, canonicalAnswer(out)
}

// auggieParse reads stdout as auggie's JSON answer: an object whose known fields have the
// types auggie's schema wants (continue a boolean; the texts strings; hookSpecificOutput an
// object whose hookEventName is one of auggie's, with PreToolUse's permissionDecision allow,
// deny or ask and updatedInput an object, and PostToolUse's and Stop's decision "block").
// Anything else is nil: auggie reads it as plain text.
func auggieParse(stdout []byte) object {
	m := parseAnswer(stdout)
	if m == nil {
		return nil
	}
	if c, ok := m["continue"]; ok {
		if _, isBool := c.(bool); !isBool {
			return nil
		}
	}
	for _, k := range []string{"stopReason", "systemMessage", "additionalContext"} {
		if x, ok := m[k]; ok {
			if _, isStr := x.(string); !isStr {
				return nil
			}
		}
	}
	if x, ok := m["suppressOutput"]; ok {
		if _, isBool := x.(bool); !isBool {
			return nil
		}
	}
	raw, ok := m["hookSpecificOutput"]
	if !ok {
		return m
	}
	hs, isObj := raw.(object)
	if !isObj {
		return nil
	}
	strField := func(k string, allowed ...string) bool {
		x, ok := hs[k]
		if !ok {
			return true
		}
		s, isStr := x.(string)
		if !isStr {
			return false
		}
		if len(allowed) == 0 {
			return true
		}
		for _, a := range allowed {
			if s == a {
				return true
			}
		}
		return false
	}
	valid := false
	switch str(hs, "hookEventName") {
	case "PreToolUse":
		valid = strField("permissionDecision", "allow", "deny", "ask") && strField("permissionDecisionReason")
		if u, ok := hs["updatedInput"]; ok {
			if _, isObj := u.(object); !isObj {
				valid = false
			}
		}
	case "PostToolUse":
		valid = strField("decision", "block") && strField("reason") && strField("additionalContext")
	case "Stop":
		valid = strField("decision", "block") && strField("reason")
	case "SessionStart":
		valid = strField("additionalContext")
	case "SessionEnd", "Notification":
		valid = true
	}
	if !valid {
		return nil
	}
	return m
}
