package engine

import (
	"slices"
	"time"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/persist"
)

// ConfigReport is the merged configuration as hosts and the CLI see it.
type ConfigReport struct {
	Profile    string                  `json:"profile"`
	ProjectDir string                  `json:"project_dir"`
	DisableAll bool                    `json:"disable_all"`
	Sources    []config.SourceInfo     `json:"sources"`
	Hooks      []HookInfo              `json:"hooks"`
	Warnings   []config.Warning        `json:"warnings"`
	Events     map[string]eventSummary `json:"events"` // every known canonical event: enabled hooks, subject fields
	// EventNames maps every known event name and alias to its canonical name, so bindings
	// can answer "nothing is hooked" without a copy of the table.
	EventNames map[string]string `json:"event_names"`
	// Notifications: every fire is announced to the listener (kind "notification"), so a
	// binding must not skip the library for fires that match no hook.
	Notifications bool `json:"notifications"`
	// Logging: every fire is written to the debug log (log_file / HOOKEXEC_LOG) or seen by
	// a sink (the audit log, telemetry), so a binding must not skip the library for fires
	// that match no hook either.
	Logging    bool   `json:"logging"`
	Trust      string `json:"trust"`       // "all" or "project"
	TrustStore string `json:"trust_store"` // the trust store file
}

// HookInfo is one configured hook, enabled or not.
type HookInfo struct {
	ID          string      `json:"id"`
	Description string      `json:"description,omitempty"`
	Event       string      `json:"event"`
	Matcher     string      `json:"matcher"`
	Filter      *HookFilter `json:"filter,omitempty"`
	Type        string      `json:"type"`
	Command     string      `json:"command"`
	Exec        string      `json:"exec"`
	TimeoutMs   int64       `json:"timeout_ms"`
	Cwd         string      `json:"cwd"`
	Async       bool        `json:"async"`
	FailClosed  bool        `json:"fail_closed"`
	Blocking    bool        `json:"blocking"`
	PipeOutput  bool        `json:"pipe_output"`
	Sequential  bool        `json:"sequential"`
	Source      string      `json:"source"`
	Line        int         `json:"line,omitempty"` // where in Source the handler is written
	Path        string      `json:"path,omitempty"` // its JSON path, e.g. hooks.Stop[0].hooks[1]
	Dialect     string      `json:"dialect"`
	// EventAsWritten is the event as the hook's file names it when that is not the
	// canonical name (Cursor's beforeShellExecution for a PreToolUse hook on Bash).
	EventAsWritten string            `json:"event_as_written,omitempty"`
	Enabled        bool              `json:"enabled"`
	Disabled       string            `json:"disabled_reason"`
	Env            map[string]string `json:"env,omitempty"`
	If             string            `json:"if,omitempty"`      // the permission rule the tool call must satisfy
	Once           bool              `json:"once,omitempty"`    // runs once per session
	Plugin         string            `json:"plugin,omitempty"`  // the plugin that declared it
	Managed        bool              `json:"managed,omitempty"` // from managed policy settings
	// StatusMessage and AsyncRewake: Claude Code's handler fields (see status.go).
	StatusMessage string `json:"status_message,omitempty"`
	AsyncRewake   bool   `json:"async_rewake,omitempty"`
	// Trust is "approved" or "awaiting approval" for a project-level hook under trust
	// "project" (judged when config() is called), "" for hooks that need no approval.
	Trust       string `json:"trust,omitempty"`
	TrustReason string `json:"trust_reason,omitempty"` // what changed since the approval
	Persistent  bool   `json:"persistent"`
	// PerSession is a persistent hook's "persistent": "session": its engine is not shared
	// by callers of other environments (EnvRead, PerSession).
	PerSession bool `json:"per_session,omitempty"`
	// Workers is a stateless persistent hook's "workers": processes serving fires in parallel.
	Workers int `json:"workers,omitempty"`
	// PolicyError says why a policy hook's policy cannot be evaluated (each fire of it
	// fails with this); "" when it compiled, and for other types.
	PolicyError string `json:"policy_error,omitempty"`
	// Process is a persistent hook's process: state, pid, starts, failures.
	Process *persist.Status `json:"process,omitempty"`
}

