package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/persist"
	"github.com/hookexec/hookexec/core/run"
	"github.com/hookexec/hookexec/core/template"
	"github.com/valyala/fastjson"
)

// Fire runs the hooks configured for event that match payload (a JSON object) and returns
// their aggregated decision. Hook failures are part of the Result, never an error; the error
// is ErrClosed, or ErrInvalid for an empty event name or a payload that is not a JSON object.
func (e *Engine) Fire(name string, data []byte) (*Result, error) {
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
		return res, nil
	}
	f := e.newFire(name, ev, doc, start)
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
			res.Blocked, res.Decision = false, decide.None.String()
			f.warnings = append(f.warnings, w)
		}
	}
	res.UpdatedToolOutput = sum.UpdatedToolOutput
	res.UpdatedPermissions = sum.UpdatedPermissions
	res.Interrupt, res.Retry, res.ReloadSkills = sum.Interrupt, sum.Retry, sum.ReloadSkills
	res.SessionTitle, res.InitialUserMessage = sum.SessionTitle, sum.InitialUserMessage
	res.WatchPaths, res.TerminalSequence = sum.WatchPaths, sum.TerminalSequence
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
	return res, nil
}

// selectHooks returns the enabled hooks of the event whose matcher accepts the payload's
// subject and whose filter (autohand) accepts its tool and file path.
func (p *plan) selectHooks(ev event.Info, doc *payload.Doc, subject, cwd string) []*hook {
	hooks := p.byEvent[ev.Name]
	if len(hooks) == 0 {
		return nil
	}
	var out []*hook
	var tool, path string
	looked := false
	for _, h := range hooks {
		if !h.cfg.Match.Match(subject) {
			continue
		}
		if h.cfg.Filter != nil {
			if !looked {
				tool, path, looked = doc.String("tool_name"), filePath(doc), true
			}
			if !h.cfg.Filter.Match(tool, path) {
				continue
			}
		}
		if h.cfg.Rule != nil && !h.cfg.Rule.Match(doc.String("tool_name"), toolInput(doc), cwd) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// ruleCwd is where relative paths of "if" rules start: the payload's cwd, else the project.
func (e *Engine) ruleCwd(doc *payload.Doc) string {
	if cwd := doc.String("cwd"); cwd != "" {
		return cwd
	}
	return e.opts.ProjectDir
}

// once leaves out the "once" hooks that already ran in session, and records the others.
func (e *Engine) once(hs []*hook, session string) []*hook {
	out := hs[:0:0]
	for _, h := range hs {
		if !h.cfg.Once || e.sessions.claimOnce(session, h.cfg.ID) {
			out = append(out, h)
		}
	}
	return out
}

// toolInput is the payload's tool input object (cli-agent names it tool_args), or nil.
func toolInput(doc *payload.Doc) *fastjson.Value {
	if v := doc.Root().Get("tool_input"); v != nil {
		return v
	}
	return doc.Root().Get("tool_args")
}

// filePathKeys are where a payload names the file a fire is about, first present wins.
var filePathKeys = []payload.Path{mustPath("file_path"), mustPath("path"), mustPath("tool_input.file_path"), mustPath("tool_input.path")}

func filePath(doc *payload.Doc) string {
	for _, p := range filePathKeys {
		if s := payload.Render(doc.Get(p)); s != "" {
			return s
		}
	}
	return ""
}

func mustPath(expr string) payload.Path {
	p, err := payload.Compile(expr)
	if err != nil {
		panic("hookexec: bad built-in path " + expr) // a programming error, caught by tests
	}
	return p
}

// Match returns how many enabled hooks would run for event and subject, without running any.
// Hooks awaiting approval (as judged at load) do not count.
func (e *Engine) Match(name, subject string) (int, error) {
	if !e.gate.enter() {
		return 0, ErrClosed
	}
	defer e.gate.leave()
	if name == "" {
		return 0, fmt.Errorf("%w: empty event name", ErrInvalid)
	}
	return len(e.plan.Load().matching(name, subject)), nil
}

// matching lists the enabled hooks of event name whose matcher accepts subject, leaving
// out those awaiting approval.
func (p *plan) matching(name, subject string) []*hook {
	ev := event.Lookup(name)
	subject = ev.SubjectOf(subject)
	var out []*hook
	for _, h := range p.byEvent[ev.Name] {
		if h.cfg.Match.Match(subject) && !h.awaiting() {
			out = append(out, h)
		}
	}
	return out
}

// MatchIDs returns the ids of the enabled hooks that would run for event and subject, in
// config order, without running any: the hooks Match counts (matchers only; autohand's
// tool/path filters need a payload and are applied by Fire). Never nil.
func (e *Engine) MatchIDs(name, subject string) ([]string, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	if name == "" {
		return nil, fmt.Errorf("%w: empty event name", ErrInvalid)
	}
	ids := []string{}
	for _, h := range e.plan.Load().matching(name, subject) {
		ids = append(ids, h.cfg.ID)
	}
	return ids, nil
}

// fire is the per-fire state shared by its hooks. It is used only by the firing goroutine
// (prepare renders everything a hook needs before the hook runs elsewhere).
type fire struct {
	e        *Engine
	name     string // as the host fired it
	ev       event.Info
	doc      *payload.Doc
	session  string
	env      []string // HOOK_EVENT spelt as fired, built on first use (persistent hooks need none); see envOf
	eventAt  int      // index of HOOK_EVENT in env
	warnings []string // about the fire as a whole (environment values left out)
	frame    payload.Frame
	dialects map[*dialect.Dialect]*dialectView // per dialect, built on first use
	async    sync.WaitGroup                    // the fire's async hooks, until they finish
	hasAsync bool                              // the fire started async hooks
	envFile  string                            // CLAUDE_ENV_FILE of this fire; "" when it has none
	budget   context.Context                   // SessionEnd's shared budget; nil for other fires
	httpVars []string                          // httpHookAllowedEnvVars; nil when no file defines it
}

// sessionOf is the fire's session: the payload's session_id, else the engine's default.
func (e *Engine) sessionOf(doc *payload.Doc) string {
	if s := doc.String("session_id"); s != "" {
		return s
	}
	return e.opts.SessionID
}

// dialectView is what hooks of one dialect see of the fire.
type dialectView struct {
	env   []string
	stdin []byte
}

func (e *Engine) newFire(name string, ev event.Info, doc *payload.Doc, now time.Time) *fire {
	session := e.sessionOf(doc)
	f := &fire{e: e, name: name, ev: ev, doc: doc, session: session}
	f.frame = payload.Frame{
		SessionID:      session,
		TranscriptPath: e.opts.TranscriptPath,
		Cwd:            e.opts.ProjectDir,
		Time:           now,
	}
	return f
}

// view returns the stdin for hooks of dialect d: the event spelt their way (autohand
// hooks see "pre-tool" even when the host fired PreToolUse) in their envelope.
func (f *fire) view(d *dialect.Dialect) *dialectView {
	if v := f.dialects[d]; v != nil {
		return v
	}
	v := &dialectView{}
	frame := f.frame
	frame.Event = d.StdinEvent(f.name, f.ev.Name)
	v.stdin = f.doc.Stdin(d.Envelope, frame)
	if f.dialects == nil {
		f.dialects = map[*dialect.Dialect]*dialectView{}
	}
	f.dialects[d] = v
	return v
}

// envOf returns the environment of one-shot hooks of dialect d, with HOOK_EVENT spelt
// their way. It is built on first use: a fire of persistent hooks only pays for stdin.
func (f *fire) envOf(d *dialect.Dialect) []string {
	v := f.view(d)
	if v.env != nil {
		return v.env
	}
	if f.env == nil {
		var warnings []string
		f.env, warnings = f.e.fireEnv(f.name, f.doc, f.session)
		f.eventAt = len(f.e.env) // fireEnv puts HOOK_EVENT right after the host's environment
		f.warnings = append(f.warnings, warnings...)
		if f.envFile != "" {
			f.env = append(f.env, "CLAUDE_ENV_FILE="+f.envFile)
		}
	}
	v.env = f.env
	if n := d.EventName(f.name, f.ev.Name); n != f.name {
		v.env = slices.Clone(f.env)
		v.env[f.eventAt] = "HOOK_EVENT=" + n
	}
	return v.env
}

// render looks a placeholder's value up in the payload. When the payload lacks them,
// session_id and cwd are the fire's own and exit_code is the tool response's.
func (f *fire) render(p payload.Path) string {
	if v := f.doc.Get(p); v != nil {
		return payload.Render(v)
	}
	switch p.String() {
	case "session_id":
		return f.frame.SessionID
	case "cwd":
		return f.frame.Cwd
	case "exit_code":
		for _, x := range exitCodePaths {
			if v := f.doc.Get(x); v != nil {
				return payload.Render(v)
			}
		}
	}
	return ""
}

var exitCodePaths = func() []payload.Path {
	out := make([]payload.Path, len(exitCodeFallback))
	for i, x := range exitCodeFallback {
		out[i] = mustPath(x)
	}
	return out
}()

// toolInput is the input hooks may modify (tool_input, or cli-agent's tool_args) as JSON.
func (f *fire) toolInput() []byte {
	if v := toolInput(f.doc); v != nil {
		return payload.AppendJSON(nil, v)
	}
	return nil
}

// runAll runs the selected hooks: in parallel up to max_parallel, except that a sequential
// hook waits for everything before it and holds back everything after it. Results land at
// their config index, so the order never depends on finishing times. After a sequential
// StopOnBlock hook blocks (AutoAgent), the rest are reported as not run.
func (f *fire) runAll(hs []*hook, results []HookResult, verdicts []decide.Verdict) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, f.e.maxParallel)
	stopped := false
	for i, h := range hs {
		if stopped {
			results[i] = h.skipped(notRun)
			verdicts[i] = decide.Verdict{Continue: true}
			continue
		}
		job := f.prepare(h)
		f.e.announceStatus(f.ev.Name, h)
		if h.cfg.Async {
			results[i] = job.pending()
			verdicts[i] = decide.Verdict{Continue: true}
			f.async.Add(1)
			f.hasAsync, job.done = true, f.async.Done
			f.e.startAsync(job)
			continue
		}
		ctx := f.budgetFor(h)
		if h.cfg.Sequential || len(hs) == 1 {
			wg.Wait()
			results[i], verdicts[i] = job.execute(ctx)
			stopped = h.cfg.StopOnBlock && verdicts[i].Blocked
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

// notRun is the error of hooks a sequential block kept from running (AutoAgent).
const notRun = "not run: an earlier hook blocked"

// job is everything one hook needs to run, rendered while the payload is still live, so
// that it can outlive the fire (async hooks).
type job struct {
	h         *hook
	ev        event.Info
	eventName string
	argv      []string
	shellArgv func() []string // fallback when a direct command is not on PATH
	spec      run.Spec
	runner    func(context.Context, run.Spec) run.Result // run.Run, or a persistent hook's process
	prompt    string                                     // a prompt hook's prompt, or git-commit's message
	http      run.HTTPSpec
	// Hooks the host evaluates: their definition, stdin payload and the evaluator.
	definition []byte
	payload    []byte
	evaluator  Evaluator
	done       func() // called when an async job finished; nil for others
}

func (f *fire) prepare(h *hook) *job {
	j := &job{h: h, ev: f.ev, eventName: f.name}
	render := func(paths []payload.Path) func(int) string {
		return func(i int) string { return f.render(paths[i]) }
	}
	v := f.view(h.cfg.Dialect)
	if h.cfg.Text != nil {
		j.prompt = h.cfg.Text.Argv(render(h.cfg.TextPaths))[0]
	}
	if evaluated(h.cfg.Type) {
		j.payload = v.stdin
		j.definition = f.definition(h, j.prompt, v.stdin)
		j.spec.OutputCap = f.e.cap
		f.e.mu.Lock()
		j.evaluator = f.e.eval
		f.e.mu.Unlock()
		return j
	}
	if h.proc != nil {
		// A persistent hook's process has its argv and environment already; a request is
		// only its stdin line.
		j.spec = run.Spec{Stdin: v.stdin, Timeout: h.cfg.Timeout, OutputCap: f.e.cap}
		j.runner = h.proc.Run
		return j
	}
	if c := h.cfg.Cmd; c != nil {
		j.argv = withShell(h.cfg.Shell, c.Argv(render(h.cfg.CmdPaths)))
		if c.Mode() == template.Direct {
			shell := withShell(h.cfg.Shell, c.ShellArgv(render(h.cfg.CmdPaths))) // rendered now: the payload dies with the fire
			j.shellArgv = func() []string { return shell }
		}
	}
	env := f.envOf(h.cfg.Dialect)
	if len(h.cfg.Env) > 0 {
		env = append(env[:len(env):len(env)], h.cfg.Env...)
	}
	if h.cfg.Type == "http" {
		j.http = httpSpec(h, v.stdin, env, f.e.cap, f.httpVars)
		return j
	}
	dir := h.cfg.Cwd
	if dir == "" {
		dir = f.e.opts.ProjectDir
	}
	j.spec = run.Spec{
		Argv:      j.argv,
		Stdin:     v.stdin,
		Env:       env,
		Dir:       dir,
		Timeout:   h.cfg.Timeout,
		Grace:     f.e.grace,
		OutputCap: f.e.cap,
	}
	return j
}

func (h *hook) base() HookResult {
	return HookResult{
		ID:      h.cfg.ID,
		Source:  h.cfg.Source,
		Matcher: h.cfg.Matcher,
		Command: h.command(),
		Exec:    h.exec(),
		Async:   h.cfg.Async,
		// Status is the text a host shows while the hook runs (also announced as it starts).
		StatusMessage: h.cfg.StatusMessage,
	}
}

func (h *hook) command() string {
	switch {
	case h.cfg.Type == "prompt" || h.cfg.Type == "agent":
		return h.cfg.Prompt
	case h.cfg.Type == "http":
		return h.cfg.URL
	case h.cfg.Type == "mcp_tool":
		return h.cfg.Server + ":" + h.cfg.Tool
	case h.git():
		return h.gitCommand()
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

// withShell runs a shell-form command with bash when the hook asks for it ("shell": "bash");
// Claude Code's default, sh, is what /bin/sh -c gives.
func withShell(shell string, argv []string) []string {
	if shell == "bash" && len(argv) == 3 && argv[0] == "/bin/sh" && argv[1] == "-c" {
		return []string{"bash", "-c", argv[2]}
	}
	return argv
}

// execute runs the hook and reads its outcome.
func (j *job) execute(ctx context.Context) (HookResult, decide.Verdict) {
	switch {
	case evaluated(j.h.cfg.Type):
		return j.evaluate(ctx)
	case j.h.cfg.Type == "http":
		return j.post(ctx)
	}
	if j.h.cfg.Shell == "powershell" && len(j.h.cfg.Args) == 0 && runtime.GOOS != "windows" {
		// Claude Code runs these with PowerShell on Windows only; here it is a non-blocking error.
		hr := j.h.base()
		hr.ExitCode = -1
		v := decide.Verdict{Continue: true, Error: "shell \"powershell\" runs only on Windows; the hook was not run"}
		j.finish(&hr, &v)
		return hr, v
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
	hr.Stdout = string(r.Stdout)
	hr.Stderr = string(r.Stderr)
	hr.StdoutTruncated = r.StdoutTruncated
	hr.StderrTruncated = r.StderrTruncated
	failure := ""
	switch {
	case r.TimedOut:
		failure = fmt.Sprintf("timed out after %s", j.spec.Timeout)
	case errors.Is(r.Err, persist.ErrFailed):
		failure = r.Err.Error()
	case r.Err != nil && ctx.Err() != nil:
		failure, hr.TimedOut = ended(ctx)
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
	}
	v := decide.Read(decide.Input{
		Event:      j.ev,
		ExitCode:   r.ExitCode,
		Stdout:     r.Stdout,
		Stderr:     r.Stderr,
		Failure:    failure,
		FailClosed: j.h.cfg.FailClosed,
		Blocking:   j.h.cfg.Blocking,

		DecisionObjects: j.h.cfg.Dialect.DecisionObjects,
	})
	if r.Stragglers {
		v.Warnings = append(v.Warnings, fmt.Sprintf("processes it started held its output %s after it exited; they were killed", j.spec.Grace))
	}
	if errors.Is(r.Err, persist.ErrDisabled) {
		v.Warnings = append(v.Warnings, "persistent hook disabled until reload")
	}
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

// pipedOutput is what the pipe_output hooks of a fire hand to the agent, in config order:
// each hook's raw stdout then stderr, and why it failed if it did (iteratr shows the agent
// a failing command's output so that it can fix the cause).
func pipedOutput(hs []*hook, results []HookResult) []string {
	var out []string
	for i, h := range hs {
		r := &results[i]
		if !h.cfg.PipeOutput || h.cfg.Async {
			continue
		}
		text := r.Stdout + r.Stderr
		failure := ""
		switch {
		case r.TimedOut || r.Signal != "":
			failure = r.Error
		case r.ExitCode > 0:
			failure = fmt.Sprintf("exit status %d", r.ExitCode)
		}
		if failure != "" {
			if text != "" && !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			text += failure
		}
		if text != "" {
			out = append(out, text)
		}
	}
	return out
}

// agentOutput files a fire's piped output the way iteratr does (seed 004) and returns what
// the fire hands the agent now. A pre_iteration fire starts an iteration: it takes the
// pending buffer (FIFO), then adds its own output. on_error's output is the recovery prompt,
// sent at once; the buffer waits. Any other event's output joins the buffer, which only the
// next pre_iteration or Drain (final delivery) empties.
func (e *Engine) agentOutput(ev event.Info, piped []string) []string {
	switch {
	case ev.Name == "PreIteration":
		e.mu.Lock()
		out := append(e.pending, piped...)
		e.pending = nil
		e.mu.Unlock()
		return out
	case ev.Name == "SessionError":
		return piped
	case len(piped) > 0:
		e.mu.Lock()
		e.pending = append(e.pending, piped...)
		e.mu.Unlock()
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
