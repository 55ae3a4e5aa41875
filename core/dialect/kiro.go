package dialect

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Kiro is Kiro's agent hooks, one per file in .kiro/hooks/ (*.kiro.hook or *.json;
// kiro.dev/docs/hooks): {"enabled", "name", "description", "version", "when": {"type",
// "patterns", "toolTypes"}, "then": {"type": "runCommand", "command", "timeout"} or
// {"type": "askAgent", "prompt"}}. Triggers (promptSubmit, agentStop, preToolUse,
// postToolUse, fileEdited, fileCreated, fileDeleted) map to canonical events; toolTypes
// (read, write, shell, web, @mcp, tool names) to a tool matcher; file patterns to a path
// filter. runCommand runs the command (timeout in seconds, default 60): exit 0 hands its
// stdout to the agent, exit 2 blocks a preToolUse or promptSubmit with stderr, and output
// is never read as JSON. askAgent hands its prompt to the agent as context; nothing runs.
var Kiro = &Dialect{
	Name:     vocab.Kiro,
	Unit:     time.Second,
	Timeout:  60 * time.Second,
	Envelope: payload.Claude,
	Types:    []string{"askAgent"},
	// Kiro's promptSubmit shell commands read the prompt from $USER_PROMPT.
	PayloadEnv: [][2]string{{"USER_PROMPT", "prompt"}},
	Detect: func(path string, v *fastjson.Value) bool {
		return v != nil && (hasSuffix(path, ".kiro.hook") || v.Exists("when") && v.Exists("then"))
	},
	Load:   loadKiro,
	Stdin:  kiroStdin,
	Answer: kiroAnswer,
}

// kiroFileEvents are the FileChanged kinds of Kiro's file triggers.
var kiroFileEvents = map[string]string{"fileCreated": "add", "fileEdited": "change", "fileDeleted": "unlink"}

// kiroToolTypes are the categories a preToolUse/postToolUse hook's toolTypes may name.
var kiroToolTypes = map[string]string{
	"read":  "Read|Glob|Grep|LS",
	"write": "Edit|Write|MultiEdit|NotebookEdit",
	"shell": "Bash",
	"web":   "WebFetch|WebSearch",
	"@mcp":  "mcp__.*",
	"*":     ".*",
}

func loadKiro(p *Reader, _ []byte, v *fastjson.Value) error {
	p.unknownKeys("", v, keySet("enabled", "name", "description", "version", "when", "then", "shortName"))
	h := Hook{Type: "command"}
	h.Name = p.optStr("", "name", v)
	h.Description = p.optStr("", "description", v)
	label := h.Name
	if label == "" {
		label = p.source
	}
	when, then := v.Get("when"), v.Get("then")
	if when == nil || when.Type() != fastjson.TypeObject || then == nil || then.Type() != fastjson.TypeObject {
		return fmt.Errorf("a Kiro hook needs a \"when\" object and a \"then\" object")
	}
	p.unknownKeys("when", when, keySet("type", "patterns", "toolTypes"))
	p.unknownKeys("then", then, keySet(append([]string{"type", "command", "prompt", "timeout"}, policyKeys...)...))
	trigger := p.optStr("when", "type", when)
	if trigger == "" {
		return fmt.Errorf("a Kiro hook needs when.type (one of %s)", strings.Join(eventNames(vocab.Kiro), ", "))
	}
	e, known := vocab.EventOf(vocab.Kiro, trigger)
	h.Event, h.Spelling = e.Canonical, trigger
	problem := ""
	if why, unmapped := vocab.UnmappedEvents["kiro "+trigger]; unmapped {
		h.Event, problem = trigger, fmt.Sprintf("kiro trigger %q has no canonical counterpart (%s); the hook never runs", trigger, why)
	} else if !known {
		h.Event, problem = trigger, fmt.Sprintf("unknown Kiro trigger %q (known: %s)", trigger, strings.Join(eventNames(vocab.Kiro), ", "))
	}
	if kind, ok := kiroFileEvents[trigger]; ok {
		h.FileEvents = []string{kind}
	}
	if pats := when.Get("patterns"); pats != nil {
		h.FilterPaths = p.strings("when", "patterns", pats)
	}
	if tt := when.Get("toolTypes"); tt != nil {
		var alts []string
		for _, t := range p.strings("when", "toolTypes", tt) {
			if m, ok := kiroToolTypes[t]; ok {
				alts = append(alts, m)
			} else {
				alts = append(alts, t) // a tool name or pattern, as Kiro allows
			}
		}
		if len(alts) > 0 {
			h.Matcher, h.RegexMatcher = "^("+strings.Join(alts, "|")+")$", true
		}
	} else if trigger == "preToolUse" || trigger == "postToolUse" {
		p.disable(&h, label, "when.toolTypes is required on %s (Kiro)", trigger)
	}
	switch t := p.optStr("then", "type", then); t {
	case "runCommand":
		h.Command = p.optStr("then", "command", then)
		p.seconds(&h, label, "timeout", then)
		p.requireCommand(&h, label)
	case "policy":
		// hookexec's policy handler, in Kiro's "then" object.
		h.Type = "policy"
		p.seconds(&h, label, "timeout", then)
		p.at = "then"
		p.policyFields("then", label, then, &h)
		p.at = ""
	case "askAgent":
		h.Type = "askAgent"
		h.Prompt = p.optStr("then", "prompt", then)
		if strings.TrimSpace(h.Prompt) == "" {
			p.disable(&h, label, "askAgent needs a non-empty prompt")
		}
	default:
		p.disable(&h, label, "then.type %q is not runCommand, askAgent or policy", t)
	}
	if en := v.Get("enabled"); en != nil && !p.boolean("", "enabled", en) && h.Disabled == "" {
		h.Disabled = "enabled is false"
	}
	h.Name = label
	p.add(&h, "", event.Lookup(h.Event), problem)
	return nil
}

// kiroStdin is Kiro CLI's hook input: hook_event_name as Kiro spells it, cwd, and the
// tool's name (Kiro's spelling), input and response.
func kiroStdin(f Fire) []byte {
	p := decode(f.Payload)
	out := object{"hook_event_name": f.Event, "cwd": f.Frame.Cwd, "session_id": f.Frame.SessionID}
	for k, v := range p {
		out[k] = v
	}
	if t := str(p, "tool_name"); t != "" {
		out["tool_name"] = spellTool(vocab.Kiro, t)
	}
	if f.Event == "promptSubmit" || f.Event == "userPromptSubmit" {
		out["user_prompt"] = p["prompt"]
	}
	return encode(out)
}

// kiroAnswer: stdout is text for the agent, never JSON; exit 2 blocks with stderr.
func kiroAnswer(_ string, exit int, stdout []byte) (int, []byte) {
	text := bytes.TrimSpace(stdout)
	if exit != 0 || len(text) == 0 {
		return exit, nil
	}
	return exit, encode(object{"additionalContext": string(text)})
}
