package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/run"
	"github.com/hookexec/hookexec/core/template"
)

// Fire runs the hooks configured for event that match payload (a JSON object) and returns
// their aggregated decision. Hook failures are part of the Result, never an error; the error
// is ErrClosed, or ErrInvalid for an empty event name or a payload that is not a JSON object.
func (e *Engine) Fire(name string, data []byte) (*Result, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
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
	res := emptyResult(ev.Name)
	res.AgentOutput = e.takePending()
	selected := p.selectHooks(ev, doc)
	if len(selected) == 0 {
		res.DurationMs = ms(time.Since(start))
		return res, nil
	}
	f := e.newFire(name, ev, doc)
	results := make([]HookResult, len(selected))
	verdicts := make([]decide.Verdict, len(selected))
	f.runAll(selected, results, verdicts, p.set.Profile.StopAtFirstBlock)

	sum := decide.Aggregate(f.toolInput(), verdicts)
	res.Matched = len(selected)
	res.Blocked = sum.Blocked
	res.Decision = sum.Decision.String()
	res.Reason = sum.Reason
	res.Continue = sum.Continue
	res.StopReason = sum.StopReason
	res.UpdatedInput = sum.UpdatedInput
	res.AdditionalContext = sum.AdditionalContext
	res.SystemMessage = sum.SystemMessage
	res.Warnings = append(f.warnings, sum.Warnings...)
	for i := range verdicts {
		for _, w := range verdicts[i].Warnings {
			res.Warnings = append(res.Warnings, results[i].ID+": "+w)
		}
	}
	res.Hooks = results
	e.queuePiped(selected, results)
	res.DurationMs = ms(time.Since(start))
	return res, nil
}

// select_ returns the enabled hooks of the event whose matcher accepts the payload's subject.
func (p *plan) selectHooks(ev event.Info, doc *payload.Doc) []*hook {
	hooks := p.byEvent[ev.Name]
	if len(hooks) == 0 {
		return nil
	}
	subject := doc.First(ev.Subject)
	var out []*hook
	for _, h := range hooks {
		if h.matcher.Match(subject) {
			out = append(out, h)
		}
	}
	return out
}

// Match returns how many enabled hooks would run for event and subject, without running any.
func (e *Engine) Match(name, subject string) (int, error) {
	if e.closed.Load() {
		return 0, ErrClosed
	}
	if name == "" {
		return 0, fmt.Errorf("%w: empty event name", ErrInvalid)
	}
	n := 0
	for _, h := range e.plan.Load().byEvent[event.Canonical(name)] {
		if h.matcher.Match(subject) {
			n++
		}
	}
	return n, nil
}

// fire is the per-fire state shared by its hooks; everything in it is read-only once built.
type fire struct {
	e        *Engine
	name     string // as the host fired it (autohand hooks see "pre-tool" in HOOK_EVENT)
	ev       event.Info
	doc      *payload.Doc
	env      []string
	warnings []string // about the fire as a whole (environment values left out)
	frame    payload.Frame
	stdin    [3][]byte // per envelope, rendered on first use
	stdinMu  sync.Mutex
}

func (e *Engine) newFire(name string, ev event.Info, doc *payload.Doc) *fire {
	session := doc.String("session_id")
	if session == "" {
		session = e.opts.SessionID
	}
	f := &fire{e: e, name: name, ev: ev, doc: doc}
	f.env, f.warnings = e.fireEnv(name, doc, session)
	f.frame = payload.Frame{
		Event:          ev.Name,
		SessionID:      session,
		TranscriptPath: e.opts.TranscriptPath,
		Cwd:            e.opts.ProjectDir,
		Timestamp:      time.Now().UTC().Format(time.RFC3339Nano),
	}
	return f
}

func (f *fire) stdinFor(env payload.Envelope) []byte {
	f.stdinMu.Lock()
	defer f.stdinMu.Unlock()
	if f.stdin[env] == nil {
		f.stdin[env] = f.doc.Stdin(env, f.frame)
	}
	return f.stdin[env]
}

// toolInput is the input hooks may modify: tool_input, or cli-agent's tool_args.
func (f *fire) toolInput() []byte {
	for _, k := range [...]string{"tool_input", "tool_args"} {
		if v := f.doc.Root().Get(k); v != nil {
			return v.MarshalTo(nil)
		}
	}
	return nil
}

