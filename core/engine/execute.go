package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/persist"
	"github.com/hookexec/hookexec/core/run"
)

// runAll runs the selected hooks: in parallel up to max_parallel, except that a sequential
// hook waits for everything before it and holds back everything after it. Results land at
// their config index, so the order never depends on finishing times. After a sequential
// StopOnBlock hook blocks (AutoAgent), the rest are reported as not run.
func (f *fire) runAll(hs []*hook, results []HookResult, verdicts []decide.Verdict) {
	// Claude Code 2.1.330 runs the managed policy's hooks first (they come first in config
	// order), and when one of them blocks, no other hook runs (live: managed_block_first).
	if n := managedPrefix(hs); n > 0 && n < len(hs) && f.ev.CanBlock {
		f.runGroup(0, hs[:n], results[:n], verdicts[:n])
		if slices.ContainsFunc(verdicts[:n], func(v decide.Verdict) bool { return v.Blocked }) {
			for i, h := range hs[n:] {
				results[n+i] = h.skipped(notRunManaged)
				verdicts[n+i] = decide.Verdict{Continue: true}
			}
			return
		}
		f.runGroup(n, hs[n:], results[n:], verdicts[n:])
		return
	}
	f.runGroup(0, hs, results, verdicts)
}

// managedPrefix is the number of managed hooks at the start of hs.
func managedPrefix(hs []*hook) int {
	n := 0
	for n < len(hs) && hs[n].cfg.Managed {
		n++
	}
	return n
}

// notRunManaged is the error of hooks a managed hook's block kept from running.
const notRunManaged = "not run: a managed hook blocked"

// runGroup runs hooks in parallel (in order where they are sequential) and waits for them.
// base is the index of hs[0] among the fire's selected hooks.
func (f *fire) runGroup(base int, hs []*hook, results []HookResult, verdicts []decide.Verdict) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, f.e.maxParallel)
	// A block of a hook that stops on one (StopOnBlock: AutoAgent, Copilot CLI) keeps the
	// later hooks of its own dialect from running, as its agent does; in a mixed host the
	// other agents' hooks run as their host runs them.
	var stopped map[*dialect.Dialect]bool
	spread := spreadSequential(hs)
	for i, h := range hs {
		if stopped[h.cfg.Dialect] {
			results[i] = h.skipped(notRun)
			verdicts[i] = decide.Verdict{Continue: true}
			continue
		}
		job := f.prepare(h)
		f.e.announceStatus(f.ev.Name, h)
		f.markStart(base+i, h)
		if h.cfg.Async {
			results[i] = job.pending()
			verdicts[i] = decide.Verdict{Continue: true}
			f.async.Add(1)
			f.hasAsync, job.done = true, f.async.Done
			f.e.startAsync(job)
			continue
		}
		ctx := f.budgetFor(h)
		if h.cfg.Sequential || spread[h.cfg.Dialect] || len(hs) == 1 {
			wg.Wait()
			results[i], verdicts[i] = job.execute(ctx)
			if h.cfg.StopOnBlock && verdicts[i].Blocked {
				if stopped == nil {
					stopped = map[*dialect.Dialect]bool{}
				}
				stopped[h.cfg.Dialect] = true
			}
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			results[i], verdicts[i] = job.execute(ctx)
		}()
	}
	wg.Wait()
}

// spreadSequential lists the dialects whose hooks all run one after another in this fire:
// those where one sequential group makes the whole fire sequential (Gemini CLI), when a
// selected hook of theirs is sequential.
func spreadSequential(hs []*hook) map[*dialect.Dialect]bool {
	var out map[*dialect.Dialect]bool
	for _, h := range hs {
		if d := h.cfg.Dialect; d != nil && d.SequentialSpreads && h.cfg.Sequential {
			if out == nil {
				out = map[*dialect.Dialect]bool{}
			}
			out[d] = true
		}
	}
	return out
}

// notRun is the error of hooks a sequential block kept from running (AutoAgent).
const notRun = "not run: an earlier hook blocked"

