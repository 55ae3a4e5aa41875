package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/daemon"
	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/install"
	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/serve"
)

// The verbs that make hookexec the one hook an agent runs: install, uninstall, status, and
// hook (the dispatcher the agent runs). The work is core/install's and core/native's.

func init() {
	var agentName string
	var user bool
	var installTransport string
	agentFlags := func(fs *flag.FlagSet) {
		fs.StringVar(&agentName, "agent", "", "the `AGENT`: "+strings.Join(native.Names(), ", "))
		fs.BoolVar(&user, "user", false, "the user's settings (in --home) instead of the project's (--project)")
	}
	scope := func(a *app) (*native.Agent, native.Scope, string, error) {
		if agentName == "" {
			return nil, 0, "", usagef("say --agent (%s)", strings.Join(native.Names(), ", "))
		}
		ag, err := native.Lookup(agentName)
		if err != nil {
			return nil, 0, "", usagef("--agent: %s", plainMessage(err.Error()))
		}
		if user {
			return ag, native.User, a.homeDir(), nil
		}
		return ag, native.Project, a.projectDir(), nil
	}
	register(&verb{
		name:    "install",
		summary: "make hookexec the one hook an agent runs: move its hooks beside its settings, register the dispatcher",
		help: `For each settings file of the scope (the project's shared and local files, or with --user
the user's), moves the matcher groups hookexec can run into hookexec-hooks[.local].json beside
it, unchanged, and puts one dispatcher entry ("hookexec hook --agent AGENT") per event those
groups used into the settings. Groups with a handler the agent evaluates itself (Claude Code's
prompt, agent, mcp_tool) stay. The original file is kept in .settings[.local].json.hookexec-backup;
a second install changes nothing; nothing is written through a link leading out of the scope.`,
		example: `hookexec install --agent claude
hookexec install --agent claude --user
hookexec install --agent claude --user --transport http`,
		flags: func(fs *flag.FlagSet) {
			agentFlags(fs)
			fs.StringVar(&installTransport, "transport", "command", "`command` (the dispatcher, the default) or http (Claude Code: the daemon's URL on 127.0.0.1, no process per call; opt-in, docs/daemon.md)")
		},
		run: func(a *app, args []string) int {
			if err := noArgs("install", args); err != nil {
				return a.fail(err)
			}
			ag, s, dir, err := scope(a)
			if err != nil {
				return a.fail(err)
			}
			exe, err := os.Executable()
			if err != nil {
				return a.fail(fmt.Errorf("install: cannot find this program's path: %w", err))
			}
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
			// The C client (make build/hookexec-hook) beside this binary is the fast path of the
			// same dispatcher; it falls back to this binary for everything it does not do.
			command := shellWord(exe) + " " + install.Marker(ag.Name)
			argv := []string{exe, "hook", "--agent", ag.Name}
			if fast := filepath.Join(filepath.Dir(exe), "hookexec-hook"); isExecutable(fast) {
				command = shellWord(fast) + " --agent " + ag.Name
				argv = []string{fast, "--agent", ag.Name}
			}
			if ag.Plugin != nil {
				// opencode and Kilo run plugins, not command hooks: install writes one that
				// runs the dispatcher (argv, no shell) for every tool call.
				c, err := install.InstallPlugin(ag, s, dir, argv)
				if err != nil {
					return a.fail(err)
				}
				if a.globals.json {
					a.printChanges([]install.Change{c})
				} else {
					fmt.Fprintf(a.stdout, "%s: %s (the plugin runs the hooks of %s for %s)\n", a.shortPath(c.File.Settings), c.Action,
						a.shortPath(c.File.Managed), strings.Join(c.Events, ", "))
				}
				return exitOK
			}
			var h *install.HTTP
			switch installTransport {
			case "command":
			case "http":
				if h, err = httpInstall(ag, s, a.homeDir(), shellWord(exe)+" "+install.Marker(ag.Name)+install.SessionFlag); err != nil {
					return a.fail(fmt.Errorf("install: %w", err))
				}
			default:
				return a.fail(usagef("install: --transport command or --transport http"))
			}
			changes, err := install.InstallWith(ag, s, dir, command, h)
			a.printChanges(changes)
			if err != nil {
				return a.fail(err)
			}
			return exitOK
		},
	})
	register(&verb{
		name:    "uninstall",
		summary: "put back an agent's settings as they were before install",
		help: `Restores each settings file of the scope byte for byte from its backup when neither it nor the
managed file changed since install; otherwise removes the dispatcher entries and puts the
managed hooks back into the current settings ("merged"). The managed file and the backup
are removed.`,
		example: `hookexec uninstall --agent claude
hookexec uninstall --agent claude --user`,
		flags: agentFlags,
		run: func(a *app, args []string) int {
			if err := noArgs("uninstall", args); err != nil {
				return a.fail(err)
			}
			ag, s, dir, err := scope(a)
			if err != nil {
				return a.fail(err)
			}
			changes, err := install.Uninstall(ag, s, dir)
			a.printChanges(changes)
			if err != nil {
				return a.fail(err)
			}
			return exitOK
		},
	})
	var idle time.Duration
	var ask string
	var showBundle, fetchBundle bool
	var dropped, force bool
	var timeoutMs int64
	var transport string
	var spelled, hookScope string
	register(&verb{
		name:    "daemon",
		summary: "keep hooks warm between an agent's hook calls (started on demand by hook)",
		help: `Runs the per-user daemon in the foreground: a Unix socket in a private runtime directory
($HOOKEXEC_RUNTIME_DIR, else $XDG_RUNTIME_DIR/hookexec, else /tmp/hookexec-UID; 0700, peers of
another uid refused) speaking serve's JSON-RPC plus dispatch, status and shutdown. It exits
after --idle without requests, or when a hook call of another hookexec build reaches it.
"hookexec hook" starts it on demand; HOOKEXEC_DAEMON=off keeps every dispatch in-process.
--ask status|shutdown talks to the running daemon instead.`,
		example: `hookexec daemon --ask status
hookexec daemon --idle 30m`,
		flags: func(fs *flag.FlagSet) {
			fs.DurationVar(&idle, "idle", 0, "exit after this long without requests (default $HOOKEXEC_DAEMON_IDLE, else 10m)")
			fs.StringVar(&ask, "ask", "", "ask the running daemon: `status` or shutdown")
			fs.BoolVar(&force, "force", false, "with --ask shutdown: exit even while http sessions may still post to the port (it is then free for any local user until a daemon listens again)")
		},
		run: func(a *app, args []string) int {
			if err := noArgs("daemon", args); err != nil {
				return a.fail(err)
			}
			if ask != "" {
				if ask != "status" && ask != "shutdown" {
					return a.fail(usagef("daemon: --ask status or --ask shutdown"))
				}
				if force {
					if ask != "shutdown" {
						return a.fail(usagef("daemon: --force goes with --ask shutdown"))
					}
					if err := daemon.ForceShutdown(daemon.RuntimeDir()); err != nil {
						return a.fail(err)
					}
					return exitOK
				}
				res, err := daemon.Ask(daemon.RuntimeDir(), ask)
				if err != nil {
					return a.fail(err)
				}
				a.printRawJSON(res)
				return exitOK
			}
			// Replace: this process is the daemon, so another build may take its place in it
			// (keeping the http transport's port); Inherit is what a replaced one handed on.
			o := daemon.Options{Dir: daemon.RuntimeDir(), Idle: idle, HTTPDir: daemon.HTTPDir(), Replace: true,
				Inherit: os.Getenv(daemon.EnvInherit)}
			if o.Idle <= 0 {
				o.Idle = daemon.Idle()
			}
			// Hooks get each call's environment exactly (engines are keyed by it): nothing
			// of the environment of the call that started the daemon may reach the others.
			os.Clearenv()
			if err := daemon.Run(o); err != nil {
				return a.fail(fmt.Errorf("daemon: %w", err))
			}
			return exitOK
		},
	})
	register(&verb{
		name:    "status",
		summary: "show, per agent and scope, whether hookexec is installed and what it manages",
		help: `One row per settings file of every agent, the user's and the project's: installed or not, the
events the dispatcher is registered for, the matcher groups hookexec runs (managed) and those
the agent still runs itself (native). When a policy bundle is configured (bundle.json in
hookexec's config directory), a line says which revision is active.
--bundle shows the policy bundle alone: the active revision, where it came from, when it was
fetched and last checked, and the last error (--json: one object). --fetch asks the bundle's
server now, as the daemon does every poll interval (exit 1 when the check fails).`,
		example: `hookexec status
hookexec status --json
hookexec status --bundle
hookexec status --fetch`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&showBundle, "bundle", false, "show the policy bundle's status only")
			fs.BoolVar(&fetchBundle, "fetch", false, "check the policy bundle's server now, then show the bundle's status")
		},
		run: func(a *app, args []string) int {
			if showBundle || fetchBundle {
				if err := noArgs("status", args); err != nil {
					return a.fail(err)
				}
				return a.bundleStatus(fetchBundle)
			}
			return runStatus(a, args)
		},
	})
	register(&verb{
		name:    "hook",
		summary: "the dispatcher an agent runs: read its hook payload on stdin, run the hooks, answer natively",
		help: `Run by the agent (install registers it), never by hand: reads the agent's hook payload on stdin
(its hook_event_name says the event), runs the hooks of the hookexec-managed files of the
project (the agent's $CLAUDE_PROJECT_DIR, $GEMINI_PROJECT_DIR or $QWEN_PROJECT_DIR, else the payload's cwd) and the home through the engine (the
agent's own settings count for their policy; their hooks are the agent's), and
answers as one native hook would: exit 0 with the agent's JSON on stdout, or exit 2 with the
reason on stderr where the agent has no JSON form of a block. Exports hooks wrote to
CLAUDE_ENV_FILE go to the agent's CLAUDE_ENV_FILE.`,
		example: `hookexec hook --agent claude < payload.json`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&agentName, "agent", "", "the `AGENT` that runs this: "+strings.Join(native.Names(), ", "))
			fs.BoolVar(&dropped, "dropped", false, "answer a call the daemon read and dropped without running it again (hookexec-hook's use)")
			fs.StringVar(&transport, "transport", "", "`http`: the command entry of an http-transport install (its SessionStart): start and check the daemon, hand it the call")
			fs.StringVar(&hookScope, "scope", "", "`user` or project: the scope of this dispatcher entry, for the agents that run every scope's (Copilot CLI, Cline, Factory Droid; install writes it): only that scope's hooks run")
			fs.StringVar(&spelled, "event", "", "the `EVENT` as the agent spells it, for an agent whose payloads do not name it (copilot: preToolUse, ...; install writes it)")
			fs.Int64Var(&timeoutMs, "timeout-ms", 0, "the agent's timeout for this dispatcher entry, in `MS` (0: the agent's default timeout for a hook): the daemon's answer is awaited until 2 s before it, then the call is answered as dropped")
		},
		run: func(a *app, args []string) int {
			// Whatever stops this call from running its hooks fails closed: exit 2 with the
			// reason, the block every supported agent reads (a usage error is a broken install).
			if err := noArgs("hook", args); err != nil {
				return a.refuse(err)
			}
			if agentName == "" {
				return a.refuse(usagef("hook: say --agent (%s)", strings.Join(native.Names(), ", ")))
			}
			ag, err := native.Lookup(agentName)
			if err != nil {
				return a.refuse(usagef("--agent: %s", plainMessage(err.Error())))
			}
			if timeoutMs < 0 {
				return a.refuse(usagef("--timeout-ms: want a number of milliseconds, 0 (none) or more"))
			}
			if transport != "" && transport != "http" {
				return a.refuse(usagef("hook: --transport http or none"))
			}
			if spelled != "" && !ag.SpelledEvents {
				return a.refuse(usagef("hook: --event is for agents whose payloads do not name their event (copilot); %s's do", ag.Display))
			}
			if hookScope != "" && hookScope != native.User.String() && hookScope != native.Project.String() {
				return a.refuse(usagef("hook: --scope user or --scope project"))
			}
			if hookScope != "" && !ag.Scoped {
				return a.refuse(usagef("hook: --scope is for agents that run every scope's dispatcher entry (copilot, cline, factory); %s runs one", ag.Display))
			}
			return a.dispatch(ag, spelled, hookScope, dropped, transport == "http", time.Duration(timeoutMs)*time.Millisecond)
		},
	})
}

