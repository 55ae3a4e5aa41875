package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
)

// Fire: the path of one fire, select → prepare → run → decide, each step in its own file
// (select.go, prepare.go, execute.go, output.go).

// Fire runs the hooks configured for event that match payload (a JSON object) and returns
// their aggregated decision. Hook failures are part of the Result, never an error; the error
// is ErrClosed, or ErrInvalid for an empty event name or a payload that is not a JSON object.
func (e *Engine) Fire(name string, data []byte) (*Result, error) {
	return e.FireEnv(name, data, nil)
}

// FireEnv is Fire with env (KEY=VALUE entries) added to the environment of this fire's
// hooks, after the host's and the options' env: what belongs to one call and not to the
// engine, such as the caller's TRACEPARENT and TRACESTATE, which observers read from there
// too. Persistent hooks, whose environment is fixed when they start, do not see it.
func (e *Engine) FireEnv(name string, data []byte, env []string) (*Result, error) {
	return e.fire(name, data, env, false)
}

// FireAs is Fire for a caller with an environment of its own, base (KEY=VALUE entries),
// which the one-shot hooks of this fire get after the host's environment in place of
// Options.Env, then env. The daemon shares one engine among callers whose environments
// differ only outside EnvRead (an agent's sessions) and fires each call this way, so a
// hook sees its own session's variables. Persistent hooks do not see it: their processes
// keep the environment of the Open or Reload that started them.
func (e *Engine) FireAs(name string, data []byte, base, env []string) (*Result, error) {
	all := make([]string, 0, len(base)+len(env))
	return e.fire(name, data, append(append(all, base...), env...), true)
}

func (e *Engine) fire(name string, data []byte, env []string, own bool) (*Result, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	if name == "" {
		return nil, fmt.Errorf("%w: empty event name", ErrInvalid)
	}
	start := time.Now()
	doc, err := payload.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	defer doc.Release()

	p := e.plan.Load()
	ev := event.Lookup(name)
	if p.notify {
		e.announce(name, doc, start)
	}
	res := emptyResult(ev.Name)
	session := e.sessionOf(doc)
	if ev.Name == "SessionEnd" {
		defer e.sessions.end(session)
	}
	subject := ev.SubjectOf(doc.First(ev.Subject))
	var notes []string
	if ev.CanBlock && !ev.Blocks(subject) {
		// ConfigChange of policy_settings: hooks run, but nothing they say can block it.
		ev.CanBlock = false
		notes = append(notes, fmt.Sprintf("%s of %s cannot be blocked; the hooks' decisions are ignored", ev.Name, subject))
	}
	if res := e.closedResult(p, name, ev, subject, doc, data, env, start); res != nil {
		return res, nil
	}
	selected := p.selectHooks(ev, doc, subject, e.ruleCwd(doc))
	if p.trust != nil {
		selected, res.AwaitingApproval = e.admit(p.trust, selected)
		for _, a := range res.AwaitingApproval {
			res.Warnings = append(res.Warnings, a.ID+": not run, awaiting approval ("+a.Reason+")")
		}
	}
	selected = e.once(selected, session)
	if len(selected) == 0 {
		res.AgentOutput = e.agentOutput(ev, nil)
		res.DurationMs = ms(time.Since(start))
		if e.log != nil {
			e.record(p, name, ev, doc, start, res, nil, nil)
		}
		if len(e.sinks) > 0 {
			e.observe(name, ev, doc, data, env, start, res, nil, nil)
		}
		return res, nil
	}
	f := e.newFire(name, ev, doc, start)
	f.extraEnv, f.ownEnv = env, own
	if len(e.sinks) > 0 {
		f.starts = make([]hookStart, len(selected))
	}
	f.warnings = append(f.warnings, notes...)
	if envFileEvents[ev.Name] {
		if f.envFile, err = newEnvFile(); err != nil {
			f.warnings = append(f.warnings, "CLAUDE_ENV_FILE not provided: "+err.Error())
		}
	}
	f.httpVars = p.set.HTTPHookEnvVars
	if ev.Name == "SessionEnd" && p.sessionEnd > 0 {
		ctx, cancel := context.WithTimeoutCause(e.ctx, p.sessionEnd, budgetError{p.sessionEnd})
		defer cancel()
		f.budget = ctx
	}
	results := make([]HookResult, len(selected))
	verdicts := make([]decide.Verdict, len(selected))
	f.runAll(selected, results, verdicts)
	if f.envFile != "" {
		var warnings []string
		res.Env, warnings = readEnvFile(f.envFile, f.env)
		f.warnings = append(f.warnings, warnings...)
		e.removeEnvFile(f.envFile, f.hasAsync, &f.async)
	}

	var input []byte // encoded only when a hook's modified_args needs a base to merge into
	if slices.ContainsFunc(verdicts, func(v decide.Verdict) bool { return v.ModifiedArgs != nil }) {
		input = f.toolInput()
	}
	sum := decide.Aggregate(input, verdicts)
	res.Matched = len(selected)
	res.Blocked = sum.Blocked
	res.Decision = sum.Decision.String()
	res.Reason = sum.Reason
	res.Continue = sum.Continue
	res.StopReason = sum.StopReason
	res.UpdatedInput = sum.UpdatedInput
	res.AdditionalContext = sum.AdditionalContext
	res.SystemMessage = sum.SystemMessage
	res.WorktreePath = sum.WorktreePath
	if ev.Name == "Stop" {
		if override, w := e.sessions.stopFire(session, res.Blocked, e.maxStopBlocks); override {
			// Once the cap decides, the result is a plain "not blocked": a host that hands any
			// reason back to the model would keep it from stopping. The per-hook records keep
			// what each hook said.
			res.Blocked, res.Decision, res.Reason = false, decide.None.String(), ""
			f.warnings = append(f.warnings, w)
		}
	}
	res.UpdatedToolOutput = sum.UpdatedToolOutput
	res.UpdatedPermissions = sum.UpdatedPermissions
	res.Interrupt, res.Retry, res.ReloadSkills = sum.Interrupt, sum.Retry, sum.ReloadSkills
	res.SessionTitle, res.InitialUserMessage = sum.SessionTitle, sum.InitialUserMessage
	res.WatchPaths, res.TerminalSequence = sum.WatchPaths, sum.TerminalSequence
	if ev.Name == "PostToolUse" {
		res.ClassifierContext = sum.ClassifierContext
	}
	res.Warnings = append(append(res.Warnings, f.warnings...), sum.Warnings...)
	for i := range verdicts {
		for _, w := range verdicts[i].Warnings {
			res.Warnings = append(res.Warnings, results[i].ID+": "+w)
		}
	}
	res.Hooks = results
	res.AgentOutput = e.agentOutput(ev, pipedOutput(selected, results))
	res.DurationMs = ms(time.Since(start))
	if e.log != nil {
		e.record(p, name, ev, doc, start, res, selected, f)
	}
	if len(e.sinks) > 0 {
		e.observe(name, ev, doc, data, env, start, res, selected, f)
	}
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