// execute runs the hook and reads its outcome.
func (j *job) execute(ctx context.Context) (HookResult, decide.Verdict) {
	switch {
	case evaluated(j.h.cfg.Type):
		return j.evaluate(ctx)
	case j.h.cfg.Type == "http":
		return j.post(ctx)
	case j.h.cfg.Type == "policy":
		return j.evalPolicy(ctx)
	case j.h.cfg.Type == "askAgent":
		// Kiro's askAgent: the prompt goes to the agent; nothing runs.
		hr := j.h.base()
		v := decide.Verdict{Continue: true, AdditionalContext: j.prompt}
		j.finish(&hr, &v)
		return hr, v
	}
	if j.h.cfg.Shell == "powershell" && len(j.h.cfg.Args) == 0 && runtime.GOOS != "windows" {
		// Claude Code runs these with PowerShell on Windows only; here it is a non-blocking error.
		hr := j.h.base()
		hr.ExitCode = -1
		v := decide.Verdict{Continue: true, Error: "shell \"powershell\" runs only on Windows; the hook was not run"}
		if eb := j.h.cfg.Dialect.ErrorBlocks; eb != nil && j.ev.CanBlock {
			spelling := j.h.cfg.Spelling
			if spelling == "" {
				spelling = j.eventName
			}
			if why := eb(spelling); why != "" {
				v.Decision, v.Blocked, v.Reason = decide.Deny, true, why
			}
		}
		j.finish(&hr, &v)
		return hr, v
	}
	if j.refused != "" {
		return j.refuse(j.refused)
	}
	var r run.Result
	if j.h.git() {
		r = j.runGit(ctx)
	} else if j.runner != nil {
		r = j.runner(ctx, j.spec)
	} else {
		r = run.Run(ctx, j.spec)
	}
	missing := ""
	if r.NotFound() && j.shellArgv != nil {
		// Let the shell report the missing program, so the output is what `sh -c` gives.
		spec := j.spec
		spec.Argv = j.shellArgv()
		r = run.Run(ctx, spec)
		if r.ExitCode == 127 {
			// Still a spawn failure, which fail_closed must block on.
			missing = "cannot start: " + j.argv[0] + ": command not found"
		}
	}
	hr := j.h.base()
	hr.ExitCode = r.ExitCode
	hr.Signal = r.Signal
	hr.TimedOut = r.TimedOut
	hr.DurationMs = ms(r.Duration)
	stdout, unread := stdoutOf(&hr, r.Stdout, r.StdoutTruncated, j.spec.OutputCap)
	hr.Stderr = string(r.Stderr)
	hr.StderrTruncated = r.StderrTruncated
	failure := ""
	switch {
	case r.TimedOut:
		failure = fmt.Sprintf("timed out after %s", j.spec.Timeout)
	case errors.Is(r.Err, persist.ErrFailed):
		failure = r.Err.Error()
	case r.Err != nil && ctx.Err() != nil:
		failure, hr.TimedOut = ended(ctx)
	case errors.Is(r.Err, syscall.E2BIG):
		// The values made the command too large to exec: a refusal, like a value
		// Render refused, so that no value can keep a guard from running.
		return j.refuse("the rendered command is over the system's argument limit: " + r.Err.Error())
	case r.Err != nil:
		failure = "cannot start: " + r.Err.Error()
		if _, err := os.Stat(j.spec.Dir); err != nil {
			// exec reports a bad cwd as the program missing; name the real culprit.
			failure = fmt.Sprintf("cannot start: working directory %s: %v", j.spec.Dir, err)
		}
	case r.Signal != "":
		failure = "killed by " + r.Signal
	case missing != "":
		failure = missing
	case unread != "":
		failure = unread
	}
	spelling := j.h.cfg.Spelling
	if spelling == "" {
		spelling = j.eventName
	}
	v := readCommand(j.h.cfg, j.ev, spelling, r.ExitCode, stdout, r.Stderr, failure)
	if r.Stragglers {
		v.Warnings = append(v.Warnings, fmt.Sprintf("processes it started held its output %s after it exited; they were killed", j.spec.Grace))
	}
	if errors.Is(r.Err, persist.ErrDisabled) {
		v.Warnings = append(v.Warnings, "persistent hook disabled until reload")
	}
	j.finish(&hr, &v)
	return hr, v
}

