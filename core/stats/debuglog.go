package stats

import (
	"encoding/json"
	"errors"
	"time"
)

// The debug log's line, as core/engine/log.go writes it: only the fields stats reads.
type debugLine struct {
	Time       string       `json:"time"`
	Event      *string      `json:"event"`
	Matched    *int         `json:"matched"`
	Blocked    bool         `json:"blocked"`
	Decision   string       `json:"decision"`
	DurationMs float64      `json:"duration_ms"`
	Hooks      *[]debugHook `json:"hooks"`
	Hash       *string      `json:"hash"` // an audit entry's: not a debug line
}

type debugHook struct {
	ID         string  `json:"id"`
	Source     string  `json:"source"`
	Line       int     `json:"line"`
	Ran        bool    `json:"ran"`
	TimedOut   bool    `json:"timed_out"`
	DurationMs float64 `json:"duration_ms"`
	Decision   string  `json:"decision"`
	Error      string  `json:"error"`
}

// readDebugLine reads a debug log line: one with an event, a matched count and a hooks
// array (which the engine writes even when empty).
func readDebugLine(line []byte) (Fire, error) {
	var l debugLine
	err := json.Unmarshal(line, &l)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return Fire{}, errNotJSON
	}
	if l.Event == nil || l.Matched == nil || l.Hooks == nil || l.Hash != nil {
		return Fire{}, errOtherKind
	}
	if err != nil {
		return Fire{}, errors.New("not a fire: " + err.Error())
	}
	f := Fire{Event: *l.Event, DurationMs: l.DurationMs, Blocked: l.Blocked, Decision: l.Decision}
	if t, err := time.Parse(time.RFC3339Nano, l.Time); err == nil {
		f.Time = t
	}
	for _, h := range *l.Hooks {
		if h.Ran {
			f.Hooks = append(f.Hooks, hookRun(h.ID, h.Source, h.Line, h.DurationMs, h.Decision, h.TimedOut, h.Error))
		}
	}
	return f, f.check()
}
