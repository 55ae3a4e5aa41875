package dispatch

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/hookexec/hookexec/core/adapt"
	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/native"
)

// An agent whose payloads do not name their event (native.Agent.SpelledEvents: GitHub
// Copilot CLI's camelCase ones) runs one dispatcher entry per event, which says it
// (Request.Event). Its payload is read into the canonical one the engine fires (core/adapt,
// as "hookexec adapt" reads it), and the agent's own payload goes along as
// dialect.HostPayloadField, so that its hooks of the same spelling get it as the agent
// sent it.

// EventMax bounds the length of a dispatcher entry's event (Request.Event; the C client's
// EVENT_MAX): the longest event an agent spells is far shorter.
const EventMax = 64

// CheckEvent checks a dispatcher entry's event before anything uses it: an agent whose
// payloads name their event takes none ("" passes), and one whose payloads do not takes an
// identifier of at most EventMax letters, digits and underscores, starting with a letter,
// as its entries spell events. The error quotes at most EventMax bytes of event.
func CheckEvent(ag *native.Agent, event string) error {
	if event == "" {
		return nil
	}
	if !ag.SpelledEvents {
		return fmt.Errorf("hookexec: %s's payloads name their event: its dispatcher entries say none (--event %s)", ag.Display, quoteShort(event))
	}
	ok := len(event) <= EventMax
	for i := 0; ok && i < len(event); i++ {
		c := event[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		ok = letter || i > 0 && (c >= '0' && c <= '9' || c == '_')
	}
	if !ok {
		return fmt.Errorf("hookexec: --event %s (%d bytes) is no event %s spells: want a letter, then letters, digits or _, at most %d", quoteShort(event), len(event), ag.Display, EventMax)
	}
	return nil
}

// quoteShort is s quoted, cut to EventMax bytes.
func quoteShort(s string) string {
	if len(s) > EventMax {
		return strconv.Quote(s[:EventMax]) + "…"
	}
	return strconv.Quote(s)
}

// readSpelled is the canonical payload of a call of ag spelled event, with the agent's own
// payload in dialect.HostPayloadField.
func readSpelled(ag *native.Agent, event string, raw []byte) ([]byte, error) {
	if event == "" {
		return nil, fmt.Errorf("hookexec: %s's payloads do not name their event: the dispatcher entry says it (--event)", ag.Display)
	}
	_, canonical, err := adapt.Canonical(ag.Name, event, raw)
	if err != nil {
		return nil, err
	}
	canonical = bytes.TrimSpace(canonical)
	if len(canonical) < 2 || canonical[len(canonical)-1] != '}' || bytes.Equal(canonical, []byte("{}")) {
		return nil, errors.New("hookexec: the canonical payload is not a JSON object with fields")
	}
	out := append(bytes.Clone(canonical[:len(canonical)-1]), `,"`+dialect.HostPayloadField+`":`...)
	out = append(out, bytes.TrimSpace(raw)...)
	return append(out, '}'), nil
}

// spelledIndex is the no-match index of an agent whose payloads do not name their event:
// its events as its dispatcher entries spell them (the C client knows the event from
// --event), each subject field as the agent's payload names it (an event whose subject
// field the payload does not carry is left out: it goes to the daemon), and the variables
// the agent's sources depend on with the call's values.
func spelledIndex(ag *native.Agent, nm *engine.NoMatch, env []string) *engine.NoMatch {
	out := *nm
	out.Events = map[string]engine.NoMatchEvent{}
	for name, ev := range nm.Events {
		spelled := native.CopilotEvent(name)
		if spelled == "" || name != ev.Result.Event {
			continue // an alias, or no such event: only the canonical name has an entry
		}
		fields := make([]string, 0, len(ev.Subject))
		ok := true
		for _, f := range ev.Subject {
			s, known := ag.SubjectFields[f]
			if !known {
				ok = false
				break
			}
			fields = append(fields, s)
		}
		if !ok {
			continue
		}
		ev.Subject = fields
		out.Events[spelled] = ev
	}
	out.Env = maps.Clone(nm.Env)
	if out.Env == nil {
		out.Env = map[string]string{}
	}
	for _, k := range ag.SourceEnv {
		v, _ := lookupEnv(env, k)
		out.Env[k] = v
	}
	return &out
}