// HookFilter is autohand's filter of a hook.
type HookFilter struct {
	Tool []string `json:"tool,omitempty"`
	Path []string `json:"path,omitempty"`
}

// Config describes the configuration in force.
func (e *Engine) Config() (*ConfigReport, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	p := e.plan.Load()
	r := &ConfigReport{
		Profile:       p.set.Profile.Name,
		ProjectDir:    e.opts.ProjectDir,
		DisableAll:    p.set.DisableAll,
		Sources:       p.set.Sources,
		Warnings:      p.warnings,
		Events:        p.eventsSummary(),
		EventNames:    eventNames(),
		Notifications: p.notify,
		Logging:       e.log != nil || len(e.sinks) > 0,
		Trust:         e.policy.Mode.String(),
		TrustStore:    e.policy.Store.Path,
		Hooks:         make([]HookInfo, 0, len(p.hooks)),
	}
	if r.Sources == nil {
		r.Sources = []config.SourceInfo{}
	}
	if r.Warnings == nil {
		r.Warnings = []config.Warning{}
	}
	live := e.liveVerdicts(p)
	for _, h := range p.hooks {
		c := h.cfg
		var filter *HookFilter
		if len(c.FilterTools)+len(c.FilterPaths) > 0 {
			filter = &HookFilter{Tool: c.FilterTools, Path: c.FilterPaths}
		}
		r.Hooks = append(r.Hooks, HookInfo{
			ID: c.ID, Description: c.Description, Event: c.Event, Filter: filter, Blocking: c.Blocking, Matcher: c.Matcher, Type: c.Type, Command: h.command(),
			Exec: h.exec(), TimeoutMs: int64(c.Timeout / time.Millisecond), Cwd: c.Cwd,
			Async: c.Async, FailClosed: c.FailClosed, PipeOutput: c.PipeOutput, Sequential: c.Sequential,
			Source: c.Source, Line: c.Line, Path: c.Path, Dialect: c.Dialect.String(), EventAsWritten: c.Spelling, Enabled: c.Disabled == "" && !p.set.DisableAll,
			Disabled: disabledReason(c, p.set.DisableAll), Env: envMap(c.Env), Persistent: c.Persistent, PerSession: c.PerSession, Workers: c.Workers,
			StatusMessage: c.StatusMessage, AsyncRewake: c.AsyncRewake,
			If: c.If, Once: c.Once, Plugin: c.Plugin, Managed: c.Managed, PolicyError: c.PolicyError,
		})
		r.Hooks[len(r.Hooks)-1].Trust, r.Hooks[len(r.Hooks)-1].TrustReason = trustOf(live, c)
		if h.proc != nil {
			st := h.proc.Status()
			r.Hooks[len(r.Hooks)-1].Process = &st
			if st.State == "disabled" {
				// Clipped: r.Warnings shares the plan's array, which fires read.
				r.Warnings = append(slices.Clip(r.Warnings), config.Warning{Source: c.Source, Hook: c.ID, Message: "persistent hook " + h.proc.Disabled(), Error: true})
			}
		}
	}
	return r, nil
}

// ConfigJSON is Config encoded as JSON.
func (e *Engine) ConfigJSON() ([]byte, error) {
	r, err := e.Config()
	if err != nil {
		return nil, err
	}
	return marshal(r)
}

func eventNames() map[string]string {
	m := map[string]string{}
	for _, n := range event.Names() {
		m[n] = event.Canonical(n)
	}
	return m
}

func disabledReason(c *config.Hook, all bool) string {
	if c.Disabled == "" && all {
		return "disableAllHooks is true"
	}
	return c.Disabled
}

func envMap(kv []string) map[string]string {
	if len(kv) == 0 {
		return nil
	}
	m := make(map[string]string, len(kv))
	for _, s := range kv {
		for i := 0; i < len(s); i++ {
			if s[i] == '=' {
				m[s[:i]] = s[i+1:]
				break
			}
		}
	}
	return m
}
