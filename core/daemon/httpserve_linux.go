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
	"sync"
	"syscall"
	"time"

	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/serve"
)

// listenHTTP listens on 127.0.0.1:port for hook calls, letting in only connections whose
// other end is a socket of this uid.
func listenHTTP(port int) (*net.TCPListener, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return nil, err
	}
	return ln.(*net.TCPListener), nil
}

// peerChecks bounds the uid checks in flight: a flood of connections from another uid
// gets at most this many checks at once, while each check of this user's call runs beside
// them instead of after them.
const peerChecks = 64

// uidListener hands http.Server the connections whose peer socket this uid owns, each
// checked on a goroutine of its own (at most peerChecks at once) so that connections of
// another uid, refused one by one, do not hold up the user's calls. Every other
// connection is closed unread with a reset, whatever it sends. Close stops accepting but
// leaves the socket listening (connections wait in the kernel's queue): the daemon closes
// or hands on the listening socket itself (handover_linux.go), so that the port is never
// free while a session may still post to it.
type uidListener struct {
	ln    *net.TCPListener
	uid   int
	allow func(net.Conn, int) bool // tcpPeerAllowed; a test's slower one
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	loop  sync.WaitGroup
}

func newUIDListener(ln *net.TCPListener, uid int, allow func(net.Conn, int) bool) *uidListener {
	l := &uidListener{ln: ln, uid: uid, allow: allow, conns: make(chan net.Conn), done: make(chan struct{})}
	_ = ln.SetDeadline(time.Time{}) // a listener served again after a failed handover (Close set one)
	l.loop.Add(1)
	go l.acceptLoop()
	return l
}

func (l *uidListener) acceptLoop() {
	defer l.loop.Done()
	sem := make(chan struct{}, peerChecks)
	var checks sync.WaitGroup
	defer checks.Wait()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			select {
			case <-l.done:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			return // the socket is closed
		}
		select {
		case sem <- struct{}{}:
		case <-l.done:
			refuse(c)
			return
		}
		checks.Add(1)
		go func() {
			defer func() { <-sem; checks.Done() }()
			if !l.allow(c, l.uid) {
				refuse(c)
				return
			}
			select {
			case l.conns <- c:
			case <-l.done:
				refuse(c) // accepted as the daemon stops: the agent blocks this call
			}
		}()
	}
}

// refuse closes a connection unread, with a reset rather than an orderly end.
func refuse(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.Close()
}

func (l *uidListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; the socket keeps listening (see uidListener).
func (l *uidListener) Close() error {
	l.once.Do(func() {
		close(l.done)
		_ = l.ln.SetDeadline(time.Now()) // wakes the accept loop
		l.loop.Wait()
	})
	return nil
}

func (l *uidListener) Addr() net.Addr { return l.ln.Addr() }

// tcpPeerAllowed reports whether the other end of a loopback connection is an established
// socket of uid.
func tcpPeerAllowed(c net.Conn, uid int) bool {
	local, err1 := netip.ParseAddrPort(c.LocalAddr().String())
	remote, err2 := netip.ParseAddrPort(c.RemoteAddr().String())
	if err1 != nil || err2 != nil || !remote.Addr().Unmap().IsLoopback() {
		return false
	}
	// The peer's socket has its own address as local and ours as remote. The kernel's
	// exact lookup first; /proc/net/tcp (a scan) where netlink is not allowed.
	got, err := sockDiagUID(remote, local)
	if err != nil && !errors.Is(err, ErrNotEstablished) {
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
			why := "no command-transport call of this session (its SessionStart) reached this daemon, so the environment its hooks run with is unknown: start a new session or /resume this one"
			if d.sessionsFull() {
				why += " (" + strings.TrimPrefix(errSessionsFull.Message, "hookexec: ") + ")"
			}
			d.writeReply(w, event, dispatch.Refuse(req, errors.New(why)))
			return
		}
		base.Payload = body
		d.writeReply(w, event, d.run(base))
		if payload.TopString(body, "hook_event_name") == "SessionEnd" {
			_ = d.remember(ag.Name, payload.TopString(body, "session_id"), "SessionEnd", base, procID{}) // forgetting never fails
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

// openHTTP opens the HTTP transport's listening socket and reads its secret; an error (the
// directory, the port taken) is kept for status and leaves the socket serving. inherited is
// the listening socket the daemon this process replaced handed on (nil: listen afresh); it
// is served whatever the port file now says, since the sessions post to that port.
func (d *daemon) openHTTP(inherited *os.File) {
	if d.o.HTTPDir == "" && inherited == nil {
		return
	}
	cfg, err := LoadHTTP(d.o.HTTPDir)
	if errors.Is(err, ErrNoHTTP) && inherited == nil {
		return
	}
	var tl *net.TCPListener
	if err == nil {
		if inherited != nil {
			tl, err = adoptListener(inherited)
		} else {
			tl, err = listenHTTP(cfg.Port)
		}
	}
	if err != nil {
		if inherited != nil {
			inherited.Close()
		}
		d.httpErr.Store(err.Error())
		return
	}
	d.httpLn, d.httpSecret = tl, cfg.Secret
	d.httpPort.Store(int64(tl.Addr().(*net.TCPAddr).Port))
}

// serveHTTP serves the HTTP transport (when openHTTP opened it) until round r stops,
// answering the calls in flight first: the daemon's conns count them. The listening
// socket stays open (uidListener.Close): Run closes it, hands it on, or serves it again.
func (d *daemon) serveHTTP(r *round) {
	if d.httpLn == nil {
		return
	}
	srv := &http.Server{Handler: d.httpHandler(d.httpSecret), ReadHeaderTimeout: 10 * time.Second, ErrorLog: nopLogger}
	served := make(chan struct{})
	d.conns.Add(2)
	go func() {
		defer d.conns.Done()
		select {
		case <-r.stop:
		case <-served:
		}
		// Serve returns as soon as Shutdown starts; Shutdown returns once every call in
		// flight is answered, and only then may the daemon execute another build.
		_ = srv.Shutdown(context.Background())
	}()
	go func() {
		defer d.conns.Done()
		defer close(served)
		_ = srv.Serve(newUIDListener(d.httpLn, os.Getuid(), tcpPeerAllowed))
	}()
}

// adoptListener takes the listening socket a replaced daemon handed on: it must be a TCP
// socket listening on 127.0.0.1.
func adoptListener(f *os.File) (*net.TCPListener, error) {
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("hookexec: the inherited http listener: %w", err)
	}
	tl, ok := ln.(*net.TCPListener)
	if a, isTCP := ln.Addr().(*net.TCPAddr); !ok || !isTCP || !a.IP.Equal(net.IPv4(127, 0, 0, 1)) {
		ln.Close()
		return nil, fmt.Errorf("hookexec: the inherited http listener is not on 127.0.0.1 (%s)", ln.Addr())
	}
	return tl, nil
}

var nopLogger = log.New(io.Discard, "", 0) // the daemon writes nothing
