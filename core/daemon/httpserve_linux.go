package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/serve"
)

// listenHTTP listens on 127.0.0.1:port for hook calls, letting in only connections whose
// other end is a socket of this uid.
func listenHTTP(port int) (net.Listener, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return nil, err
	}
	return uidListener{ln.(*net.TCPListener), os.Getuid()}, nil
}

// uidListener closes, unread, every connection whose peer socket another uid owns (or
// whose owner cannot be told): that process gets a reset, whatever it sends.
type uidListener struct {
	*net.TCPListener
	uid int
}

func (l uidListener) Accept() (net.Conn, error) {
	for {
		c, err := l.TCPListener.Accept()
		if err != nil {
			return nil, err
		}
		if tcpPeerAllowed(c, l.uid) {
			return c, nil
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // a reset, not an orderly end
		}
		c.Close()
	}
}

// tcpPeerAllowed reports whether the other end of a loopback connection is a socket of uid.
func tcpPeerAllowed(c net.Conn, uid int) bool {
	local, err1 := netip.ParseAddrPort(c.LocalAddr().String())
	remote, err2 := netip.ParseAddrPort(c.RemoteAddr().String())
	if err1 != nil || err2 != nil || !remote.Addr().Unmap().IsLoopback() {
		return false
	}
	// The peer's socket has its own address as local and ours as remote. The kernel's
	// exact lookup first; /proc/net/tcp (a scan) where netlink is not allowed.
	got, err := sockDiagUID(remote, local)
	if err != nil {
		got, err = tcpUID(remote, local)
	}
	return err == nil && got == uid
}

// httpHandler serves POST HTTPPath(agent) with the agent's payload as the body, for a
// session one of whose calls reached the daemon on its socket — its SessionStart, a
// command entry — which brought the environment, project and home its hooks run with. The answer is the dispatcher's, as
// one HTTP response: 200 with the native answer's stdout when it is exit 0 with JSON (or
// nothing); any other answer — exit 2 with the reason on stderr, a plain-text answer —
// has no form an http hook can give, so it is a 500 with the reason, which an agent that
// fails closed on an http hook (Claude Code's onFailure "block") reads as a block.
func (d *daemon) httpHandler(secret string) http.Handler {
	want := sha256.Sum256([]byte("Bearer " + secret))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := sha256.Sum256([]byte(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			http.Error(w, "hookexec: unauthorized", http.StatusUnauthorized)
			return
		}
		agent, ok := strings.CutPrefix(r.URL.Path, HTTPPath(""))
		ag, err := native.Lookup(agent)
		if !ok || err != nil {
			http.Error(w, "hookexec: no such agent", http.StatusNotFound)
			return
		}
		if r.Method != http.MethodPost {
			http.Error(w, "hookexec: POST a hook payload", http.StatusMethodNotAllowed)
			return
		}
		d.active.Add(1)
		defer d.active.Add(-1)
		body, err := io.ReadAll(io.LimitReader(r.Body, serve.MaxMessageBytes+1))
		event := payload.TopString(body, "hook_event_name")
		req := dispatch.Request{Agent: ag.Name, Payload: body}
		switch {
		case err != nil:
			d.writeReply(w, event, dispatch.Refuse(req, fmt.Errorf("reading the payload: %w", err)))
			return
		case len(body) > serve.MaxMessageBytes:
			d.writeReply(w, event, dispatch.Refuse(req, fmt.Errorf("payload longer than %d bytes", serve.MaxMessageBytes)))
			return
		}
		base, ok := d.session(ag.Name, payload.TopString(body, "session_id"))
		if !ok {
			d.writeReply(w, event, dispatch.Refuse(req, errors.New("no command-transport call of this session (its SessionStart) reached this daemon, so the environment its hooks run with is unknown: start a new session or /resume this one")))
			return
		}
		base.Payload = body
		d.writeReply(w, event, d.run(base))
		if payload.TopString(body, "hook_event_name") == "SessionEnd" {
			d.remember(ag.Name, payload.TopString(body, "session_id"), "SessionEnd", base)
		}
	})
}

// writeReply writes a dispatcher reply to a call of event as an http hook's answer.
func (d *daemon) writeReply(w http.ResponseWriter, event string, r dispatch.Reply) {
	body, status := HTTPAnswer(event, r)
	if status == http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// HTTPAnswer is the HTTP form of a dispatcher reply to a call of event: 200 and the stdout
// when the reply is exit 0 with a JSON object or nothing on stdout. Plain text on exit 0
// is what a command hook's stdout is to Claude Code: context on UserPromptSubmit and
// UserPromptExpansion (sent as hookSpecificOutput.additionalContext, the JSON form of the
// same), nothing a decision rests on elsewhere (200 with {}). Anything else — an exit-2
// block, a failure — is a 500 with the stderr (the reason), which an http hook with
// onFailure "block" blocks on.
func HTTPAnswer(event string, r dispatch.Reply) ([]byte, int) {
	out := bytes.TrimSpace([]byte(r.Stdout))
	switch {
	case r.ExitCode != 0:
	case len(out) == 0 || out[0] == '{' && json.Valid(out):
		return []byte(r.Stdout), http.StatusOK
	case out[0] == '{' || out[0] == '[':
		// Broken or non-object JSON: Claude Code would take a command's as an error.
	case event == "UserPromptSubmit" || event == "UserPromptExpansion":
		b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": event, "additionalContext": strings.TrimRight(r.Stdout, "\n")}})
		return b, http.StatusOK
	default:
		return []byte("{}"), http.StatusOK
	}
	msg := strings.TrimSpace(r.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("hookexec: the answer (exit %d) has no http form; blocked to be safe", r.ExitCode)
	}
	return []byte(msg + "\n"), http.StatusInternalServerError
}

// serveHTTP serves the HTTP transport until the daemon stops; an error (the directory,
// the port taken) is kept for status and leaves the socket serving.
func (d *daemon) serveHTTP() {
	if d.o.HTTPDir == "" {
		return
	}
	cfg, err := LoadHTTP(d.o.HTTPDir)
	if errors.Is(err, ErrNoHTTP) {
		return
	}
	if err == nil {
		var ln net.Listener
		if ln, err = listenHTTP(cfg.Port); err == nil {
			srv := &http.Server{Handler: d.httpHandler(cfg.Secret), ReadHeaderTimeout: 10 * time.Second,
				ErrorLog: nopLogger}
			d.httpPort.Store(int64(cfg.Port))
			go func() {
				<-d.stop
				// Calls in flight are answered first: the daemon stops only when idle.
				_ = srv.Shutdown(context.Background())
			}()
			d.conns.Add(1)
			go func() {
				defer d.conns.Done()
				_ = srv.Serve(ln)
			}()
			return
		}
	}
	d.httpErr.Store(err.Error())
}

var nopLogger = log.New(io.Discard, "", 0) // the daemon writes nothing
