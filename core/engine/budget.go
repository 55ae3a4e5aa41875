package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/dialect"
)

// Claude Code runs its SessionEnd hooks under one shared budget (1.5 s, raised by the
// longest timeout a file sets, up to 60 s; CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS in the
// environment overrides it), so that quitting never waits long for them. A SessionEnd hook
// that sets no timeout has its own default of 1.5 s, or the variable's value when it is
// set (2.1.330: max(CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS ?? 1500, 0)): another hook's
// timeout raises the budget, not the default.

// sessionEndEnv overrides the SessionEnd budget, in milliseconds.
const sessionEndEnv = "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"

// budgetError is the cause of a SessionEnd fire's context ending at its budget.
type budgetError struct{ budget time.Duration }

func (b budgetError) Error() string {
	return fmt.Sprintf("timed out: SessionEnd hooks share a budget of %s", b.budget)
}

// sessionEndBudget is the budget of the configuration's Claude Code SessionEnd hooks; 0
// when it has none.
func sessionEndBudget(set *config.Set, getenv func(string) string) time.Duration {
	found := false
	var timeouts []time.Duration
	for i := range set.Hooks {
		h := &set.Hooks[i]
		if h.Event != "SessionEnd" || h.Dialect != dialect.Claude || !h.Enabled() {
			continue
		}
		found = true
		if h.TimeoutSet && h.Plugin == "" { // the reference: plugin hooks' timeouts do not raise it
			timeouts = append(timeouts, h.Timeout)
		}
	}
	if !found {
		return 0
	}
	if d := sessionEndOverride(getenv); d > 0 {
		return d
	}
	return dialect.SessionEndBudget(timeouts)
}

// sessionEndOverride is CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS of the host; 0 when unset
// or not a positive number of milliseconds.
func sessionEndOverride(getenv func(string) string) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(getenv(sessionEndEnv))); err == nil && n > 0 {
		return time.Duration(n) * time.Millisecond
	}
	return 0
}

// sessionEndDefaults gives the Claude Code SessionEnd hooks that set no timeout the
// environment's override as their own timeout, when it is set (they keep 1.5 s otherwise).
func sessionEndDefaults(set *config.Set, getenv func(string) string) {
	d := sessionEndOverride(getenv)
	if d == 0 {
		return
	}
	for i := range set.Hooks {
		h := &set.Hooks[i]
		if h.Event == "SessionEnd" && h.Dialect == dialect.Claude && !h.TimeoutSet {
			h.Timeout = d
		}
	}
}

// budgetFor returns the context a hook of the fire runs under: the fire's SessionEnd budget
// for Claude Code's hooks, else the engine's.
func (f *fire) budgetFor(h *hook) context.Context {
	if f.budget == nil || h.cfg.Dialect != dialect.Claude {
		return f.e.ctx
	}
	return f.budget
}

// ended says why ctx stopped a hook: the SessionEnd budget ran out (a timeout), or the
// engine closed.
func ended(ctx context.Context) (failure string, timedOut bool) {
	var b budgetError
	if errors.As(context.Cause(ctx), &b) {
		return b.Error(), true
	}
	return "killed: the engine closed", false
}
