package dialect

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/vocab"
)

// loadEventLists reads the {"hooks": {"<event as agent spells it>": [handler, ...]}} shape
// Cursor, Copilot CLI and Windsurf share. Each event name is resolved through the
// vocabulary: the hook gets the canonical event, the agent's spelling (its stdin names the
// event so), and the tool matcher the event implies (beforeShellExecution: Bash). handler
// reads one entry's own fields into h; top lists the file's known top-level keys.
func (p *Reader) loadEventLists(v *fastjson.Value, agent string, top map[string]bool, handler func(where string, item *fastjson.Value, h *Hook)) {
	p.unknownKeys("", v, top)
	hooks := v.Get("hooks")
	if hooks == nil {
		return
	}
	obj, err := hooks.Object()
	if err != nil {
		p.warn("", "hooks is %s, want an object keyed by event name; ignored", hooks.Type())
		return
	}
	defer func() { p.at = "" }()
	obj.Visit(func(k []byte, list *fastjson.Value) {
		name := string(k)
		p.at = "hooks." + name
		if name == "" {
			p.skip("hooks has an empty event name")
			return
		}
		e, known := vocab.EventOf(agent, name)
		items, err := list.Array()
		if err != nil {
			p.skip("hooks.%s is %s, want an array", name, list.Type())
			return
		}
		for i, item := range items {
			where := fmt.Sprintf("hooks.%s[%d]", name, i)
			p.at = where
			if item.Type() != fastjson.TypeObject {
				p.skip("%s is %s, want an object", where, item.Type())
				continue
			}
			h := Hook{Event: e.Canonical, Spelling: name, Matcher: e.Tools, Type: "command"}
			problem := ""
			switch why, unmapped := vocab.UnmappedEvents[agent+" "+name]; {
			case unmapped:
				h.Event = name
				problem = fmt.Sprintf("%s event %q has no canonical counterpart (%s); the hook never runs", agent, name, why)
			case !known:
				h.Event = name
				problem = fmt.Sprintf("unknown %s event %q (known: %s)", agent, name, strings.Join(eventNames(agent), ", "))
			}
			handler(where, item, &h)
			ev := event.Lookup(h.Event)
			label := h.Name
			if label == "" {
				label = where
			}
			if e.Tools != "" && h.Matcher != e.Tools {
				p.warn(label, "matcher %q is ignored: %s is about %s calls only", h.Matcher, name, e.Tools)
				h.Matcher = e.Tools
			}
			if e.Tools != "" && strings.Contains(e.Tools, ".*") {
				h.RegexMatcher = true
			}
			p.add(&h, where, ev, problem)
		}
	})
}

func eventNames(agent string) []string {
	var out []string
	for _, e := range vocab.Events(agent) {
		out = append(out, e.Name)
	}
	slices.Sort(out)
	return out
}

// seconds reads a positive number of seconds (Cursor's timeout, Copilot's timeoutSec).
func (p *Reader) seconds(h *Hook, label, key string, v *fastjson.Value) {
	x := v.Get(key)
	if x == nil {
		return
	}
	f, err := x.Float64()
	switch {
	case err != nil:
		p.disable(h, label, "%s is %s, want a number of seconds", key, x.Type())
	case f <= 0 || math.IsNaN(f) || math.IsInf(f, 0):
		p.disable(h, label, "%s %v is not positive", key, f)
	default:
		h.Timeout = time.Duration(f * float64(time.Second))
		h.TimeoutSet = true
	}
}

// requireCommand disables a command hook without a command.
func (p *Reader) requireCommand(h *Hook, label string) {
	if h.Type == "command" && strings.TrimSpace(h.Command) == "" && len(h.Args) == 0 {
		p.disable(h, label, "type command needs a non-empty command")
	}
}
