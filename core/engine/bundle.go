package engine

import (
	"path/filepath"
	"time"

	"github.com/hookexec/hookexec/core/bundle"
	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
)

// BundleDialect names bundle.json in Config's sources.
const BundleDialect = "bundle-config"

// bundleLoad is what one load learns of the policy bundle (core/bundle): the engine reads
// the cache the daemon or `hookexec status --fetch` filled, and never the network.
type bundleLoad struct {
	config   string // bundle.json's path; "" when bundles are off (BundleConfig "-")
	present  bool   // bundle.json exists
	err      error  // bundle.json does not read
	settings string // the active bundle's settings file, loaded at managed precedence
	closed   string // set when fires must block: fail closed with no bundle cached
	open     string // a warning: no bundle yet, and on_missing is open
}

func (e *Engine) bundle() bundleLoad {
	path := e.opts.BundleConfig
	switch {
	case path == "-":
		return bundleLoad{}
	case path == "":
		path = bundle.ConfigPath(e.opts.Home, e.getenv())
	default:
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	b := bundleLoad{config: path}
	c, err := bundle.LoadConfig(path)
	switch {
	case err != nil:
		// A bundle.json that does not read names a bundle nobody can apply: fail closed.
		b.present, b.err, b.closed = true, err, "hookexec: blocked: "+err.Error()
		return b
	case c == nil:
		return b
	}
	b.present, b.settings = true, c.SettingsPath()
	if !c.Active() {
		if c.Closed() {
			b.closed = c.ClosedReason()
		} else {
			b.open = "no policy bundle from " + c.URL + " has been fetched yet; on_missing is open, so hooks run without it"
		}
	}
	return b
}

// report lists bundle.json among the sources (the daemon watches every source, so an
// edit reloads) and says why fires block or run without the bundle.
func (b bundleLoad) report(set *config.Set) {
	if !b.present {
		return
	}
	info := config.SourceInfo{Path: b.config, Dialect: BundleDialect, Status: "loaded"}
	if b.err != nil {
		info.Status = "error"
	}
	set.Sources = append(set.Sources, info)
	switch {
	case b.closed != "":
		set.Warnings = append(set.Warnings, config.Warning{Source: b.config, Message: b.closed, Error: true})
	case b.open != "":
		set.Warnings = append(set.Warnings, config.Warning{Source: b.config, Message: b.open})
	}
}

// continuesOnBlock: for these events a block makes the agent keep working rather than stop
// an action, so failing closed does not block them (it would keep the agent from stopping).
var continuesOnBlock = map[string]bool{"Stop": true, "SubagentStop": true, "TeammateIdle": true}

// closedFor reports whether a fire of ev with subject is blocked while the engine fails
// closed.
func closedFor(p *plan, ev event.Info, subject string) bool {
	return p.closed != "" && ev.Blocks(subject) && !continuesOnBlock[ev.Name]
}

// closedResult is the answer to a fire while the engine fails closed: blocked with the
// reason for every event that can stop an action, no hook run; nil for the other events,
// whose hooks run as usual.
func (e *Engine) closedResult(p *plan, name string, ev event.Info, subject string, doc *payload.Doc, data []byte, env []string, start time.Time) *Result {
	if !closedFor(p, ev, subject) {
		return nil
	}
	res := emptyResult(ev.Name)
	res.Blocked, res.Decision, res.Reason = true, "deny", p.closed
	res.Warnings = append(res.Warnings, p.closed)
	res.AgentOutput = e.agentOutput(ev, nil)
	res.DurationMs = ms(time.Since(start))
	if e.log != nil {
		e.record(p, name, ev, doc, start, res, nil, nil)
	}
	if len(e.sinks) > 0 {
		e.observe(name, ev, doc, data, env, start, res, nil, nil)
	}
	return res
}
