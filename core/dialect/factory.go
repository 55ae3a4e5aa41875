package dialect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Factory is Factory Droid's hooks (docs.factory.ai/reference/hooks-reference), as the
// binary reads them (droid 0.225.2, tests/live/droid): Claude Code's events and groups in
// .factory/hooks.json (the events object at its top level) or the "hooks" of
// .factory/settings.json, user and project. Timeouts are seconds (default 60), commands run
// in the project directory and see $FACTORY_PROJECT_DIR, $DROID_PROJECT_DIR and
// $CLAUDE_PROJECT_DIR, and hooks see Claude Code's payload with Droid's tool names
// (Execute, Create, FetchUrl, ...). Matchers are unanchored, case-sensitive regexes;
// a group's commandRegex narrows an Execute group to the commands it matches.
//
// Answers are read as Droid reads them (factoryAnswer), which is not quite Claude Code's:
// JSON is read whatever the exit code, exit 3 ends the run, and the top-level decision is
// read only by Stop.
var Factory = &Dialect{
	Name:              vocab.Factory,
	Unit:              time.Second,
	Timeout:           60 * time.Second,
	Envelope:          payload.Claude,
	CanonicalOnStdin:  true,
	ProjectEnv:        []string{"FACTORY_PROJECT_DIR", "DROID_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
	RegexToolMatchers: true,
	// Droid exports every top-level scalar field of the payload under its own name; the
	// string ones are these (the numbers and booleans are not exported here).
	PayloadEnv: [][2]string{{"session_id", "session_id"}, {"transcript_path", "transcript_path"}, {"cwd", "cwd"},
		{"permission_mode", "permission_mode"}, {"hook_event_name", "hook_event_name"}, {"tool_name", "tool_name"},
		{"message_id", "message_id"}, {"prompt", "prompt"}, {"source", "source"}, {"reason", "reason"},
		{"message", "message"}, {"notification_type", "notification_type"}, {"trigger", "trigger"},
		{"custom_instructions", "custom_instructions"}, {"task_name", "task_name"}, {"task_result", "task_result"},
		{"task_error", "task_error"}, {"previous_session_id", "previous_session_id"}, {"calling_session_id", "calling_session_id"}},
	Detect: func(path string, v *fastjson.Value) bool {
		return claudeShaped(v) && inDir(path, ".factory")
	},
	Load:   loadFactory,
	Stdin:  factoryStdin,
	Answer: factoryAnswer,
}

// loadFactory reads Claude Code's shape as Droid does. A hooks.json holds the events object
// itself ({"PreToolUse": [...]}); Droid reads nothing from one that wraps them in "hooks"
// (an unknown event key to it), and neither does hookexec. In one .factory folder, an
// event that hooks.json lists replaces that event's list of settings.json. A file whose
// hooks fail Droid's schema (a handler that is not {"type": "command", "command": ...}) is
// ignored as a whole, as Droid ignores it.
func loadFactory(p *Reader, data []byte, v *fastjson.Value) error {
	events := v
	if filepath.Base(p.source) == "hooks.json" {
		if v.Get("hooks") != nil {
			p.warn("", `a Droid hooks.json holds the events at its top level; Droid ignores the "hooks" key, so its hooks do not run`)
			return nil
		}
	} else {
		events = v.Get("hooks")
	}
	if events == nil || events.Type() != fastjson.TypeObject {
		return loadClaudeShape(p, data, v)
	}
	if why, policy := factorySchema(events); why != "" {
		if !policy {
			p.warn("", "Droid ignores every hook of this file: %s", why)
			return nil
		}
		// hookexec's own handler type runs whatever the agent (Accepts); Droid itself
		// refuses the file, so it works only where hookexec runs the hooks.
		p.warn("", "Droid itself ignores every hook of this file (%s); only hookexec runs them", why)
	}
	var a fastjson.Arena
	w := a.NewObject()
	kept := a.NewObject()
	shadowed := factoryShadowed(p.source)
	events.GetObject().Visit(func(k []byte, x *fastjson.Value) {
		if shadowed[string(k)] {
			p.warn("", "%s: the hooks.json beside this file lists the event, which replaces this list in Droid", k)
			return
		}
		kept.Set(string(k), x)
	})
	w.Set("hooks", kept)
	return loadClaudeShape(p, data, w)
}

// factorySchema says why Droid's settings schema refuses an events object ("" when it
// takes it): each known event is a list of groups, a group's matcher and commandRegex are
// strings and its hooks a list of {"type": "command", "command": string, "timeout":
// number}. policy says the only trouble is hookexec's own policy handlers.
func factorySchema(events *fastjson.Value) (why string, policy bool) {
	policy = true
	events.GetObject().Visit(func(k []byte, list *fastjson.Value) {
		if _, known := vocab.EventOf(vocab.Factory, string(k)); !known || (why != "" && !policy) {
			return // Droid drops unknown keys
		}
		groups, err := list.Array()
		if err != nil {
			why = fmt.Sprintf("%s is %s, not a list", k, list.Type())
			policy = false
			return
		}
		for _, g := range groups {
			for _, key := range []string{"matcher", "commandRegex"} {
				if m := g.Get(key); m != nil && m.Type() != fastjson.TypeString {
					why = fmt.Sprintf("a %s group's %s is %s, not a string", k, key, m.Type())
					policy = false
					return
				}
			}
			inner := g.Get("hooks")
			if inner == nil || inner.Type() != fastjson.TypeArray {
				why = fmt.Sprintf("a %s group has no list of hooks", k)
				policy = false
				return
			}
			for _, h := range inner.GetArray() {
				if string(h.GetStringBytes("type")) == "policy" {
					if why == "" {
						why = fmt.Sprintf("a %s handler is of hookexec's type policy", k)
					}
					continue
				}
				if string(h.GetStringBytes("type")) != "command" || h.Get("command") == nil || h.Get("command").Type() != fastjson.TypeString {
					why = fmt.Sprintf(`a %s handler is not {"type": "command", "command": "..."}`, k)
					policy = false
					return
				}
				if t := h.Get("timeout"); t != nil && t.Type() != fastjson.TypeNumber {
					why = fmt.Sprintf("a %s handler's timeout is %s, not a number", k, t.Type())
					policy = false
					return
				}
			}
		}
	})
	if why == "" {
		policy = false
	}
	return why, policy
}

// factoryRefused says whether Droid reads no hooks from an events object.
func factoryRefused(events *fastjson.Value) bool {
	why, _ := factorySchema(events)
	return why != ""
}

// factoryShadowed lists the events that the hooks.json of settings.json's folder (or, when
// it has none, the legacy hooks/hooks.json) lists: Droid merges the two per event, the
// hooks file winning. Nothing for any other file.
func factoryShadowed(path string) map[string]bool {
	if filepath.Base(path) != "settings.json" {
		return nil
	}
	dir := filepath.Dir(path)
	data, err := os.ReadFile(filepath.Join(dir, "hooks.json"))
	if errors.Is(err, fs.ErrNotExist) {
		data, err = os.ReadFile(filepath.Join(dir, "hooks", "hooks.json"))
	}
	if err != nil {
		return nil
	}
	v, err := fastjson.ParseBytes(data)
	if err != nil || v.Type() != fastjson.TypeObject || v.Get("hooks") != nil || factoryRefused(v) {
		return nil // Droid reads no hooks from it, so it replaces nothing
	}
	out := map[string]bool{}
	v.GetObject().Visit(func(k []byte, _ *fastjson.Value) { out[string(k)] = true })
	return out
}

// FactoryHooksEvents lists the events a hooks.json's text gives Droid (its top-level keys),
// which replace the same events of settings.json beside it; nil when Droid reads no hooks
// from it (not an object, a "hooks" key, refused by its schema).
func FactoryHooksEvents(data []byte) map[string]bool {
	v, err := fastjson.ParseBytes(data)
	if err != nil || v.Type() != fastjson.TypeObject || v.Get("hooks") != nil || factoryRefused(v) {
		return nil
	}
	out := map[string]bool{}
	v.GetObject().Visit(func(k []byte, _ *fastjson.Value) { out[string(k)] = true })
	return out
}

// factoryStdin is Claude Code's envelope with Droid's tool names.
func factoryStdin(f Fire) []byte {
	p := decode(f.Payload)
	out := object{"session_id": f.Frame.SessionID, "transcript_path": f.Frame.TranscriptPath, "cwd": f.Frame.Cwd, "hook_event_name": f.Canonical}
	for k, v := range p {
		out[k] = v
	}
	if t := str(p, "tool_name"); t != "" {
		out["tool_name"] = spellTool(vocab.Factory, t)
	}
	return encode(out)
}

// factoryAnswer reads a hook's answer as droid 0.225.2 does (its hook runner parses stdout
// that starts with "{" whatever the exit code, and each event reads its own fields):
//
//   - exit 3 ends the run on PreToolUse, PostToolUse, Stop and UserPromptSubmit, and
//     continue:false does on those events too;
//   - PreToolUse reads hookSpecificOutput.permissionDecision allow or deny (ask is only
//     logged; hookexec keeps it an ask, the stricter answer), its reason and updatedInput, and exit 2; a JSON deny holds on any exit code
//     (here a deny with a failing exit blocks as exit 2 does, with stderr as the reason);
//     the top-level decision is not read;
//   - PostToolUse reads additionalContext and exit 2 (stderr to the model), not decision;
//   - Stop reads decision block only with a reason, and exit 2 only when no hook said block;
//   - UserPromptSubmit reads exit 2 and additionalContext (or plain stdout), not decision;
//   - SessionStart reads only additionalContext (or plain stdout); SessionEnd,
//     Notification and SubagentStop read nothing; PreCompact is blocked by exit 2 or 3.
func factoryAnswer(event string, exit int, stdout []byte) (int, []byte) {
	m := parseAnswer(stdout)
	stops := event == "PreToolUse" || event == "PostToolUse" || event == "Stop" || event == "UserPromptSubmit"
	out := object{}
	if m != nil {
		if c, ok := m["continue"].(bool); ok && !c && stops {
			out["continue"] = false
			if r := str(m, "stopReason"); r != "" {
				out["stopReason"] = r
			}
		}
		if s := str(m, "systemMessage"); s != "" && event != "SessionStart" {
			out["systemMessage"] = s
		}
		hs := obj(m, "hookSpecificOutput")
		switch event {
		case "PreToolUse":
			spec := object{"hookEventName": event}
			switch d := str(hs, "permissionDecision"); d {
			case "ask":
				// Droid only logs an ask and runs the call; hookexec keeps it an ask (stricter:
				// a host that can ask does).
				spec["permissionDecision"] = d
				if r := str(hs, "permissionDecisionReason"); r != "" {
					spec["permissionDecisionReason"] = r
				}
			case "allow", "deny":
				spec["permissionDecision"] = d
				if r := str(hs, "permissionDecisionReason"); r != "" {
					spec["permissionDecisionReason"] = r
				}
				if u, ok := hs["updatedInput"].(object); ok && d == "allow" {
					spec["updatedInput"] = u
				}
			case "":
				if u, ok := hs["updatedInput"].(object); ok {
					spec["updatedInput"] = u
				}
			}
			if len(spec) > 1 {
				out["hookSpecificOutput"] = spec
			}
			if spec["permissionDecision"] == "deny" {
				if exit != 0 {
					// Droid reads the deny on any exit code; a failing exit stays a failure
					// here, one that blocks (its reason is then the hook's stderr).
					return 2, nil
				}
				return 0, canonicalAnswer(out)
			}
		case "PostToolUse", "UserPromptSubmit", "SessionStart":
			if c := str(hs, "additionalContext"); c != "" && (event != "SessionStart" || exit == 0) {
				out["hookSpecificOutput"] = object{"hookEventName": event, "additionalContext": c}
			}
		case "Stop":
			if str(m, "decision") == "block" {
				if r := str(m, "reason"); r != "" {
					out["decision"], out["reason"] = "block", r
				}
				exit = 0 // a block decision, even one without a reason, hides exit 2
			}
		}
	}
	switch {
	case exit == 3 && stops:
		out["continue"] = false
		if _, ok := out["stopReason"]; !ok {
			out["stopReason"] = "ended by a Droid hook (exit status 3)"
		}
		return 0, canonicalAnswer(out)
	case exit == 3 && event == "PreCompact":
		return 2, nil
	case exit == 2:
		return 2, nil
	case exit != 0:
		// Droid would still read the JSON of a failing hook (an updatedInput, a stop); a
		// failure stays a failure here, and reads as one.
		return exit, nil
	case m == nil:
		return 0, malformed(stdout) // plain text: context on SessionStart and UserPromptSubmit
	}
	return 0, canonicalAnswer(out)
}
