package stats

import (
	"encoding/json"
	"errors"
	"fmt"
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

var debugFormat = format{kind: KindDebug, read: readDebugLine}

// readDebugLine reads a debug log line: one with an event, a matched count and a hooks
// array (which the engine writes even when empty).
func readDebugLine(line []byte) (Fire, error) {
	var l debugLine
	err := json.Unmarshal(line, &l)
	if l.Event == nil || l.Matched == nil || l.Hooks == nil {
		return Fire{}, errOtherKind
	}
	if err != nil {
		return Fire{}, errors.New("not a fire: " + err.Error())
	}
	if *l.Event == "" {
		return Fire{}, errors.New("a fire with no event")
	}
	if !plausible(l.DurationMs) {
		return Fire{}, fmt.Errorf("a fire's duration_ms of %v", l.DurationMs)
	}
	f := Fire{Event: *l.Event, DurationMs: l.DurationMs, Blocked: l.Blocked, Decision: l.Decision}
	if t, err := time.Parse(time.RFC3339Nano, l.Time); err == nil {
		f.Time = t
	}
	for _, h := range *l.Hooks {
		if !h.Ran {
			continue
		}
		if !plausible(h.DurationMs) {
			return Fire{}, fmt.Errorf("hook %q's duration_ms of %v", h.ID, h.DurationMs)
		}
		f.Hooks = append(f.Hooks, HookRun{
			ID: h.ID, Source: h.Source, Line: h.Line, DurationMs: h.DurationMs,
			Decision: h.Decision, TimedOut: h.TimedOut, Error: h.Error != "" && !h.TimedOut,
		})
	}
	return f, nil
}

// MaxDurationMs is the longest duration believed: a line with a negative duration or one
// past this (a year) is damaged, and would make the sums overflow.
const MaxDurationMs = 365 * 24 * 3600 * 1000.0

func plausible(ms float64) bool { return ms >= 0 && ms <= MaxDurationMs }
