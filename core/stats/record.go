package stats

import (
	"errors"
	"fmt"
	"time"
)

// Fire is one fire as a log recorded it, whatever the log's kind.
type Fire struct {
	Time       time.Time // zero when the log's time could not be read
	Event      string
	DurationMs float64
	Blocked    bool
	Decision   string // the fire's decision: none, allow, ask, defer, deny
	Hooks      []HookRun
}

// HookRun is one hook that ran in a fire. Hooks a fire considered but did not run
// (matcher, once, an earlier block) are not HookRuns.
type HookRun struct {
	ID         string
	Source     string // the file the hook is defined in; "" when the log does not say
	Line       int    // its line in Source; 0 when unknown
	DurationMs float64
	Decision   string // none, allow, ask, defer, deny or block; "" is read as none
	TimedOut   bool
	// Error: the run ended in an error other than a timeout (could not start, killed,
	// unreadable output).
	Error bool
}

// hookRun is a hook that ran, as both logs record it: errText is the run's error, a
// timeout's included.
func hookRun(id, source string, line int, ms float64, decision string, timedOut bool, errText string) HookRun {
	return HookRun{ID: id, Source: source, Line: line, DurationMs: ms, Decision: decision,
		TimedOut: timedOut, Error: errText != "" && !timedOut}
}

// MaxDurationMs is the longest duration believed: a line with a negative duration or one
// past this (a year) is damaged, and would make the sums overflow.
const MaxDurationMs = 365 * 24 * 3600 * 1000.0

// check refuses a fire a damaged line would give: no event, or an impossible duration.
func (f *Fire) check() error {
	if f.Event == "" {
		return errors.New("a fire with no event")
	}
	if !plausible(f.DurationMs) {
		return fmt.Errorf("a fire's duration_ms of %v", f.DurationMs)
	}
	for _, h := range f.Hooks {
		if !plausible(h.DurationMs) {
			return fmt.Errorf("hook %q's duration_ms of %v", h.ID, h.DurationMs)
		}
	}
	return nil
}

func plausible(ms float64) bool { return ms >= 0 && ms <= MaxDurationMs }