// refuse answers a hook call that cannot even be read as one: exit 2 with the reason.
func (a *app) refuse(err error) int {
	a.fail(err)
	return exitBlocked
}

// dispatch is the hook verb: one hook call, answered natively, through the daemon when one
// answers and in-process otherwise (starting a daemon for the next call). A call it cannot
// run (a payload it cannot read, a failure of its own, a panic) gets dispatch.Refuse's
// answer: blocked in the agent's words where the event can block, never the exit 1 the
// agents read as "go ahead". A call the daemon read and then dropped is not run again (its
// hooks may have run): it gets dispatch.Lost's answer, as with dropped (the C client's
// report of such a call). timeout is the agent's for this dispatcher entry (0: the agent's
// default timeout for a hook; install does not write it): a daemon that has not answered shortly before it
// (daemon.AnswerWait) counts as having dropped the call.
func (a *app) dispatch(ag *native.Agent, spelled, scope string, dropped, viaHTTP bool, timeout time.Duration) (code int) {
	if timeout <= 0 {
		timeout = ag.DefaultTimeout
	}
	deadline := time.Now().Add(daemon.AnswerWait(timeout))
	payload, err := io.ReadAll(io.LimitReader(a.stdin, serve.MaxMessageBytes+1))
	req := dispatch.Request{Agent: ag.Name, Payload: payload, Event: spelled, Scope: scope}
	answered := false
	defer func() { // a panic of the dispatcher's own: no answer has gone out yet
		if r := recover(); r != nil && !answered {
			code = a.answer(dispatch.Refuse(req, fmt.Errorf("internal error: %v", r)))
		}
	}()
	if err != nil {
		return a.answer(dispatch.Refuse(req, fmt.Errorf("reading the payload: %w", err)))
	}
	if len(payload) > serve.MaxMessageBytes {
		return a.answer(dispatch.Refuse(req, fmt.Errorf("payload longer than %d bytes", serve.MaxMessageBytes)))
	}
	project := a.globals.project
	if project == "" {
		project = os.Getenv(ag.ProjectEnv)
	}
	if project != "" {
		if abs, err := filepath.Abs(project); err == nil {
			project = abs
		}
	}
	logFile := a.globals.log
	if logFile == "" {
		logFile = os.Getenv(engine.LogEnv) // the daemon's own environment is not the call's
	}
	req = dispatch.Request{Agent: ag.Name, Project: project, Home: a.homeDir(), Env: os.Environ(),
		LogFile: logFile, Payload: payload, Event: spelled, Scope: scope}
	if dropped {
		startDaemon() // the one that dropped it is likely gone
		return a.answer(dispatch.Lost(req))
	}
	if viaHTTP {
		return a.dispatchHTTPSession(req, deadline)
	}
	if !daemon.Off() {
		dir := daemon.RuntimeDir()
		reply, err := daemon.Dispatch(dir, daemon.Identity(), req, deadline)
		if err == nil {
			return a.answer(reply)
		}
		startDaemon() // for the next call
		if errors.Is(err, daemon.ErrDropped) {
			return a.answer(dispatch.Lost(req))
		}
		// Not taken by the daemon: this call runs in-process now.
	}
	firstFetch(req, timeout)
	// The C client's no-match index (core/nomatch) goes beside the daemon's socket.
	indexDir := ""
	if dir := daemon.RuntimeDir(); !daemon.Off() && daemon.PrivateDir(dir) == nil {
		indexDir = dir
	}
	_, err = dispatch.OnceIndexed(req, indexDir, daemon.Identity(), func(r dispatch.Reply) { answered, code = true, a.answer(r) })
	if err != nil {
		return a.answer(dispatch.Refuse(req, err))
	}
	return code
}