// readCommand reads how a command hook ended, in the words of its dialect (spelling is the
// event as the hook saw it).
func readCommand(cfg *config.Hook, ev event.Info, spelling string, exit int, stdout, stderr []byte, failure string) decide.Verdict {
	if halt := cfg.Dialect.HaltExit; halt != 0 && exit == halt && failure == "" {
		// The exit status that ends the agent's turn, stderr the reason (Crush's 49).
		reason := strings.TrimSpace(string(stderr))
		if reason == "" {
			reason = fmt.Sprintf("turn halted by hook (exit %d)", halt)
		}
		out, _ := json.Marshal(map[string]any{"continue": false, "stopReason": reason, "decision": "block", "reason": reason})
		exit, stdout = 0, out
	} else if answer := cfg.Dialect.Answer; answer != nil && failure == "" {
		// The hook answered in its agent's vocabulary; decide reads the canonical one.
		exit, stdout = answer(spelling, exit, stdout)
	}
	return decide.Read(decide.Input{
		Event:      ev,
		ExitCode:   exit,
		Stdout:     stdout,
		Stderr:     stderr,
		Failure:    failure,
		FailClosed: cfg.FailClosed,
		Blocking:   cfg.Blocking,

		DecisionObjects:   cfg.Dialect.DecisionObjects,
		ContinueAfterTool: cfg.Dialect.ContinueAfterTool,
		NestedContext:     cfg.Dialect == dialect.Claude,
		ClaudeSchema:      cfg.Dialect == dialect.Claude,
		Vocabulary:        cfg.Dialect.Output,
		ContextLimit:      cfg.ContextLimit,
	})
}

// refuse ends a hook that was not run because of a value: it blocks wherever the event
// can block (decide.Input.Refused), and is an error elsewhere.
func (j *job) refuse(why string) (HookResult, decide.Verdict) {
	hr := j.h.base()
	hr.ExitCode = -1
	v := decide.Read(decide.Input{Event: j.ev, Failure: why, Refused: true, FailClosed: j.h.cfg.FailClosed, Blocking: j.h.cfg.Blocking})
	j.finish(&hr, &v)
	return hr, v
}

func (j *job) finish(hr *HookResult, v *decide.Verdict) {
	j.restrictTemplated(v)
	j.onFailure(hr, v)
	hr.Decision = v.Decision.String()
	if v.Output != nil {
		hr.Output = v.Output
	}
	if hr.Error == "" {
		hr.Error = v.Error
	}
	// A hook that failed and still blocks (onFailure "block", fail_closed, a refused
	// value): what observers count as a fail-closed block.
	hr.failClosed = v.Blocked && hr.Error != ""
}

// startAsync runs a job after the fire returned; its result goes to the listener.
func (e *Engine) startAsync(j *job) {
	e.async.Add(1)
	go func() {
		defer e.async.Done()
		if j.done != nil {
			defer j.done()
		}
		hr, v := j.execute(e.ctx)
		e.mu.Lock()
		fn := e.listen
		e.mu.Unlock()
		if fn == nil {
			return
		}
		msg, _ := marshal(struct {
			Event    string     `json:"event"`
			Hook     HookResult `json:"hook"`
			Blocked  bool       `json:"blocked"`
			Decision string     `json:"decision"`
			Reason   string     `json:"reason"`
		}{j.ev.Name, hr, v.Blocked, v.Decision.String(), v.Reason})
		fn("async", msg)
		if wake, ok := rewake(j.ev.Name, j.h, &hr); ok {
			fn("rewake", wake)
		}
	}()
}