// runAll runs the selected hooks: in parallel up to max_parallel, except that a sequential
// hook waits for everything before it and holds back everything after it. Results land at
// their config index, so the order never depends on finishing times.
func (f *fire) runAll(hs []*hook, results []HookResult, verdicts []decide.Verdict, stopAtBlock bool) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, f.e.maxParallel)
	stopped := false
	for i, h := range hs {
		if stopped {
			results[i] = h.skipped("not run: an earlier hook blocked")
			verdicts[i] = decide.Verdict{Continue: true}
			continue
		}
		job := f.prepare(h)
		if h.cfg.Async {
			results[i] = job.pending()
			verdicts[i] = decide.Verdict{Continue: true}
			f.e.startAsync(job)
			continue
		}
		if h.cfg.Sequential || len(hs) == 1 {
			wg.Wait()
			results[i], verdicts[i] = job.execute(f.e.ctx)
			stopped = stopAtBlock && verdicts[i].Blocked
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			results[i], verdicts[i] = job.execute(f.e.ctx)
		}()
	}
	wg.Wait()
}

// job is everything one hook needs to run, rendered while the payload is still live, so
// that it can outlive the fire (async hooks).
type job struct {
	h          *hook
	ev         event.Info
	eventName  string
	argv       []string
	shellArgv  func() []string // fallback when a direct command is not on PATH
	spec       run.Spec
	prompt     string
	payload    []byte
	evaluator  PromptEvaluator
	failClosed bool
}

func (f *fire) prepare(h *hook) *job {
	j := &job{h: h, ev: f.ev, eventName: f.name, failClosed: h.cfg.FailClosed}
	render := func(paths []payload.Path) func(int) string {
		return func(i int) string { return f.doc.Render(paths[i]) }
	}
	switch {
	case h.prompt != nil:
		j.prompt = h.prompt.Argv(render(h.ppaths))[0]
		j.payload = f.stdinFor(payload.Claude)
		f.e.mu.Lock()
		j.evaluator = f.e.eval
		f.e.mu.Unlock()
	default:
		j.argv = h.cmd.Argv(render(h.paths))
		if h.cmd.Mode() == template.Direct {
			shell := h.cmd.ShellArgv(render(h.paths)) // rendered now: the payload dies with the fire
			j.shellArgv = func() []string { return shell }
		}
		env := f.env
		if len(h.cfg.Env) > 0 {
			env = append(env[:len(env):len(env)], h.cfg.Env...)
		}
		dir := h.cfg.Cwd
		if dir == "" {
			dir = f.e.opts.ProjectDir
		}
		j.spec = run.Spec{
			Argv:      j.argv,
			Stdin:     f.stdinFor(h.envelope()),
			Env:       env,
			Dir:       dir,
			Timeout:   h.cfg.Timeout,
			Grace:     f.e.grace,
			OutputCap: f.e.cap,
		}
	}
	return j
}

func (h *hook) envelope() payload.Envelope { return payload.Claude }

func (h *hook) base() HookResult {
	return HookResult{
		ID:      h.cfg.ID,
		Source:  h.cfg.Source,
		Matcher: h.cfg.Matcher,
		Command: h.command(),
		Exec:    h.exec(),
		Async:   h.cfg.Async,
	}
}

func (h *hook) command() string {
	switch {
	case h.cfg.Type == "prompt":
		return h.cfg.Prompt
	case len(h.cfg.Args) > 0:
		return strings.Join(h.cfg.Args, " ")
	}
	return h.cfg.Command
}

func (h *hook) skipped(why string) HookResult {
	r := h.base()
	r.ExitCode, r.Decision, r.Error = -1, "none", why
	return r
}

func (j *job) pending() HookResult {
	r := j.h.base()
	r.ExitCode, r.Decision = -1, "none"
	return r
}

