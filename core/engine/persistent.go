package engine

import (
	"time"

	"github.com/hookexec/hookexec/core/persist"
	"github.com/hookexec/hookexec/core/template"
)

// attachPersistent gives every enabled persistent hook of p its process from the pool. An
// unchanged hook (same id, command, environment and directory) gets the process it had.
func (e *Engine) attachPersistent(p *plan) {
	for _, h := range p.hooks {
		if !h.cfg.Persistent || h.cfg.Cmd == nil || h.cfg.Disabled != "" || p.set.DisableAll {
			continue
		}
		h.proc = e.procs.Hook(h.cfg.ID, e.persistSpec(h))
	}
}

// keepPersistent stops the processes of hooks p no longer has, once p is in force.
func (e *Engine) keepPersistent(p *plan) {
	var keep []*persist.Hook
	for _, h := range p.hooks {
		if h.proc != nil {
			keep = append(keep, h.proc)
		}
	}
	e.procs.Keep(keep, e.closeTimeout())
}

// persistSpec is how a persistent hook's process starts: the host's environment with the
// values that do not change between fires (per-fire ones are on stdin), then the hook's own.
func (e *Engine) persistSpec(h *hook) persist.Spec {
	env := append(e.hostEnv(),
		"HOOK_WORKSPACE="+e.opts.ProjectDir,
		"CWD="+e.opts.ProjectDir,
		"CLAUDE_PROJECT_DIR="+e.opts.ProjectDir,
	)
	env = append(env, h.cfg.Env...)
	dir := h.cfg.Cwd
	if dir == "" {
		dir = e.opts.ProjectDir
	}
	s := persist.Spec{Argv: h.cfg.Cmd.Argv(nil), Env: env, Dir: dir, Grace: e.grace, Workers: h.cfg.Workers}
	if h.cfg.Cmd.Mode() == template.Direct {
		s.Fallback = h.cfg.Cmd.ShellArgv(nil)
	}
	return s
}

// closeTimeout is how long Close waits for async hooks and persistent processes.
func (e *Engine) closeTimeout() time.Duration {
	if e.opts.CloseTimeoutMs > 0 {
		return time.Duration(e.opts.CloseTimeoutMs) * time.Millisecond
	}
	return 5 * time.Second
}
