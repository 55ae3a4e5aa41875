package stats

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Filter chooses the fires counted. The zero Filter counts every fire.
type Filter struct {
	// Events: only fires of these events (by the event's canonical name); nil means all.
	Events []string
	// Since: only fires at or after this time; zero means all. A fire whose time the log
	// did not give is left out when Since is set.
	Since time.Time
}

func (f Filter) keeps(fire *Fire) bool {
	if f.Events != nil && !slices.Contains(f.Events, fire.Event) {
		return false
	}
	return f.Since.IsZero() || (!fire.Time.IsZero() && !fire.Time.Before(f.Since))
}

// Decisions counts decisions by kind. Block is a hook's or fire's block where the log
// records one apart from deny (the debug log records a hook's block as deny).
type Decisions struct {
	None  int `json:"none"`
	Allow int `json:"allow"`
	Ask   int `json:"ask"`
	Defer int `json:"defer"`
	Deny  int `json:"deny"`
	Block int `json:"block"`
	Other int `json:"other"` // a decision this version does not know
}

func (d *Decisions) add(decision string) {
	switch decision {
	case "", "none":
		d.None++
	case "allow":
		d.Allow++
	case "ask":
		d.Ask++
	case "defer":
		d.Defer++
	case "deny":
		d.Deny++
	case "block":
		d.Block++
	default:
		d.Other++
	}
}

// String lists the non-zero counts, strongest first: "deny 2, allow 5".
func (d Decisions) String() string {
	var parts []string
	for _, c := range []struct {
		name string
		n    int
	}{{"block", d.Block}, {"deny", d.Deny}, {"defer", d.Defer}, {"ask", d.Ask}, {"allow", d.Allow}, {"none", d.None}, {"other", d.Other}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c.name, c.n))
		}
	}
	return strings.Join(parts, ", ")
}

// HookStats is what one hook did over the fires counted. A hook is its id and where it
// is defined: the same id in two files is two hooks.
type HookStats struct {
	ID     string   `json:"id"`
	Source string   `json:"source"`
	Line   int      `json:"line,omitempty"`
	Events []string `json:"events"` // the events it ran for, sorted
	Latency
	Decisions Decisions `json:"decisions"`
	TimedOut  int       `json:"timed_out"`
	Errors    int       `json:"errors"`
	Histogram []Bin     `json:"histogram"`
}

// Where is the hook's source as file:line (file alone when the line is unknown).
func (h *HookStats) Where() string {
	if h.Line > 0 {
		return fmt.Sprintf("%s:%d", h.Source, h.Line)
	}
	return h.Source
}

// EventStats is what the fires of one event did.
type EventStats struct {
	Event string `json:"event"`
	Latency
	Blocked   int       `json:"blocked"`
	Decisions Decisions `json:"decisions"` // the fires' decisions
	HookRuns  int       `json:"hook_runs"`
	TimedOut  int       `json:"timed_out"`
	Errors    int       `json:"errors"`
}

// Summary is the statistics of a set of logs.
type Summary struct {
	Files    []FileReport `json:"files"`
	Fires    int          `json:"fires"`    // counted (kept by the filter)
	Excluded int          `json:"excluded"` // read but left out by the filter
	Bad      int          `json:"bad"`      // bad lines in all files
	Hooks    []HookStats  `json:"hooks"`    // by total time, largest first (Sort)
	Events   []EventStats `json:"events"`   // by event name
}

type hookKey struct {
	id, source string
	line       int
}

type hookAcc struct {
	stats  HookStats
	events map[string]bool
	ms     []float64
}

type eventAcc struct {
	stats EventStats
	ms    []float64
}

// Aggregator collects fires. Its zero value is not usable: call New.
type Aggregator struct {
	filter   Filter
	fires    int
	excluded int
	files    []FileReport
	hooks    map[hookKey]*hookAcc
	events   map[string]*eventAcc
}

// New returns an Aggregator counting the fires f keeps.
func New(f Filter) *Aggregator {
	return &Aggregator{filter: f, hooks: map[hookKey]*hookAcc{}, events: map[string]*eventAcc{}}
}

