package dialect

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Antigravity is Google's Antigravity CLI (agy) hooks.json, read from the hooks reference
// the Antigravity harness itself embeds (the localharness binary of the google-antigravity
// 0.1.22 wheel on PyPI; docs/agents/antigravity.md): a hooks.json in a customization root
// (.agents/, .agent/, _agents/ or _agent/ of the project, ~/.gemini/config/) whose
// top-level keys name hooks, each {"enabled": bool, <Event>: [...]}. PreToolUse and
// PostToolUse hold groups {"matcher", "hooks": [handlers]}, the other events handlers
// directly; a handler is {"type": "command", "command", "timeout"} (seconds, default 30),
// run with sh -c in the directory holding hooks.json. The matcher is the tool name
// (run_command, view_file): "" and "*" match every tool, "a|b" either, a regexp like
// "browser_.*" the names it matches whole.
//
// Hooks see a camelCase payload ({"toolCall": {"name", "args"}, "stepIdx", common
// conversationId, workspacePaths, transcriptPath, artifactDirectoryPath, modelName}) and
// answer on stdout. PreToolUse fails closed: "decision" (allow, deny, ask, force_ask) is
// required, and an answer without one, a non-JSON answer or a failed hook denies the call;
// silence lets it run. "overwrite" is a shallow patch of the tool's arguments. Stop's
// {"decision": "continue", "reason"} keeps the agent going. SessionStart's "injectSteps"
// add messages to the conversation.
var Antigravity = &Dialect{
	Name:     vocab.Antigravity,
	Unit:     time.Second,
	Timeout:  30 * time.Second,
	Envelope: payload.Claude,
	// The hook sees the tool as Antigravity spells it, and the matcher tests that spelling.
	SpellsTools: true,
	// "Multiple named hooks ... for the same event type are merged and executed sequentially."
	Sequential: true,
	Detect: func(path string, v *fastjson.Value) bool {
		if v == nil || baseName(path) != "hooks.json" || v.Get("hooks") != nil {
			return false
		}
		if !inDir(path, ".agents") && !inDir(path, ".agent") && !inDir(path, "_agents") && !inDir(path, "_agent") && !inDir(path, "config") {
			return false
		}
		o, err := v.Object()
		if err != nil || o.Len() == 0 {
			return false
		}
		named := true
		o.Visit(func(_ []byte, spec *fastjson.Value) { named = named && spec.Type() == fastjson.TypeObject })
		return named
	},
	Load:   loadAntigravity,
	Stdin:  antigravityStdin,
	Answer: antigravityAnswer,
}

// antigravityGrouped are the events whose handlers sit in matcher groups.
var antigravityGrouped = map[string]bool{"PreToolUse": true, "PostToolUse": true}

var antigravityHandlerKeys = keySet(append([]string{"type", "command", "timeout"}, policyKeys...)...)

func loadAntigravity(p *Reader, _ []byte, v *fastjson.Value) error {
	top, err := v.Object()
	if err != nil {
		return fmt.Errorf("hooks.json is %s, want an object keyed by hook name", v.Type())
	}
	defer func() { p.at = "" }()
	top.Visit(func(k []byte, spec *fastjson.Value) {
		name := string(k)
		p.at = name
		if spec.Type() != fastjson.TypeObject {
			p.skip("hook %q is %s, want an object of events", name, spec.Type())
			return
		}
		enabled := true
		if e := spec.Get("enabled"); e != nil {
			enabled = p.boolean(name, "enabled", spec)
		}
		events, _ := spec.Object()
		events.Visit(func(ek []byte, list *fastjson.Value) {
			evName := string(ek)
			if evName == "enabled" {
				return
			}
			where := name + "." + evName
			p.at = where
			items, err := list.Array()
			if err != nil {
				p.skip("%s is %s, want an array", where, list.Type())
				return
			}
			for i, item := range items {
				at := fmt.Sprintf("%s[%d]", where, i)
				if item.Type() != fastjson.TypeObject {
					p.skip("%s is %s, want an object", at, item.Type())
					continue
				}
				if !antigravityGrouped[evName] {
					p.antigravityHandler(name, evName, at, item, "", enabled)
					continue
				}
				matcher := ""
				if m := item.Get("matcher"); m != nil {
					matcher = p.str(at, "matcher", m)
				}
				p.unknownKeys(at, item, keySet("matcher", "hooks"))
				handlers, err := item.Get("hooks").Array()
				if item.Get("hooks") == nil || err != nil {
					p.skip("%s needs \"hooks\", an array of handlers (PreToolUse and PostToolUse group them under a matcher)", at)
					continue
				}
				for j, hv := range handlers {
					hat := fmt.Sprintf("%s.hooks[%d]", at, j)
					if hv.Type() != fastjson.TypeObject {
						p.skip("%s is %s, want an object", hat, hv.Type())
						continue
					}
					p.antigravityHandler(name, evName, hat, hv, matcher, enabled)
				}
			}
		})
	})
	return nil
}

