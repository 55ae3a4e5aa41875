package stats

import "time"

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