// startDaemon starts a daemon of this build in the background, unless they are off.
func startDaemon() {
	if daemon.Off() {
		return
	}
	if exe, err := os.Executable(); err == nil {
		_ = daemon.Start(exe)
	}
}

// answer writes a reply as the agent reads it and returns the exit status.
func (a *app) answer(r dispatch.Reply) int {
	stderr := r.Stderr
	if err := exportEnv(r.Env); err != nil {
		stderr += "hookexec: CLAUDE_ENV_FILE: " + err.Error() + "\n"
	}
	_, _ = io.WriteString(a.stdout, r.Stdout)
	_, _ = io.WriteString(a.stderr, stderr)
	return r.ExitCode
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// exportEnv appends the exports hooks wrote to the agent's CLAUDE_ENV_FILE.
func exportEnv(env map[string]string) error {
	path := os.Getenv("CLAUDE_ENV_FILE")
	if len(env) == 0 || path == "" {
		return nil
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	for _, k := range keys {
		fmt.Fprintf(&b, "export %s=%s\n", k, shellWord(env[k]))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// shellWord quotes s for sh when it is not a plain word.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '=' || r == '@' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (a *app) printChanges(changes []install.Change) {
	if a.globals.json {
		type changeJSON struct {
			Settings string   `json:"settings"`
			Managed  string   `json:"managed"`
			Action   string   `json:"action"`
			Events   []string `json:"events"`
			Moved    int      `json:"moved"`
			Kept     int      `json:"kept"`
		}
		out := []changeJSON{}
		for _, c := range changes {
			out = append(out, changeJSON{c.File.Settings, c.File.Managed, c.Action, nonNilStrings(c.Events), c.Moved, c.Kept})
		}
		a.printJSON(out)
		return
	}
	for _, c := range changes {
		line := fmt.Sprintf("%s: %s", a.shortPath(c.File.Settings), c.Action)
		if c.Action == "installed" {
			what := "matcher group"
			if filepath.Ext(c.File.Managed) == "" { // a directory of hook files (Cline)
				what = "hook file"
			}
			line += fmt.Sprintf(" (%s moved to %s; dispatcher for %s", plural(c.Moved, what),
				filepath.Base(c.File.Managed), strings.Join(c.Events, ", "))
			if c.Kept > 0 {
				line += fmt.Sprintf("; %s left with the agent", plural(c.Kept, "group"))
			}
			line += ")"
		}
		fmt.Fprintln(a.stdout, line)
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func runStatus(a *app, args []string) int {
	if err := noArgs("status", args); err != nil {
		return a.fail(err)
	}
	type statusJSON struct {
		Agent     string   `json:"agent"`
		Scope     string   `json:"scope"`
		Settings  string   `json:"settings"`
		Installed bool     `json:"installed"`
		Modified  bool     `json:"modified,omitempty"`
		Events    []string `json:"events"`
		Managed   int      `json:"managed"`
		Native    int      `json:"native"`
	}
	var rows []statusJSON
	for _, name := range native.Names() {
		ag, _ := native.Lookup(name)
		for _, sc := range []struct {
			s   native.Scope
			dir string
		}{{native.User, a.homeDir()}, {native.Project, a.projectDir()}} {
			st, err := install.Status(ag, sc.s, sc.dir)
			if err != nil {
				return a.fail(err)
			}
			for _, f := range st {
				rows = append(rows, statusJSON{name, sc.s.String(), f.File.Settings, f.Installed, f.Modified, nonNilStrings(f.Events), f.Managed, f.Native})
			}
		}
	}
	if a.globals.json {
		a.printJSON(rows)
		return exitOK
	}
	t := newTable(a.term, "AGENT", "SCOPE", "SETTINGS", "STATE", "MANAGED", "NATIVE", "DISPATCHED EVENTS")
	for _, r := range rows {
		state := "not installed"
		switch {
		case r.Installed:
			state = "installed"
		case r.Modified:
			state = "modified" // a plugin with install's marker but not install's text
		}
		t.row(r.Agent, r.Scope, a.shortPath(r.Settings), state, strconv.Itoa(r.Managed), strconv.Itoa(r.Native), strings.Join(r.Events, ", "))
	}
	t.write(a.stdout, "")
	a.bundleLine()
	return exitOK
}
