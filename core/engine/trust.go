package engine

import (
	"errors"
	"fmt"
	"os"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/trust"
)

// Trust: which project-level hooks may run is core/trust's decision (trust.Policy); the
// engine asks it when a configuration loads, at each fire that selects a gated hook,
// and for the trust calls of its API.

// ErrTrust is returned when the trust store cannot be read or written (approve, revoke).
var ErrTrust = trust.ErrStore

// TrustReport is every project-level hook of the configuration and whether it is approved.
type TrustReport = trust.Report

// TrustEntry is one project-level hook: what would run, what is pinned, and its state.
type TrustEntry = trust.Entry

// TrustFile is one pin of a project-level hook: a file, or a directory tree.
type TrustFile = trust.File

// awaiting reports whether the hook is held back for approval, as judged at the last load
// or store change (a fire also checks the pins of an approved one).
func (h *hook) awaiting() bool { return h.approval != nil && !h.approval.Verdict().Approved }

// gates finds the plan's project-level hooks (trust.Policy.Gates).
func (e *Engine) gates(p *plan) []*trust.Gate {
	cfgs := make([]*config.Hook, len(p.hooks))
	byCfg := make(map[*config.Hook]*hook, len(p.hooks))
	for i, h := range p.hooks {
		cfgs[i], byCfg[h.cfg] = h.cfg, h
	}
	return e.policy.Gates(cfgs, func(c *config.Hook) string { return byCfg[c].command() })
}

// home is the user's home directory as the engine sees it.
func (e *Engine) home() string {
	if e.opts.Home != "" {
		return e.opts.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// gateProjectHooks builds the plan's trust state when the mode asks for approvals.
func (e *Engine) gateProjectHooks(p *plan) {
	if e.policy.Mode != trust.Project {
		return
	}
	gates := e.gates(p)
	if len(gates) == 0 {
		return
	}
	byCfg := map[*config.Hook]*hook{}
	for _, h := range p.hooks {
		byCfg[h.cfg] = h
	}
	for _, g := range gates {
		byCfg[g.Config].approval = g
	}
	ts, err := e.policy.NewState(gates)
	if err != nil {
		p.warnings = append(p.warnings, config.Warning{Source: e.policy.Store.Path, Error: true,
			Message: "cannot be read, so no project-level hook runs: " + err.Error()})
	}
	p.trust = ts
}

// Awaiting is a hook a fire selected but did not run: it is project-level and not approved.
type Awaiting struct {
	ID      string `json:"id"`
	Source  string `json:"source"`
	Event   string `json:"event"`
	Matcher string `json:"matcher"`
	Command string `json:"command"`
	Reason  string `json:"reason"` // "new hook", "command changed", "script x changed", ...
}

// admit keeps the selected hooks that trust lets run (trust.Policy.Admit).
func (e *Engine) admit(ts *trust.State, selected []*hook) ([]*hook, []Awaiting) {
	gated := false
	for _, h := range selected {
		gated = gated || h.approval != nil
	}
	if !gated {
		return selected, nil
	}
	run := selected[:0:0]
	var waiting []Awaiting
	for _, h := range selected {
		if h.approval == nil {
			run = append(run, h)
			continue
		}
		if why := e.policy.Admit(ts, h.approval); why != "" {
			waiting = append(waiting, Awaiting{ID: h.cfg.ID, Source: h.cfg.Source, Event: h.cfg.Event,
				Matcher: h.cfg.Matcher, Command: h.command(), Reason: why})
			continue
		}
		run = append(run, h)
	}
	return run, waiting
}

// TrustList reports the project-level hooks of the configuration in force, judged now
// against the store and the files on disk. It works in mode "all" too, so approvals can
// be made before a host turns enforcement on.
func (e *Engine) TrustList() (*TrustReport, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	p := e.plan.Load()
	r, _ := e.policy.Report(e.gates(p), enabledIn(p))
	return r, nil
}

func enabledIn(p *plan) func(*config.Hook) bool {
	return func(c *config.Hook) bool { return c.Enabled() && !p.set.DisableAll }
}

// Approve records approvals for the project-level hooks named by ids (all hooks awaiting
// approval when ids is empty) as they are now: entry and pins. It returns the report
// after the configuration reloaded. An id that names no project-level hook, or a hook
// that cannot be approved (trust.ErrRefused: what it runs cannot be pinned), is
// ErrInvalid; a store that cannot be read or written is ErrTrust, and nothing changes.
func (e *Engine) Approve(ids ...string) (*TrustReport, error) {
	return e.changeTrust(ids, true)
}

// Revoke removes the approvals of the hooks named by ids (at least one).
func (e *Engine) Revoke(ids ...string) (*TrustReport, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: revoke needs a hook id", ErrInvalid)
	}
	return e.changeTrust(ids, false)
}

func (e *Engine) changeTrust(ids []string, approve bool) (*TrustReport, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	e.reload.Lock()
	defer e.reload.Unlock()
	err := e.policy.Change(e.gates(e.plan.Load()), ids, approve)
	switch {
	case errors.Is(err, trust.ErrUnknownHook) || errors.Is(err, trust.ErrRefused):
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	case err != nil:
		return nil, err
	}
	if p, err := e.load(); err == nil {
		e.plan.Store(p)
	}
	p := e.plan.Load()
	return e.policy.Report(e.gates(p), enabledIn(p))
}

// trustOf reports a hook's trust state for config(): "" when it runs without approval.
func trustOf(live map[*config.Hook]*trust.Verdict, c *config.Hook) (string, string) {
	v, ok := live[c]
	switch {
	case !ok:
		return "", ""
	case v.Approved:
		return trust.StatusApproved, ""
	}
	return trust.StatusAwaiting, v.Reason
}

// liveVerdicts judges the plan's gates now, for config().
func (e *Engine) liveVerdicts(p *plan) map[*config.Hook]*trust.Verdict {
	if p.trust == nil {
		return nil
	}
	gates := e.gates(p)
	_ = e.policy.Judge(gates) // an unreadable store is in every verdict's reason
	out := make(map[*config.Hook]*trust.Verdict, len(gates))
	for _, g := range gates {
		out[g.Config] = g.Verdict()
	}
	return out
}
