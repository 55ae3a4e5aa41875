package install

import (
	"slices"
	"time"

	"github.com/hookexec/hookexec/core/jsontext"
	"github.com/hookexec/hookexec/core/native"
)

// HTTP is the http transport of an install (Claude Code only): the events that allow it
// get an "http" hook posting to the daemon's URL instead of the dispatcher command, which
// saves the agent a process per call. Claude Code 2.1.330 fails an http hook with
// onFailure "block" closed on a connection error, a non-2xx answer, a timeout or a body
// that is not JSON; the events where it does not (CommandOnly) keep the command.
type HTTP struct {
	URL string // the daemon's, daemon.HTTPURL
	// SessionCommand is the entry of SessionStart (Claude Code runs no http hook there) and
	// of every other CommandOnly event: the dispatcher with SessionFlag, which starts the
	// daemon when none runs and checks who holds the port on each of the session's command
	// entries, stopping the session otherwise.
	SessionCommand string
	// Secret is written into the settings' env as SecretEnv (the user's settings only: a
	// project's may be shared); the http hooks send it in their Authorization header.
	Secret string
}

// SecretEnv is the variable the http hooks' Authorization header reads (allowedEnvVars).
const SecretEnv = "HOOKEXEC_HTTP_SECRET"

// SessionFlag ends the command entries of an http-transport install.
const SessionFlag = " --transport http"

// CommandOnly are the events whose entry stays a command under the http transport:
// SessionStart and Setup run no http hook in Claude Code 2.1.330; on Stop, SubagentStop,
// TaskCompleted and TeammateIdle it does not honour onFailure "block" for an http hook (a
// dead daemon would let the agent stop); CwdChanged and FileChanged get CLAUDE_ENV_FILE,
// which only a command can write to.
var CommandOnly = []string{"SessionStart", "Setup", "Stop", "SubagentStop", "TaskCompleted", "TeammateIdle",
	"CwdChanged", "FileChanged"}

// sessionWait is what the session command may take (starting the daemon, at most 3 s),
// before DispatchTimeoutMargin; an entry whose hooks take longer gets their time.
const sessionWait = 5 * time.Second

func httpPath(agent string) string { return "/hookexec/hook/" + agent }

// entry is an event's dispatcher entry: the command, or under the http transport an http
// hook (or, for a CommandOnly event, the session command, which checks the port first).
func entry(a *native.Agent, event, command string, h *HTTP, longest time.Duration) jsontext.Object {
	timeout := jsontext.Field{Key: "timeout", Value: a.TimeoutValue(longest + DispatchTimeoutMargin)}
	switch {
	case h == nil:
		return jsontext.Object{{Key: "type", Value: "command"}, {Key: "command", Value: command}, timeout}
	case slices.Contains(CommandOnly, event):
		timeout.Value = a.TimeoutValue(max(longest, sessionWait) + DispatchTimeoutMargin)
		return jsontext.Object{{Key: "type", Value: "command"}, {Key: "command", Value: h.SessionCommand}, timeout}
	}
	return jsontext.Object{{Key: "type", Value: "http"}, {Key: "url", Value: h.URL},
		{Key: "headers", Value: jsontext.Object{{Key: "Authorization", Value: "Bearer $" + SecretEnv}}},
		{Key: "allowedEnvVars", Value: []any{SecretEnv}}, {Key: "onFailure", Value: "block"}, timeout}
}
