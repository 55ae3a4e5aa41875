package engine

import (
	"slices"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/observe"
	"github.com/hookexec/hookexec/core/payload"
)

// Observers: with Options.Sinks, every fire, once decided, is handed to each sink as an
// observe.Fire (core/observe). The record is built only when there are sinks, so an engine
// without them pays one length check per fire.

// observe hands the decided fire to the sinks. selected and res.Hooks are parallel (config
// order); f is nil when nothing ran.
func (e *Engine) observe(name string, ev event.Info, doc *payload.Doc, data []byte, env []string, start time.Time, res *Result, selected []*hook, f *fire) {
	rec := &observe.Fire{
		Start: start, Duration: time.Duration(res.DurationMs * float64(time.Millisecond)),
		Event: ev.Name, Profile: e.opts.Profile, SessionID: e.sessionOf(doc),
		Payload: slices.Clone(data), Matched: res.Matched, Blocked: res.Blocked,
		Decision: res.Decision, Reason: res.Reason, Continue: res.Continue, StopReason: res.StopReason,
		Warnings: slices.Clone(res.Warnings),
	}
	if name != ev.Name {
		rec.FiredAs = name
	}
	for _, field := range ev.Subject {
		if doc.Has(field) {
			rec.Subject, rec.SubjectField = ev.SubjectOf(doc.String(field)), field
			break
		}
	}
	if res.UpdatedInput != nil {
		rec.UpdatedInput = slices.Clone([]byte(res.UpdatedInput))
	}
	rec.TraceParent, rec.TraceState = e.traceContext(env)
	rec.Hooks = make([]observe.Hook, len(selected))
	for i, h := range selected {
		oh := observe.Hook{
			ID: h.cfg.ID, Source: h.cfg.Source, Line: h.cfg.Line, Type: h.cfg.Type, Exec: h.exec(),
			Matcher: h.cfg.Matcher, Command: h.command(), Persistent: h.proc != nil, ExitCode: -1,
		}
		if oh.Type == "" {
			oh.Type = "command"
		}
		if i < len(res.Hooks) {
			r := &res.Hooks[i]
			oh.Ran = r.Error != notRun && r.Error != notRunManaged && !r.Async
			oh.Async, oh.ExitCode, oh.Signal, oh.TimedOut = r.Async, r.ExitCode, r.Signal, r.TimedOut
			oh.Truncated = r.StdoutTruncated || r.StderrTruncated
			oh.Duration = time.Duration(r.DurationMs * float64(time.Millisecond))
			oh.Decision, oh.Error, oh.FailClosed = r.Decision, r.Error, r.failClosed
		}
		if f != nil && i < len(f.starts) {
			s := f.starts[i]
			oh.Start, oh.Warm = s.at, s.warm
			oh.Restarted = h.proc != nil && s.starts > 0 && h.proc.Status().Starts > s.starts
		}
		rec.Hooks[i] = oh
	}
	for _, s := range e.sinks {
		s.Observe(rec)
	}
}

// traceContext is the caller's TRACEPARENT and TRACESTATE as the fire's hooks get them:
// each in the fire's own env (FireEnv), else the options' env, else the host's
// environment. It reads them in place (getenv would copy all of the host's, at every
// fire), and the host's environment once for both (in the C library each read is a scan
// of the C environ).
func (e *Engine) traceContext(fire []string) (parent, state string) {
	var host []string
	hostRead := false
	names := [2]string{"TRACEPARENT", "TRACESTATE"}
	var out [2]string
	for i, name := range names {
		if v, ok := lookup(fire, name); ok {
			out[i] = v
			continue
		}
		if v, ok := e.opts.Env[name]; ok {
			out[i] = v
			continue
		}
		if !hostRead {
			host, hostRead = e.environ(), true
		}
		out[i], _ = lookup(host, name)
	}
	return out[0], out[1]
}

// lookup is name's last value in env (KEY=VALUE entries).
func lookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// hookStart is when a selected hook of a fire started, and whether its persistent process
// was already running then. Recorded only when the engine has sinks.
type hookStart struct {
	at   time.Time
	warm bool
	// starts is how many processes the persistent hook had started before; a higher
	// count after the fire is a restart.
	starts int
}

// markStart records that h, the i-th selected hook of the fire, starts now.
func (f *fire) markStart(i int, h *hook) {
	if f.starts == nil {
		return
	}
	s := hookStart{at: time.Now()}
	if h.proc != nil {
		st := h.proc.Status()
		s.warm, s.starts = st.State == "running", st.Starts
	}
	f.starts[i] = s
}

// closeSinks flushes and stops the sinks, waiting at most wait in all.
func (e *Engine) closeSinks(wait time.Duration) {
	deadline := time.Now().Add(wait)
	for _, s := range e.sinks {
		_ = s.Close(deadline) // a sink's failure is its own; Close of the engine goes on
	}
}