// execute runs the hook and reads its outcome.
func (j *job) execute(ctx context.Context) (HookResult, decide.Verdict) {
	if j.h.prompt != nil {
		return j.evaluate(ctx)
	}
	r := run.Run(ctx, j.spec)
	if r.NotFound() && j.shellArgv != nil {
		// Let the shell report the missing program, so the output is what `sh -c` gives.
		spec := j.spec
		spec.Argv = j.shellArgv()
		r = run.Run(ctx, spec)
	}
	hr := j.h.base()
	hr.ExitCode = r.ExitCode
	hr.Signal = r.Signal
	hr.TimedOut = r.TimedOut
	hr.DurationMs = ms(r.Duration)
	hr.Stdout = string(r.Stdout)
	hr.Stderr = string(r.Stderr)
	hr.StdoutTruncated = r.StdoutTruncated
	hr.StderrTruncated = r.StderrTruncated
	failure := ""
	switch {
	case r.TimedOut:
		failure = fmt.Sprintf("timed out after %s", j.spec.Timeout)
	case r.Err != nil && errors.Is(r.Err, context.Canceled):
		failure = "killed: the engine closed"
	case r.Err != nil:
		failure = "cannot start: " + r.Err.Error()
		if _, err := os.Stat(j.spec.Dir); err != nil {
			// exec reports a bad cwd as the program missing; name the real culprit.
			failure = fmt.Sprintf("cannot start: working directory %s: %v", j.spec.Dir, err)
		}
	case r.Signal != "":
		failure = "killed by " + r.Signal
	}
	v := decide.Read(decide.Input{
		Event:      j.ev,
		ExitCode:   r.ExitCode,
		Stdout:     r.Stdout,
		Stderr:     r.Stderr,
		Failure:    failure,
		FailClosed: j.failClosed,
	})
	j.finish(&hr, &v)
	return hr, v
}

// evaluate hands a prompt hook to the host's evaluator under the hook's timeout.
func (j *job) evaluate(ctx context.Context) (HookResult, decide.Verdict) {
	hr := j.h.base()
	hr.ExitCode = -1
	start := time.Now()
	failure := ""
	var ok bool
	var reason string
	if j.evaluator == nil {
		failure = "prompt hook needs a prompt evaluator; the host registered none"
	} else {
		ctx, cancel := context.WithTimeout(ctx, j.h.cfg.Timeout)
		defer cancel()
		type answer struct {
			ok     bool
			reason string
			err    error
		}
		ch := make(chan answer, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					ch <- answer{err: fmt.Errorf("evaluator panicked: %v", p)}
				}
			}()
			a := answer{}
			a.ok, a.reason, a.err = j.evaluator(ctx, j.prompt, j.payload)
			ch <- a
		}()
		select {
		case a := <-ch:
			ok, reason = a.ok, a.reason
			if a.err != nil {
				failure = "prompt evaluator: " + a.err.Error()
			}
		case <-ctx.Done():
			hr.TimedOut = ctx.Err() == context.DeadlineExceeded
			failure = fmt.Sprintf("prompt evaluator did not answer within %s", j.h.cfg.Timeout)
		}
	}
	hr.DurationMs = ms(time.Since(start))
	in := decide.Input{Event: j.ev, Failure: failure, FailClosed: j.failClosed}
	if failure == "" {
		out, _ := json.Marshal(map[string]any{"ok": ok, "reason": reason})
		hr.Stdout = string(out)
		if ok {
			in.ExitCode = 0
		} else {
			in.ExitCode, in.Stderr = 2, []byte(reason)
		}
		hr.ExitCode = in.ExitCode
	}
	v := decide.Read(in)
	j.finish(&hr, &v)
	return hr, v
}

func (j *job) finish(hr *HookResult, v *decide.Verdict) {
	hr.Decision = v.Decision.String()
	if v.Output != nil {
		hr.Output = v.Output
	}
	if hr.Error == "" {
		hr.Error = v.Error
	}
}

// startAsync runs a job after the fire returned; its result goes to the listener.
func (e *Engine) startAsync(j *job) {
	e.async.Add(1)
	go func() {
		defer e.async.Done()
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
	}()
}

// queuePiped keeps the output of pipe_output hooks for the agent, in config order.
func (e *Engine) queuePiped(hs []*hook, results []HookResult) {
	for i, h := range hs {
		if !h.cfg.PipeOutput || h.cfg.Async || results[i].Stdout == "" {
			continue
		}
		e.mu.Lock()
		e.pending = append(e.pending, results[i].Stdout)
		e.mu.Unlock()
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
