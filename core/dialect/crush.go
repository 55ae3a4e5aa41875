package dialect

import (
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Crush is charmbracelet/crush's hooks, read from its source (internal/hooks,
// docs/hooks/README.md at v0.90; docs/agents/crush.md): the "hooks" of crush.json or
// .crush.json in the project and of ~/.config/crush/crush.json, keyed by event, each entry
// a flat handler {"name", "matcher", "command", "timeout"}. Crush has one event,
// PreToolUse, whose name it matches case-insensitively and snake-cased (pre_tool_use). The
// matcher is a Go regexp tested against Crush's tool name (bash, edit, view, ...),
// unanchored; an entry without one runs for every tool. Timeouts are seconds (default 30);
// a hook that times out or fails has no opinion. The hooks of a call run in parallel and
// their answers compose in file order: deny wins over allow, reasons and context join.
//
// A hook sees {event, session_id, cwd, tool_name, tool_input} and CRUSH_* variables, and
// answers with its exit status (2 blocks the call, 49 halts the turn, stderr the reason;
// other failures are ignored) or, on exit 0, with {"decision": "allow"|"deny", "halt",
// "reason", "context", "updated_input"} — updated_input a shallow patch of the tool input —
// or Claude Code's hookSpecificOutput (permissionDecision, updatedInput, additionalContext).
var Crush = &Dialect{
	Name:     vocab.Crush,
	Unit:     time.Second,
	Timeout:  30 * time.Second,
	Envelope: payload.Claude,
	// The hook sees the tool as Crush spells it, and the matcher tests that spelling.
	SpellsTools:       true,
	RegexToolMatchers: true,
	HaltExit:          49,
	ToolEnv:           "CRUSH_TOOL_NAME",
	ProjectEnv:        []string{"CRUSH_PROJECT_DIR"},
	Env:               []string{"CRUSH=1", "AGENT=crush", "AI_AGENT=crush", "CRUSH_EVENT=PreToolUse"},
	PayloadEnv: [][2]string{
		{"CRUSH_SESSION_ID", "session_id"}, {"CRUSH_CWD", "cwd"},
		{"CRUSH_TOOL_INPUT_COMMAND", "tool_input.command"}, {"CRUSH_TOOL_INPUT_FILE_PATH", "tool_input.file_path"},
	},
	Detect: func(path string, v *fastjson.Value) bool {
		base := strings.TrimPrefix(baseName(path), ".")
		return v != nil && base == "crush.json"
	},
	Load:   loadCrush,
	Stdin:  crushStdin,
	Answer: crushAnswer,
}

var crushKeys = keySet(append([]string{"name", "matcher", "command", "timeout", "type"}, policyKeys...)...)

// loadCrush reads crush.json's hooks. Keys other than "hooks" are Crush's own settings
// (providers, lsp, mcp, options): they are not hooks and are not reported.
func loadCrush(p *Reader, _ []byte, v *fastjson.Value) error {
	obj := p.hooksObject(v)
	if obj == nil {
		return nil
	}
	// Crush matches event names case-insensitively and snake-cased: read each key as the
	// event it names (PRE_TOOL_USE is PreToolUse), keeping the rest as written.
	var a fastjson.Arena
	named := a.NewObject()
	obj.Visit(func(k []byte, list *fastjson.Value) {
		name := string(k)
		if crushEventKey(name) == crushEventKey("PreToolUse") {
			name = "PreToolUse"
		}
		if prev := named.Get(name); prev != nil && name == "PreToolUse" {
			// Two spellings of one event: Crush appends both lists.
			merged := a.NewArray()
			i := 0
			for _, list := range []*fastjson.Value{prev, list} {
				items, _ := list.Array()
				for _, item := range items {
					merged.SetArrayItem(i, item)
					i++
				}
			}
			list = merged
		}
		named.Set(name, list)
	})
	top := a.NewObject()
	top.Set("hooks", named)
	p.loadEventLists(top, vocab.Crush, keySet("hooks"), func(where string, item *fastjson.Value, h *Hook) {
		h.Name = p.optStr(where, "name", item)
		label := where
		if h.Name != "" {
			label = h.Name
		}
		p.unknownKeys(where, item, crushKeys)
		if t := p.optStr(where, "type", item); t != "" {
			h.Type = t
		}
		switch h.Type {
		case "command":
			h.Command = p.optStr(where, "command", item)
			p.requireCommand(h, label)
		case "policy":
			p.policyFields(where, label, item, h)
		default:
			p.disable(h, label, "unknown type %q (Crush runs commands; hookexec adds policy)", h.Type)
		}
		if m := item.Get("matcher"); m != nil {
			h.Matcher = p.str(where, "matcher", m)
			h.RegexMatcher = true
		}
		p.seconds(h, label, "timeout", item)
	})
	return nil
}

// crushEventKey is an event name as Crush compares them: lower case, underscores dropped.
func crushEventKey(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "_", "")
}

