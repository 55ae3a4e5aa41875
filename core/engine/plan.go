package engine

import (
	"time"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/persist"
	"github.com/hookexec/hookexec/core/trust"
)

// plan is a compiled configuration: what every fire reads and nothing writes.
type plan struct {
	set      *config.Set
	hooks    []*hook            // all hooks, config order, disabled ones included (for Config)
	byEvent  map[string][]*hook // canonical event → enabled hooks, config order
	warnings []config.Warning
	// sessionEnd is the budget Claude Code's SessionEnd hooks share; 0 for none.
	sessionEnd time.Duration
	notify     bool         // fires are announced to the listener (autohand's JSON-RPC notifications)
	trust      *trust.State // project-level hooks awaiting or holding approval; nil: none gated
	// closed is why every fire that can stop an action is blocked (a policy bundle is
	// configured, fail closed, and none is cached yet: bundle.go); "" when fires run.
	closed string
	// bundleConfig is bundle.json's path ("" when bundles are off) and bundlePresent
	// whether it existed at this load (nomatch.go).
	bundleConfig  string
	bundlePresent bool
}

// hook is one configured hook in the index.
type hook struct {
	cfg      *config.Hook
	index    int // position in config order
	event    event.Info
	approval *trust.Gate   // set when the hook runs only once approved (trust "project")
	proc     *persist.Hook // a persistent hook's process; nil for one-shot hooks
	envRead  envReads      // which payload-filled variables its definition reads (valuefed.go)
}

// git reports whether the hook is one of AutoAgent's git built-ins.
func (h *hook) git() bool { return h.cfg.Type == "git-commit" || h.cfg.Type == "git-push" }

// exec names how the hook runs, as reported in results and config.
func (h *hook) exec() string {
	switch {
	case h.cfg.Type == "http" || h.cfg.Type == "policy" || evaluated(h.cfg.Type):
		return h.cfg.Type
	case h.git():
		return "builtin"
	case h.cfg.Cmd == nil:
		return ""
	}
	return h.cfg.Cmd.Mode().String()
}

// index builds the per-event index of enabled hooks. Config compiled and validated every
// hook at load time; a hook that failed is disabled there.
func index(set *config.Set) *plan {
	p := &plan{set: set, byEvent: map[string][]*hook{}, warnings: set.Warnings}
	for i := range set.Hooks {
		c := &set.Hooks[i]
		h := &hook{cfg: c, index: i, event: event.Lookup(c.Event)}
		p.hooks = append(p.hooks, h)
		if c.DuplicateOf == "" && c.Disabled == "" && !set.DisableAll {
			p.byEvent[h.event.Name] = append(p.byEvent[h.event.Name], h)
		}
	}
	return p
}

// eventsSummary lists, for every known canonical event and every configured open-ended
// one, how many hooks are enabled and which payload fields hold the matcher subject.
// Bindings use it to skip encoding payloads nobody reads.
func (p *plan) eventsSummary() map[string]eventSummary {
	out := map[string]eventSummary{}
	for _, n := range event.Names() {
		in := event.Lookup(n)
		subj := in.Subject
		if subj == nil {
			subj = []string{}
		}
		out[in.Name] = eventSummary{Hooks: len(p.byEvent[in.Name]), Subject: subj, Awaiting: awaiting(p.byEvent[in.Name])}
	}
	for name, hs := range p.byEvent {
		if _, ok := out[name]; !ok {
			out[name] = eventSummary{Hooks: len(hs), Subject: []string{}, Awaiting: awaiting(hs)}
		}
	}
	return out
}

type eventSummary struct {
	Hooks   int      `json:"hooks"`
	Subject []string `json:"subject"`
	// Awaiting counts the hooks among Hooks that await approval when the configuration
	// loaded: a fire reports them, so bindings must not answer it without the library.
	Awaiting int `json:"awaiting"`
}

func awaiting(hs []*hook) int {
	n := 0
	for _, h := range hs {
		if h.awaiting() {
			n++
		}
	}
	return n
}
