package engine

import (
	"slices"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/event"
)

// NoMatch describes what a fire that matches no hook does, for the no-match index the C
// client reads (core/nomatch): per event, the subjects some hook matches, when that set is
// finite and known exactly, and the Result of a fire that matches nothing.
type NoMatch struct {
	// Why is non-empty when a fire that matches no hook still does something beyond its
	// Result (a log line, an observer, a notification, a policy bundle): no event may then be
	// answered without the engine.
	Why string
	// Events holds the event names (as fired: canonical names, aliases, configured
	// open-ended names) whose no-match the subject alone decides. An event not in it may
	// match whatever the subject: a hook without a matcher, a glob, a regex that is not an
	// alternation of literals, a FileChanged matcher (it sees the path's base name), and
	// SessionEnd and PreIteration, whose fires change the engine's state even when nothing
	// matches.
	Events map[string]NoMatchEvent
	// Files lists every file the load read or looked for (Status "missing"), with the
	// digest of what it read.
	Files []config.SourceInfo
	// Env is EnvRead: the variables the load read, with their values.
	Env map[string]string
}

// NoMatchEvent is one event of NoMatch.
type NoMatchEvent struct {
	// Subject lists the payload's top-level fields a matcher sees, the first holding a
	// non-empty string winning (payload.Doc.First); "" when none does.
	Subject []string
	// Subjects are every subject some enabled hook of the event matches (sorted); empty
	// when no hook can match at all. Hooks with an "if" rule or a filter count as matching.
	Subjects []string
	// Result is what a fire of the event matching no hook returns.
	Result *Result
}

// NoMatch reports what a fire that matches no hook does under the configuration loaded now.
func (e *Engine) NoMatch() (*NoMatch, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	p := e.plan.Load()
	nm := &NoMatch{Events: map[string]NoMatchEvent{}, Files: slices.Clone(p.set.Sources), Env: e.EnvRead()}
	if p.bundleConfig != "" && !p.bundlePresent {
		nm.Files = append(nm.Files, config.SourceInfo{Path: p.bundleConfig, Status: "missing"})
	}
	for _, f := range nm.Files {
		if f.Digest == "" && f.Status != "missing" && nm.Why == "" {
			nm.Why = f.Path + " was not read as a file (" + f.Status + ")"
		}
	}
	switch {
	case e.log != nil:
		nm.Why = "fires are logged"
	case len(e.sinks) > 0:
		nm.Why = "fires are observed (telemetry or the audit log)"
	case p.notify:
		nm.Why = "fires are announced to a listener"
	case p.bundlePresent || p.closed != "":
		nm.Why = "a policy bundle is configured"
	}
	names := event.Names()
	for name := range p.byEvent {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	canonical := map[string]*NoMatchEvent{} // aliases share their event's entry
	for _, name := range names {
		ev := event.Lookup(name)
		if ne, done := canonical[ev.Name]; done {
			if ne != nil {
				nm.Events[name] = *ne
			}
			continue
		}
		canonical[ev.Name] = nil
		hooks := p.byEvent[ev.Name]
		if ev.Name == "SessionEnd" || ev.Name == "PreIteration" || ev.SubjectBase && len(hooks) > 0 {
			continue
		}
		ne, exact := NoMatchEvent{Subject: ev.Subject, Result: emptyResult(ev.Name)}, true
		for _, h := range hooks {
			subs, ok := h.cfg.Match.Subjects()
			if !ok {
				exact = false
				break
			}
			ne.Subjects = append(ne.Subjects, subs...)
		}
		if exact {
			slices.Sort(ne.Subjects)
			ne.Subjects = slices.Compact(ne.Subjects)
			nm.Events[name] = ne
			canonical[ev.Name] = &ne
		}
	}
	return nm, nil
}