// antigravityHandler reads one handler of the named hook on evName.
func (p *Reader) antigravityHandler(hookName, evName, where string, v *fastjson.Value, matcher string, enabled bool) {
	e, known := vocab.EventOf(vocab.Antigravity, evName)
	h := Hook{Event: e.Canonical, Spelling: evName, Type: "command", Name: hookName}
	problem := ""
	switch why, unmapped := vocab.UnmappedEvents[vocab.Antigravity+" "+evName]; {
	case unmapped:
		h.Event = evName
		problem = fmt.Sprintf("Antigravity event %q has no canonical counterpart (%s); the hook never runs", evName, why)
	case !known:
		h.Event = evName
		problem = fmt.Sprintf("unknown Antigravity event %q (known: %s, PreInvocation, PostInvocation)", evName, strings.Join(eventNames(vocab.Antigravity), ", "))
	}
	p.unknownKeys(where, v, antigravityHandlerKeys)
	if t := p.optStr(where, "type", v); t != "" {
		h.Type = t
	}
	switch h.Type {
	case "command":
		h.Command = p.optStr(where, "command", v)
		p.requireCommand(&h, where)
	case "policy":
		p.policyFields(where, where, v, &h)
	default:
		p.disable(&h, where, "unknown type %q (Antigravity runs commands only; hookexec adds policy)", h.Type)
	}
	p.seconds(&h, where, "timeout", v)
	h.Matcher, h.RegexMatcher = antigravityMatcher(matcher)
	if !enabled {
		p.disable(&h, where, "hook %q is disabled (\"enabled\": false)", hookName)
	}
	if h.Event == "PreToolUse" {
		// Antigravity denies the call when a PreToolUse hook fails, times out or answers
		// what it cannot read.
		h.FailClosed = true
	}
	p.add(&h, where, event.Lookup(h.Event), problem)
}

// antigravityMatcher turns Antigravity's matcher into hookexec's: "" and "*" match all;
// a name or names joined by "|" (the reference writes it `\|`) are exact; anything else
// is a regexp matched against the whole tool name.
func antigravityMatcher(m string) (string, bool) {
	m = strings.TrimSpace(m)
	if m == "" || m == "*" {
		return "", false
	}
	m = strings.ReplaceAll(m, `\|`, "|")
	if literalNames.MatchString(m) {
		return m, false
	}
	return "^(" + m + ")$", true
}

var literalNames = regexp.MustCompile(`^[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*$`)

