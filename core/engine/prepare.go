package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/policy"
	"github.com/hookexec/hookexec/core/run"
	"github.com/hookexec/hookexec/core/template"
)

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
	dialects map[viewKey]*dialectView // per dialect and event spelling, built on first use
	async    sync.WaitGroup           // the fire's async hooks, until they finish
	hasAsync bool                     // the fire started async hooks
	envFile  string                   // CLAUDE_ENV_FILE of this fire; "" when it has none
	envSeq   atomic.Int32             // numbers the env files of hooks given values (ownEnvFile)
	budget   context.Context          // SessionEnd's shared budget; nil for other fires
	httpVars []string                 // httpHookAllowedEnvVars; nil when no file defines it
	starts   []hookStart              // per selected hook, when it started; nil without sinks (observe.go)
	policyIn []byte                   // what policy hooks see of the payload; nil until one runs (policy.go)
	facts    *policy.Facts            // the facts policy hooks share; nil until one runs
	extraEnv []string                 // FireEnv's env, after the host's
	ownEnv   bool                     // FireAs: extraEnv replaces Options.Env
}

// sessionOf is the fire's session: the payload's session_id, else the engine's default.
func (e *Engine) sessionOf(doc *payload.Doc) string {
	if s := doc.String("session_id"); s != "" {
		return s
	}
	return e.opts.SessionID
}

