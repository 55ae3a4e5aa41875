package engine

import (
	"time"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/match"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/template"
)

// plan is a compiled configuration: what every fire reads and nothing writes.
type plan struct {
	set      *config.Set
	hooks    []*hook            // all hooks, config order, disabled ones included (for Config)
	byEvent  map[string][]*hook // canonical event → enabled hooks, config order
	warnings []config.Warning
	notify   bool // fires are announced to the listener (autohand's JSON-RPC notifications)
	// sessionEnd is the budget Claude Code's SessionEnd hooks share; 0 for none.
	sessionEnd time.Duration
}

// hook is one configured hook, compiled.
type hook struct {
	cfg     *config.Hook
	index   int // position in config order
	event   event.Info
	matcher *match.Matcher
	filter  *match.Filter     // autohand's filter; nil accepts every fire
	cmd     *template.Command // nil for prompt and git hooks
	paths   []payload.Path    // compiled cmd.Placeholders()
	prompt  *template.Command // prompt text, or git-commit's message, rendered literally
	ppaths  []payload.Path
}

// git reports whether the hook is one of AutoAgent's git built-ins.
func (h *hook) git() bool { return h.cfg.Type == "git-commit" || h.cfg.Type == "git-push" }

// exec names how the hook runs, as reported in results and config.
func (h *hook) exec() string {
	switch {
	case h.cfg.Type == "http" || evaluated(h.cfg.Type):
		return h.cfg.Type
	case h.git():
		return "builtin"
	case h.cmd == nil:
		return ""
	}
	return h.cmd.Mode().String()
}

// compile builds the per-event index; a hook whose matcher or template does not compile is
// disabled with a warning, the others are unaffected. Filter paths are relative to project.
func compile(set *config.Set, project string) *plan {
	p := &plan{set: set, byEvent: map[string][]*hook{}, warnings: set.Warnings}
	for i := range set.Hooks {
		c := &set.Hooks[i]
		h := &hook{cfg: c, index: i, event: event.Lookup(c.Event)}
		p.hooks = append(p.hooks, h)
		if c.DuplicateOf != "" {
			continue // its original is compiled and reported
		}
		fail := func(err error) {
			if c.Disabled == "" {
				c.Disabled = err.Error()
			}
			p.warnings = append(p.warnings, config.Warning{Source: c.Source, Hook: c.ID, Message: err.Error(), Error: true})
		}
		var err error
		if c.RegexMatcher {
			h.matcher, err = match.CompileRegex(c.Matcher)
		} else {
			h.matcher, err = match.Compile(c.Matcher)
		}
		if err == nil {
			h.filter, err = match.CompileFilter(c.FilterTools, c.FilterPaths, project)
		}
		if err != nil {
			fail(err)
			continue
		}
		switch c.Type {
		case "command":
			if len(c.Args) > 0 {
				h.cmd, err = template.CompileArgs(c.Args)
			} else {
				h.cmd, err = template.Compile(c.CommandTemplate())
				if err != nil && c.CommandTemplate() != c.Command {
					// mycode's $VAR in a context that cannot take a quoted value: leave it
					// to the shell, which has the same value in the environment.
					h.cmd, err = template.Compile(c.Command)
				}
			}
			if err == nil {
				h.paths, err = compilePaths(h.cmd.Placeholders())
			}
		case "prompt", "agent", "git-commit":
			// The prompt goes to the host's evaluator and the message to git as data, never
			// to a shell.
			text := c.Prompt
			if c.Type == "git-commit" {
				text = c.Message
			}
			h.prompt, err = template.CompileArgs([]string{text})
			if err == nil {
				h.ppaths, err = compilePaths(h.prompt.Placeholders())
			}
		}
		if err != nil {
			fail(err)
			continue
		}
		if c.Disabled == "" && !set.DisableAll {
			p.byEvent[h.event.Name] = append(p.byEvent[h.event.Name], h)
		}
	}
	return p
}

func compilePaths(exprs []string) ([]payload.Path, error) {
	out := make([]payload.Path, len(exprs))
	for i, x := range exprs {
		p, err := payload.Compile(x)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
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
		out[in.Name] = eventSummary{Hooks: len(p.byEvent[in.Name]), Subject: subj}
	}
	for name, hs := range p.byEvent {
		if _, ok := out[name]; !ok {
			out[name] = eventSummary{Hooks: len(hs), Subject: []string{}}
		}
	}
	return out
}

type eventSummary struct {
	Hooks   int      `json:"hooks"`
	Subject []string `json:"subject"`
}