// crushStdin is Crush's payload: the event, session, cwd, tool name as Crush spells it
// and the tool's input as the model sent it.
func crushStdin(f Fire) []byte {
	p := decode(f.Payload)
	session := firstStr(p, "session_id")
	if session == "" {
		session = f.Frame.SessionID
	}
	cwd := firstStr(p, "cwd")
	if cwd == "" {
		cwd = f.Frame.Cwd
	}
	input, ok := p["tool_input"].(object)
	if !ok {
		input = object{}
	}
	return encode(object{
		"event":      "PreToolUse",
		"session_id": session,
		"cwd":        cwd,
		"tool_name":  spellTool(vocab.Crush, str(p, "tool_name")),
		"tool_input": input,
	})
}

// crushAnswer reads Crush's envelope into Claude Code's words: decision allow/deny with
// reason, halt (continue:false, the reason as stopReason), context (a string or a list of
// strings), updated_input (a shallow patch: modified_args). hookSpecificOutput answers are
// read as Crush reads them: permissionDecision, permissionDecisionReason, updatedInput
// (also a patch in Crush), additionalContext; Crush reads nothing else of Claude Code's. Exit
// statuses are the canonical ones (2 blocks), and 49 halts (Dialect.HaltExit).
func crushAnswer(_ string, exit int, stdout []byte) (int, []byte) {
	if exit != 0 {
		return exit, nil // Crush reads no stdout unless the hook exits 0
	}
	m := parseAnswer(stdout)
	if m == nil {
		return 0, nil // Crush: stdout that is not a JSON object is no opinion
	}
	out := object{}
	decision, reason, ctx := "", str(m, "reason"), ""
	var patch any
	if hso, ok := m["hookSpecificOutput"].(object); ok {
		decision, reason, ctx = str(hso, "permissionDecision"), str(hso, "permissionDecisionReason"), str(hso, "additionalContext")
		patch = hso["updatedInput"]
	} else {
		decision, ctx, patch = str(m, "decision"), crushContext(m["context"]), m["updated_input"]
		if h, _ := m["halt"].(bool); h {
			out["continue"] = false
			out["stopReason"] = orDefault(reason, "turn halted by hook")
		}
	}
	switch strings.ToLower(decision) {
	case "deny":
		out["decision"], out["reason"] = "deny", orDefault(reason, "blocked by hook")
	case "allow":
		out["decision"] = "allow"
	}
	if ctx != "" {
		out["additionalContext"] = ctx
	}
	if p, ok := patch.(object); ok && out["decision"] != "deny" && out["continue"] == nil {
		out["modified_args"] = p // ignored by Crush on a deny or a halt
	}
	return 0, canonicalAnswer(out)
}

// crushContext is Crush's context: a string, or strings joined by newlines (empty ones
// dropped); anything else is none.
func crushContext(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, x := range c {
			s, ok := x.(string)
			if !ok {
				return "" // Crush drops a list that is not all strings
			}
			if s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}