// Add counts one fire.
func (a *Aggregator) Add(fire Fire) {
	if !a.filter.keeps(&fire) {
		a.excluded++
		return
	}
	a.fires++
	ev := a.events[fire.Event]
	if ev == nil {
		ev = &eventAcc{stats: EventStats{Event: fire.Event}}
		a.events[fire.Event] = ev
	}
	ev.ms = append(ev.ms, fire.DurationMs)
	ev.stats.Decisions.add(fire.Decision)
	if fire.Blocked {
		ev.stats.Blocked++
	}
	for _, r := range fire.Hooks {
		k := hookKey{r.ID, r.Source, r.Line}
		h := a.hooks[k]
		if h == nil {
			h = &hookAcc{stats: HookStats{ID: r.ID, Source: r.Source, Line: r.Line}, events: map[string]bool{}}
			a.hooks[k] = h
		}
		h.events[fire.Event] = true
		h.ms = append(h.ms, r.DurationMs)
		h.stats.Decisions.add(r.Decision)
		ev.stats.HookRuns++
		if r.TimedOut {
			h.stats.TimedOut++
			ev.stats.TimedOut++
		}
		if r.Error {
			h.stats.Errors++
			ev.stats.Errors++
		}
	}
}

// ReadFile reads one log into the aggregator (see Read) and keeps its report.
func (a *Aggregator) ReadFile(r io.Reader, name string) (FileReport, error) {
	rep, err := Read(r, name, a.Add)
	a.files = append(a.files, rep)
	return rep, err
}

// Summary computes the statistics of the fires added so far, hooks sorted by total time.
func (a *Aggregator) Summary() *Summary {
	s := &Summary{Files: slices.Clone(a.files), Fires: a.fires, Excluded: a.excluded, Hooks: []HookStats{}, Events: []EventStats{}}
	if s.Files == nil {
		s.Files = []FileReport{}
	}
	for _, f := range a.files {
		s.Bad += f.Bad
	}
	for _, h := range a.hooks {
		st := h.stats
		st.Latency = summarise(h.ms)
		st.Histogram = Histogram(h.ms)
		for ev := range h.events {
			st.Events = append(st.Events, ev)
		}
		slices.Sort(st.Events)
		s.Hooks = append(s.Hooks, st)
	}
	for _, e := range a.events {
		st := e.stats
		st.Latency = summarise(e.ms)
		s.Events = append(s.Events, st)
	}
	slices.SortFunc(s.Events, func(x, y EventStats) int { return strings.Compare(x.Event, y.Event) })
	_ = Sort(s.Hooks, SortTotal)
	return s
}

// The orders Sort knows; each is largest first except SortID.
const (
	SortTotal    = "total"
	SortCount    = "count"
	SortMean     = "mean"
	SortP50      = "p50"
	SortP90      = "p90"
	SortP99      = "p99"
	SortMax      = "max"
	SortTimeouts = "timeouts"
	SortErrors   = "errors"
	SortID       = "id" // by id, then source and line
)

// SortKeys lists the orders Sort knows.
var SortKeys = []string{SortTotal, SortCount, SortMean, SortP50, SortP90, SortP99, SortMax, SortTimeouts, SortErrors, SortID}

var sortValues = map[string]func(h *HookStats) float64{
	SortTotal:    func(h *HookStats) float64 { return h.TotalMs },
	SortCount:    func(h *HookStats) float64 { return float64(h.Count) },
	SortMean:     func(h *HookStats) float64 { return h.MeanMs },
	SortP50:      func(h *HookStats) float64 { return h.P50Ms },
	SortP90:      func(h *HookStats) float64 { return h.P90Ms },
	SortP99:      func(h *HookStats) float64 { return h.P99Ms },
	SortMax:      func(h *HookStats) float64 { return h.MaxMs },
	SortTimeouts: func(h *HookStats) float64 { return float64(h.TimedOut) },
	SortErrors:   func(h *HookStats) float64 { return float64(h.Errors) },
}

// Sort orders hooks by key (one of SortKeys), ties by id, source and line, so the order is
// the same at every run.
func Sort(hooks []HookStats, key string) error {
	value, ok := sortValues[key]
	if !ok && key != SortID {
		return fmt.Errorf("stats: unknown sort key %q (known: %s)", key, strings.Join(SortKeys, ", "))
	}
	slices.SortStableFunc(hooks, func(x, y HookStats) int {
		if ok {
			if c := cmp.Compare(value(&y), value(&x)); c != 0 {
				return c
			}
		}
		return cmp.Or(strings.Compare(x.ID, y.ID), strings.Compare(x.Source, y.Source), cmp.Compare(x.Line, y.Line))
	})
	return nil
}
