package engine

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
)

// The debug log: with Options.LogFile (or HOOKEXEC_LOG in the environment) every fire
// appends one JSON line saying what was fired, every hook considered with where it is
// defined and why it ran or not (the same judgement as Explain), the command line each ran
// after substitution, its exit, duration and truncation, and the decision. The file is
// opened once, in append mode, and written with one write per line under a lock, so lines
// of concurrent fires never interleave. Nothing goes to the host's stdout or stderr.

// LogEnv is the environment variable naming a log file when Options.LogFile is "".
const LogEnv = "HOOKEXEC_LOG"

type fireLog struct {
	mu sync.Mutex
	f  *os.File
}

// openLog opens the log named by the options or the environment. An unusable path given
// in the options is an error; one from the environment only a warning (returned as text),
// since the host did not ask for it.
func openLog(o Options) (*fireLog, string, error) {
	path, fromEnv := o.LogFile, false
	if path == "" {
		path, fromEnv = os.Getenv(LogEnv), true
	}
	if path == "" {
		return nil, "", nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		if fromEnv {
			return nil, fmt.Sprintf("%s: cannot open the log: %v; fires are not logged", LogEnv, err), nil
		}
		return nil, "", fmt.Errorf("%w: log_file: %v", ErrInvalid, err)
	}
	return &fireLog{f: f}, "", nil
}

func (l *fireLog) close() {
	if l != nil {
		l.mu.Lock()
		l.f.Close()
		l.mu.Unlock()
	}
}

// logLine is one fire in the log.
type logLine struct {
	Time         string    `json:"time"`
	Event        string    `json:"event"`
	FiredAs      string    `json:"fired_as,omitempty"` // the host's spelling when it differs
	Subject      string    `json:"subject"`
	SubjectField string    `json:"subject_field"`
	Matched      int       `json:"matched"`
	Blocked      bool      `json:"blocked"`
	Decision     string    `json:"decision"`
	Reason       string    `json:"reason"`
	Continue     bool      `json:"continue"`
	DurationMs   float64   `json:"duration_ms"`
	Hooks        []logHook `json:"hooks"`
	Warnings     []string  `json:"warnings,omitempty"`
}

type logHook struct {
	HookExplanation
	Ran             bool    `json:"ran"`
	ExitCode        *int    `json:"exit_code,omitempty"`
	Signal          string  `json:"signal,omitempty"`
	TimedOut        bool    `json:"timed_out,omitempty"`
	DurationMs      float64 `json:"duration_ms,omitempty"`
	HookDecision    string  `json:"decision,omitempty"`
	Error           string  `json:"error,omitempty"`
	Async           bool    `json:"async,omitempty"`
	StdoutTruncated bool    `json:"stdout_truncated,omitempty"`
	StderrTruncated bool    `json:"stderr_truncated,omitempty"`
}

// record writes one fire. selected and res.Hooks are parallel (config order); f is nil
// when nothing ran.
func (e *Engine) record(p *plan, name string, ev event.Info, doc *payload.Doc, start time.Time, res *Result, selected []*hook, f *fire) {
	// Without the once check: this fire has just recorded its own "once" hooks as run.
	x := e.explainFire(p, ev, doc, false)
	ran := make(map[int]int, len(selected)) // plan index → result index
	for i, h := range selected {
		ran[h.index] = i
	}
	line := logLine{
		Time: start.UTC().Format(time.RFC3339Nano), Event: ev.Name, Subject: x.Subject, SubjectField: x.SubjectField,
		Matched: res.Matched, Blocked: res.Blocked, Decision: res.Decision, Reason: res.Reason,
		Continue: res.Continue, DurationMs: res.DurationMs, Hooks: make([]logHook, 0, len(x.Hooks)), Warnings: res.Warnings,
	}
	if name != ev.Name {
		line.FiredAs = name
	}
	for k, hx := range x.Hooks {
		lh := logHook{HookExplanation: hx}
		if _, ok := ran[x.index[k]]; hx.Runs && !ok && p.hooks[x.index[k]].cfg.Once {
			lh.Runs, lh.Check, lh.Reason = false, CheckOnce, "once: already ran in this session"
		}
		if i, ok := ran[x.index[k]]; ok && i < len(res.Hooks) && f != nil {
			r := &res.Hooks[i]
			j := f.prepare(selected[i])
			lh.Argv, lh.Command = j.argv, commandLine(j)
			lh.Ran = r.Error != notRun
			code := r.ExitCode
			lh.ExitCode = &code
			lh.Signal, lh.TimedOut, lh.DurationMs = r.Signal, r.TimedOut, r.DurationMs
			lh.HookDecision, lh.Error, lh.Async = r.Decision, r.Error, r.Async
			lh.StdoutTruncated, lh.StderrTruncated = r.StdoutTruncated, r.StderrTruncated
		}
		line.Hooks = append(line.Hooks, lh)
	}
	b, err := marshal(line)
	if err != nil {
		return
	}
	b = append(b, '\n')
	e.log.mu.Lock()
	_, _ = e.log.f.Write(b) // a full disk must not fail the fire
	e.log.mu.Unlock()
}
