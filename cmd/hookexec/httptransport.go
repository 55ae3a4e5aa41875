package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/hookexec/hookexec/core/daemon"
	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/install"
	"github.com/hookexec/hookexec/core/jsontext"
	"github.com/hookexec/hookexec/core/native"
)

// The http transport's command entries (install --transport http registers "hook --agent
// claude --transport http" on SessionStart, where Claude Code allows no http hook, and on
// every other event that keeps a command: Stop, SubagentStop, CwdChanged, …): before the
// call it makes sure that what answers on the transport's port is this user's daemon,
// starting the daemon when none runs, and hands the call to that daemon — never
// in-process, since the daemon must see the session to serve its http calls. When it
// cannot (the port's listener is another user's, the daemon does not listen, the transport
// is not set up) the session is stopped: an http hook whose port another user holds would
// send that user the secret and take its answer. Checked on every command entry, a daemon
// that died mid-session exposes at most the calls until the session's next one.

// httpReady waits this long for a daemon it started to answer and listen.
const httpReady = 3 * time.Second

// dispatchHTTPSession answers the command entry of an http-transport session.
func (a *app) dispatchHTTPSession(req dispatch.Request, deadline time.Time) int {
	if err := ensureHTTPDaemon(); err != nil {
		return a.answer(stopSession(err))
	}
	reply, err := daemon.Dispatch(daemon.RuntimeDir(), daemon.Identity(), req, deadline)
	switch {
	case err == nil:
		return a.answer(reply)
	case errors.Is(err, daemon.ErrDropped):
		return a.answer(dispatch.Lost(req))
	}
	return a.answer(stopSession(fmt.Errorf("the daemon did not take this session's first call: %w", err)))
}

// ensureHTTPDaemon starts this user's daemon when none answers and checks that it listens
// on the transport's port and that the socket listening there is this user's.
func ensureHTTPDaemon() error {
	if daemon.Off() {
		return errors.New("HOOKEXEC_DAEMON=off, but the http transport is the daemon's")
	}
	cfg, err := daemon.LoadHTTP(daemon.HTTPDir())
	if err != nil {
		return err
	}
	dir := daemon.RuntimeDir()
	st, err := httpDaemonStatus(dir)
	// A daemon of another build, or one started before the transport was set up, gives
	// way: one serving the port executes this build in its place, keeping the port and
	// its sessions (a daemon reads the transport's files when it starts).
	if err != nil || st.Identity != daemon.Identity() || st.HTTPPort == 0 && st.HTTPError == "" {
		replaced := false
		if err == nil {
			exe, _ := os.Executable()
			if st.Identity == daemon.Identity() {
				_, _ = daemon.Ask(dir, "shutdown") // this build, without the port: nothing to keep
			} else if replaced, err = daemon.Replace(dir, daemon.Identity(), exe); err != nil {
				_, _ = daemon.Ask(dir, "shutdown") // a build before replace: it exits
			}
		}
		if !replaced {
			startDaemon() // none answered, or the old one exits (one replaced executes this build)
		}
		for end := time.Now().Add(httpReady); ; time.Sleep(20 * time.Millisecond) {
			if st, err = httpDaemonStatus(dir); err == nil && st.Identity == daemon.Identity() {
				break
			}
			if time.Now().After(end) {
				return fmt.Errorf("no daemon answered within %v of starting one", httpReady)
			}
		}
	}
	uid, uidErr := daemon.ListenerUID(cfg.Port)
	if uidErr == nil && uid != os.Getuid() {
		return fmt.Errorf("127.0.0.1:%d is held by uid %d, not by you (uid %d): another user's process would receive your hook calls and answer them", cfg.Port, uid, os.Getuid())
	}
	if st.HTTPPort != cfg.Port {
		why := st.HTTPError
		if why == "" {
			why = fmt.Sprintf("it serves port %d", st.HTTPPort)
		}
		return fmt.Errorf("the daemon does not listen on 127.0.0.1:%d: %s", cfg.Port, why)
	}
	if uidErr != nil {
		return fmt.Errorf("who listens on 127.0.0.1:%d cannot be told: %w", cfg.Port, uidErr)
	}
	return nil
}

// httpInstall sets up the transport's port and secret (daemon.SetupHTTP) and says what
// install writes. The secret goes into the user's settings only; a project's install
// needs the user's settings to carry it already.
func httpInstall(ag *native.Agent, s native.Scope, home, session string) (*install.HTTP, error) {
	if ag.Name != "claude" {
		return nil, fmt.Errorf("--transport http: %s has no http hooks; it keeps the command transport (docs/daemon.md)", ag.Display)
	}
	if runtime.GOOS != "linux" {
		// Elsewhere the daemon serves no http, the port's owner cannot be told and the agent
		// cannot be stopped: another user could bind the port and answer the hooks.
		return nil, fmt.Errorf("--transport http needs Linux (the daemon checks who holds the port and who calls it); %s keeps the command transport here", ag.Display)
	}
	cfg, err := daemon.SetupHTTP(daemon.HTTPDir())
	if err != nil {
		return nil, err
	}
	h := &install.HTTP{URL: daemon.HTTPURL(cfg.Port, ag.Name), SessionCommand: session}
	if s == native.User {
		h.Secret = cfg.Secret
		return h, nil
	}
	for _, f := range ag.Files(native.User, home) {
		text, err := os.ReadFile(f.Settings)
		if err != nil {
			continue
		}
		var got string
		if raw, err := jsontext.Get(text, jsontext.K("env"), jsontext.K(install.SecretEnv)); err == nil &&
			json.Unmarshal(raw, &got) == nil && got == cfg.Secret {
			return h, nil
		}
	}
	return nil, fmt.Errorf("--transport http: the user's settings do not carry the secret (env %s); run `hookexec install --agent %s --user --transport http` first", install.SecretEnv, ag.Name)
}

func httpDaemonStatus(dir string) (daemon.Status, error) {
	var st daemon.Status
	raw, err := daemon.Ask(dir, "status")
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(raw, &st)
}

// stopSession ends the session before its first prompt, with the reason for the user: the
// answer that asks Claude Code to stop (continue:false), and, since Claude Code 2.1.330
// runs on regardless, the agent killed (stopAgent). Its http hooks would otherwise post
// to whatever holds the port; where the agent cannot be told for sure, the reason says
// that it runs on.
func stopSession(err error) dispatch.Reply {
	msg := "hookexec: the http transport cannot be used, so this session is stopped: " + err.Error()
	if pid, kerr := stopAgent(msg); kerr != nil {
		msg += " — BUT CLAUDE CODE WAS NOT STOPPED: " + kerr.Error() + ". End this session yourself (its http hooks would post to that port)."
	} else if pid > 0 {
		msg += " " + stoppedNote(pid)
	}
	out, _ := json.Marshal(map[string]any{"continue": false, "stopReason": msg, "systemMessage": msg})
	return dispatch.Reply{ExitCode: 0, Stdout: string(out) + "\n", Stderr: msg + "\n"}
}