// antigravityStdin is Antigravity's camelCase payload.
func antigravityStdin(f Fire) []byte {
	p := decode(f.Payload)
	cwd := firstStr(p, "cwd")
	if cwd == "" {
		cwd = f.Frame.Cwd
	}
	out := object{
		"conversationId":        orDefault(firstStr(p, "session_id"), f.Frame.SessionID),
		"workspacePaths":        []any{cwd},
		"transcriptPath":        orDefault(firstStr(p, "transcript_path"), f.Frame.TranscriptPath),
		"artifactDirectoryPath": "",
		"modelName":             "",
	}
	switch f.Event {
	case "PreToolUse", "PostToolUse":
		tool := spellTool(vocab.Antigravity, str(p, "tool_name"))
		out["toolCall"] = object{"name": tool, "args": vocab.SpellArgs(vocab.Antigravity, tool, obj(p, "tool_input"))}
		out["stepIdx"] = 0
		if f.Event == "PostToolUse" {
			if e := firstStr(p, "error"); e != "" {
				out["error"] = e
			}
		}
	case "Stop":
		out["executionNum"] = 1
		out["terminationReason"] = "NO_TOOL_CALL"
		out["fullyIdle"] = true
	}
	return encode(out)
}

// antigravityAnswer reads Antigravity's answers into Claude Code's words. PreToolUse: a
// failed hook, an answer that is not a JSON object, and one without a decision deny (as
// Antigravity does); allow, deny, ask and force_ask (an ask) are the decision with its
// reason; overwrite is a shallow patch (modified_args). Stop: decision "continue" is a
// block that keeps the agent going, its reason for the model. SessionStart: injectSteps'
// messages are context. Silence is no answer everywhere.
func antigravityAnswer(event string, exit int, stdout []byte) (int, []byte) {
	silent := len(strings.TrimSpace(string(stdout))) == 0
	m := parseAnswer(stdout)
	if event != "PreToolUse" {
		if m == nil {
			return exit, malformed(stdout)
		}
		out := object{}
		switch event {
		case "Stop":
			if str(m, "decision") == "continue" {
				out["decision"], out["reason"] = "block", orDefault(str(m, "reason"), "a Stop hook asked to continue")
			}
		case "SessionStart":
			if ctx := injectedText(m["injectSteps"]); ctx != "" {
				out["additionalContext"] = ctx
			}
		}
		return exit, canonicalAnswer(out)
	}
	switch {
	case exit != 0:
		return 0, canonicalAnswer(object{"decision": "deny", "reason": fmt.Sprintf("the PreToolUse hook exited %d: Antigravity denies the call", exit)})
	case silent:
		return 0, nil
	case m == nil:
		return 0, canonicalAnswer(object{"decision": "deny", "reason": "the PreToolUse hook's answer is not a JSON object: Antigravity denies the call"})
	}
	out := object{}
	reason := str(m, "reason")
	switch d := str(m, "decision"); d {
	case "allow":
		out["decision"] = "allow"
	case "deny":
		out["decision"], out["reason"] = "deny", orDefault(reason, "denied by hook")
		return 0, canonicalAnswer(out)
	case "ask", "force_ask":
		out["decision"] = "ask"
		if reason != "" {
			out["reason"] = reason
		}
	case "":
		return 0, canonicalAnswer(object{"decision": "deny", "reason": "the PreToolUse hook answered without a decision: Antigravity denies the call"})
	default:
		return 0, canonicalAnswer(object{"decision": "deny", "reason": fmt.Sprintf("the PreToolUse hook answered decision %q, which Antigravity does not know: it denies the call", d)})
	}
	if ow, ok := m["overwrite"].(object); ok {
		out["modified_args"] = vocab.CanonicalArgs(vocab.Antigravity, "", ow)
	}
	return 0, canonicalAnswer(out)
}

// injectedText is the text of injectSteps: each step's userMessage, ephemeralMessage or
// systemMessage.systemMessage, one per line.
func injectedText(v any) string {
	steps, _ := v.([]any)
	var parts []string
	for _, s := range steps {
		step, _ := s.(object)
		for _, k := range []string{"userMessage", "ephemeralMessage"} {
			if t := str(step, k); t != "" {
				parts = append(parts, t)
			}
		}
		if t := str(obj(step, "systemMessage"), "systemMessage"); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}
