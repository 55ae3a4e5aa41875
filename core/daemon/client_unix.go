//go:build unix

package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/serve"
)

// dialTimeout bounds connecting to the socket: a daemon that does not accept within it is
// treated as absent.
const dialTimeout = time.Second

// Dispatch asks the daemon in dir to run req. ErrUnavailable: the daemon did not take the
// request (nobody listens, the connection failed before the request was read whole, or
// it answered an error before running any hook, with the request's id or, for a request it
// could not read, id null); ErrVersion: the daemon is another build
// and exits; ErrDropped: the daemon read the request and the connection ended without an
// answer, so its hooks may have run. A zero deadline waits for the answer as long as it
// takes; past a deadline the call is ErrDropped too (the daemon may be running its hooks).
func Dispatch(dir, identity string, req dispatch.Request, deadline time.Time) (dispatch.Reply, error) {
	var reply dispatch.Reply
	exe, _ := os.Executable()
	raw, err := call(dir, "dispatch", dispatchParams{Identity: identity, Exe: exe, Request: req}, deadline)
	if err != nil {
		return reply, err
	}
	if err := json.Unmarshal(raw, &reply); err != nil {
		return reply, fmt.Errorf("%w: an unreadable answer: %v", ErrDropped, err)
	}
	return reply, nil
}

// Ask calls a method of the daemon (status, shutdown) and returns its result.
func Ask(dir, method string) (json.RawMessage, error) { return call(dir, method, nil, time.Time{}) }

// ForceShutdown asks the daemon to exit even while http sessions are kept: their calls then
// fail, and the port is free for any local user until a daemon listens on it again.
func ForceShutdown(dir string) error {
	_, err := call(dir, "shutdown", map[string]bool{"force": true}, time.Time{})
	return err
}

// Replace asks a daemon of another identity to give way to this build, exe: one that
// serves the http transport executes exe in its own process, keeping the port and its
// sessions; any other exits. It reports whether the daemon will execute exe (false: it
// was this build, or it exits and a new daemon must be started).
func Replace(dir, identity, exe string) (bool, error) {
	raw, err := call(dir, "replace", replaceParams{Identity: identity, Exe: exe}, time.Time{})
	if err != nil {
		return false, err
	}
	return string(raw) == "true", nil
}

func call(dir, method string, params any, deadline time.Time) (json.RawMessage, error) {
	conn, err := net.DialTimeout("unix", filepath.Join(dir, SocketName), dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer conn.Close()
	msg := map[string]any{"jsonrpc": "2.0", "id": 1, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if !deadline.IsZero() {
		if err := conn.SetDeadline(deadline); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) { // a daemon that stopped reading: hung
			return nil, lostAnswer(err, true)
		}
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	r := bufio.NewReaderSize(conn, 64<<10)
	for got := false; ; got = true {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, lostAnswer(err, got || len(line) > 0)
		}
		var m serve.Message
		if json.Unmarshal(line, &m) != nil {
			return nil, fmt.Errorf("%w: an unreadable answer: %.80q", ErrDropped, line)
		}
		if string(m.ID) != "1" {
			if string(m.ID) == "null" && m.Error != nil {
				// The answer to the one request of this connection, whose id the daemon
				// could not read (a line too long, a message it cannot parse): nothing ran.
				return nil, fmt.Errorf("%w: %s", ErrUnavailable, m.Error.Message)
			}
			continue // a notification
		}
		if m.Error != nil {
			if m.Error.Code == CodeVersion {
				return nil, ErrVersion
			}
			return nil, fmt.Errorf("%w: %s", ErrUnavailable, m.Error.Message)
		}
		return m.Result, nil
	}
}

// lostAnswer classifies a connection that ended before the answer. A Unix socket closed
// with data still unread in its queue resets the peer (ECONNRESET): the daemon never read
// the whole request (a listener closed with the connection still in its backlog, a peer of
// another uid refused), so nothing ran — unless it had sent something (got), which it
// does only after reading the request. An end of file means the daemon had read it all.
func lostAnswer(err error, got bool) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w: no answer before the agent's timeout for the dispatcher", ErrDropped)
	}
	if errors.Is(err, syscall.ECONNRESET) && !got {
		return fmt.Errorf("%w: the request was not read: %v", ErrUnavailable, err)
	}
	return fmt.Errorf("%w: %v", ErrDropped, err)
}

// Start starts `exe daemon` in the background, detached from the caller (its own session,
// no terminal, stdio on /dev/null), and does not wait for it.
func Start(exe string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	cmd := exec.Command(exe, "daemon")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	if cmd.Process == nil {
		return errors.New("hookexec: the daemon did not start")
	}
	return cmd.Process.Release()
}