// viewKey: hooks of one dialect see the same stdin unless their files spell the event
// differently (Cursor's preToolUse and beforeShellExecution on one PreToolUse fire).
type viewKey struct {
	d     *dialect.Dialect
	event string
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
// hooks see "pre-tool" even when the host fired PreToolUse), and the tool too for
// dialects that spell tools their own way (Gemini hooks see run_shell_command for Bash),
// in their envelope.
func (f *fire) view(d *dialect.Dialect, spelling string) *dialectView {
	key := viewKey{d, spelling}
	if d.Stdin == nil {
		key.event = "" // the envelope does not depend on the spelling
	}
	if v := f.dialects[key]; v != nil {
		return v
	}
	v := &dialectView{}
	frame := f.frame
	frame.Event = d.StdinEvent(f.name, f.ev.Name)
	if d.Stdin != nil {
		if spelling != "" {
			frame.Event = spelling
		}
		v.stdin = d.Stdin(dialect.Fire{Event: frame.Event, Canonical: f.ev.Name, Payload: f.doc.Root(), Frame: frame})
	} else {
		if f.ev.Tool {
			frame.ToolName = d.ToolName(f.doc.String("tool_name"))
		}
		v.stdin = f.doc.Stdin(d.Envelope, frame)
	}
	if f.dialects == nil {
		f.dialects = map[viewKey]*dialectView{}
	}
	f.dialects[key] = v
	return v
}

// envOf returns the environment of one-shot hooks of dialect d, with HOOK_EVENT spelt
// their way. It is built on first use: a fire of persistent hooks only pays for stdin.
func (f *fire) envOf(d *dialect.Dialect, spelling string) []string {
	v := f.view(d, spelling)
	if v.env != nil {
		return v.env
	}
	if f.env == nil {
		var warnings []string
		f.env, f.eventAt, warnings = f.e.fireEnv(f.name, f.doc, f.session, f.extraEnv, f.ownEnv)
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
	if len(d.ProjectEnv) > 0 || len(d.PayloadEnv) > 0 || len(d.Env) > 0 || d.ToolEnv != "" {
		v.env = slices.Clone(v.env)
		v.env = append(v.env, d.Env...)
		if tool := f.doc.String("tool_name"); d.ToolEnv != "" && tool != "" && len(tool) <= maxEnvValue && !strings.Contains(tool, "\x00") {
			if s := d.ToolName(tool); s != "" {
				tool = s
			}
			v.env = append(v.env, d.ToolEnv+"="+tool)
		}
		for _, name := range d.ProjectEnv {
			v.env = append(v.env, name+"="+f.e.opts.ProjectDir)
		}
		for _, kv := range d.PayloadEnv {
			if s := f.payloadString(kv[1]); s != "" && len(s) <= maxEnvValue && !strings.Contains(s, "\x00") {
				v.env = append(v.env, kv[0]+"="+s)
			}
		}
	}
	return v.env
}

// payloadString is the string at a payload field, a dotted name being a path
// ("tool_input.command"); "" when it is absent or not a string.
func (f *fire) payloadString(name string) string {
	if !strings.Contains(name, ".") {
		return f.doc.String(name)
	}
	if v := f.doc.Root().Get(strings.Split(name, ".")...); v != nil && v.Type() == fastjson.TypeString {
		b, _ := v.StringBytes()
		return string(b)
	}
	return ""
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
	// refused says why a value kept the command from being rendered; "" when it was not.
	refused string
	// values are the payload values the hook's definition is given (givenValues); nil
	// when none, and then its answer is read whole.
	values []string
	// policy is what a policy hook's policy evaluates; nil for other types.
	policy *policy.Input
	// envFile is the CLAUDE_ENV_FILE of a hook given values, apart from the fire's and
	// never read into the result (ownEnvFile); "" for other hooks.
	envFile string
}

func (f *fire) prepare(h *hook) *job {
	j := &job{h: h, ev: f.ev, eventName: f.name, values: h.templateValues()}
	render := func(paths []payload.Path) func(int) string {
		return func(i int) string { return f.render(paths[i]) }
	}
	if h.cfg.Type == "policy" {
		// Evaluated in-process: no stdin, environment or command line to build.
		f.preparePolicy(j)
		j.spec.OutputCap = f.e.cap
		return j
	}
	v := f.view(h.cfg.Dialect, h.cfg.Spelling)
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
		j.spec = run.Spec{Stdin: v.stdin, Timeout: h.cfg.Timeout, OutputCap: f.e.cap, StdoutCap: stdoutCap(f.e.cap)}
		j.runner = h.proc.Run
		return j
	}
	if c := h.cfg.Cmd; c != nil {
		argv, err := c.Render(render(h.cfg.CmdPaths))
		if err != nil {
			// A value that would be an option, or that no process can receive: the hook
			// does not run, and execute ends the fire as a refusal.
			j.refused = strings.TrimPrefix(err.Error(), "hookexec: template: ")
			return j
		}
		j.argv = argv
		if c.Mode() == template.Direct {
			shell := c.ShellArgv(render(h.cfg.CmdPaths)) // rendered now: the payload dies with the fire
			j.shellArgv = func() []string { return shell }
		}
	}
	env := f.envOf(h.cfg.Dialect, h.cfg.Spelling)
	if len(h.cfg.Env) > 0 {
		env = append(env[:len(env):len(env)], h.cfg.Env...)
	}
	j.values = append(j.values, h.envValues(env[f.eventAt:])...)
	env = f.ownEnvFile(j, env)
	if h.cfg.Type == "http" {
		j.http = httpSpec(h, v.stdin, env, stdoutCap(f.e.cap), f.httpVars)
		j.spec.OutputCap = f.e.cap // what the result shows of the body
		return j
	}
	if c := h.cfg.Cmd; c != nil && c.Mode() != template.Args && h.cfg.Dialect == dialect.Claude {
		if prefix := lastEnv(env, "CLAUDE_CODE_SHELL_PREFIX"); prefix != "" {
			// Claude Code 2.1.330 runs a shell-form hook as `$CLAUDE_CODE_SHELL_PREFIX
			// '<command>'` (the command one argument); exec-form hooks are not prefixed.
			argv := c.Argv(render(h.cfg.CmdPaths))
			if c.Mode() == template.Direct {
				argv = c.ShellArgv(render(h.cfg.CmdPaths))
			}
			j.argv = []string{"/bin/sh", "-c", prefix + " " + shellQuote(argv[len(argv)-1])}
			j.shellArgv = nil
		}
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
		StdoutCap: stdoutCap(f.e.cap),
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
	case h.cfg.Type == "prompt" || h.cfg.Type == "agent" || h.cfg.Type == "askAgent":
		return h.cfg.Prompt
	case h.cfg.Type == "http":
		return h.cfg.URL
	case h.cfg.Type == "mcp_tool":
		return h.cfg.Server + ":" + h.cfg.Tool
	case h.cfg.Type == "policy":
		return policyCommand(h.cfg.Policy)
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

// lastEnv is the value of name in env (KEY=VALUE pairs, the last one winning); "" if unset.
func lastEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
