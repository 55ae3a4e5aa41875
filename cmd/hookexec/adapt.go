package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hookexec/hookexec/core/adapt"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/serve"
)

// exitBlock is the exit status every agent adapt answers reads as a block.
const exitBlock = 2

var adaptOpts struct{ from, to, event string }

func init() {
	register(&verb{
		name:    "adapt",
		args:    "COMMAND",
		summary: "run a hook command written for one agent as a hook of another (what convert writes)",
		help: `Run by the agent --to as one of its hooks, never by hand: reads --to's hook payload on
stdin, runs COMMAND (one shell command line, as --from's configuration wrote it) with
--from's payload, reads its answer in --from's words, and answers in --to's. A new tool
input --to cannot apply and an "ask" it cannot put to the user become a block with a reason.
--event names the event for payloads that do not (Copilot CLI's camelCase ones). The
command dies with adapt, whatever signal ends it (on Linux, even SIGKILL).
A failure of adapt itself (bad payload, unknown agent) exits 2 with the reason on stderr: a
block, never a silent allow.

Sources: ` + strings.Join(adapt.Sources(), ", ") + `. Targets: ` + strings.Join(adapt.Targets(), ", ") + `.`,
		example: `hookexec adapt --from claude --to gemini './guard.sh' < payload.json`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&adaptOpts.from, "from", adaptOpts.from, "the `AGENT` the command was written for")
			fs.StringVar(&adaptOpts.to, "to", adaptOpts.to, "the `AGENT` running this hook")
			fs.StringVar(&adaptOpts.event, "event", adaptOpts.event, "the `EVENT` as --to spells it, for payloads that do not name it (Copilot CLI's camelCase events)")
		},
		run: runAdapt,
	})
}

func runAdapt(a *app, args []string) int {
	o := adaptOpts
	blocked := func(err error) int {
		fmt.Fprintf(a.stderr, "%s\n", plainMessage(err.Error()))
		return exitBlock
	}
	switch {
	case o.from == "" || o.to == "":
		return blocked(usagef("adapt: needs --from and --to"))
	case len(args) != 1:
		return blocked(usagef("adapt: takes one COMMAND (got %d arguments)", len(args)))
	}
	if code, ok := superviseAdapt(a); ok {
		return code
	}
	payload, err := io.ReadAll(io.LimitReader(a.stdin, serve.MaxMessageBytes+1))
	if err != nil {
		return blocked(fmt.Errorf("adapt: reading the payload: %w", err))
	}
	if len(payload) > serve.MaxMessageBytes {
		return blocked(fmt.Errorf("adapt: payload longer than %d bytes", serve.MaxMessageBytes))
	}
	project := a.globals.project
	if ag, err := native.Lookup(o.to); err == nil && project == "" && ag.ProjectEnv != "" {
		project = os.Getenv(ag.ProjectEnv)
	}
	if project != "" {
		if abs, err := filepath.Abs(project); err == nil {
			project = abs
		}
	}
	logFile := a.globals.log
	if logFile == "" {
		logFile = os.Getenv(engine.LogEnv)
	}
	// The agent ends a hook that outlives its timeout with a signal: the command goes too.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sig)
	stop := make(chan struct{})
	go func() {
		if _, ok := <-sig; ok {
			close(stop)
		}
	}()
	ans, err := adapt.Run(adapt.Request{From: o.from, To: o.to, Command: args[0], Payload: payload, Event: o.event,
		Project: project, Home: a.homeDir(), LogFile: logFile, Stop: stop})
	if err != nil {
		return blocked(err)
	}
	_, _ = a.stdout.Write(ans.Stdout)
	_, _ = a.stderr.Write(ans.Stderr)
	return ans.ExitCode
}
