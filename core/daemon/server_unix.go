//go:build unix

package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hookexec/hookexec/core/bundle/fetch"
	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/serve"
	"github.com/hookexec/hookexec/core/version"
)

// Options configure Run; zero values mean the documented defaults.
type Options struct {
	Dir      string        // "" means RuntimeDir()
	Idle     time.Duration // 0 means Idle()
	Identity string        // "" means Identity()
	// HTTPDir is the HTTP transport's directory (HTTPDir()): the daemon serves HTTP on
	// 127.0.0.1 when it holds a port file; "" serves none.
	HTTPDir string
	// Replace lets a daemon that serves the http transport hand itself over to another
	// build by executing it in its own process (handover_linux.go), keeping its lock, its
	// listening socket and its sessions, instead of exiting: false exits as before. Only
	// the process that is the daemon (hookexec daemon) sets it, never a test calling Run.
	Replace bool
	// Inherit is what the daemon this process replaced handed on (the value of EnvInherit:
	// "lock=FD,http=FD,sessions=FD"); "" for a daemon started afresh.
	Inherit string
}

// EnvInherit carries, into the build a daemon executes in its place, the descriptors it
// keeps: the held lock, the listening socket of the http transport, the sessions.
const EnvInherit = "HOOKEXEC_DAEMON_INHERIT"

// PrivateDir creates dir (0700) or checks that an existing one is a real directory of
// this user that nobody else can enter.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return checkPrivate(dir)
}

// checkPrivate checks that dir is a real directory of this user that nobody else can enter.
func checkPrivate(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	switch {
	case !st.IsDir():
		return fmt.Errorf("hookexec: %s is not a directory", dir)
	case ok && int(sys.Uid) != os.Getuid():
		return fmt.Errorf("hookexec: %s belongs to uid %d, not to this user", dir, sys.Uid)
	case st.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("hookexec: %s is open to others (mode %o); want 0700", dir, st.Mode().Perm())
	}
	return nil
}

// lock takes the daemon lock, waiting up to wait for a daemon that is exiting.
func lock(path string, wait time.Duration) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			return nil, ErrRunning
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Run is the daemon: it serves until it has been idle for Options.Idle, is told to shut
// down, or a client of another identity asks it to dispatch. Hooks get the process's
// environment overlaid with each call's; a daemon process should clear its own first
// (hookexec daemon does) so that nothing of the call that started it reaches the others.
func Run(o Options) error {
	if o.Dir == "" {
		o.Dir = RuntimeDir()
	}
	if o.Idle <= 0 {
		o.Idle = Idle()
	}
	if o.Identity == "" {
		o.Identity = Identity()
	}
	if err := PrivateDir(o.Dir); err != nil {
		return err
	}
	inh, err := parseInherit(o.Inherit)
	if err != nil {
		return err
	}
	lk := inh.lock
	if lk == nil {
		if lk, err = lock(filepath.Join(o.Dir, LockName), 5*time.Second); err != nil {
			return err
		}
	}
	defer lk.Close()
	d := &daemon{o: o}
	d.loadSessions(inh.sessions)
	d.openHTTP(inh.http)
	for {
		if err := d.serveRound(); err != nil {
			if d.httpLn != nil {
				_ = d.httpLn.Close()
			}
			return err
		}
		if d.httpLn == nil {
			return nil
		}
		// The port is closed only when no session may post to it any more: otherwise the
		// build that replaces this daemon is executed in this process, keeping the
		// listening socket (and the lock and the sessions) open throughout.
		exe := d.successor.Swap(nil)
		if exe == nil {
			_ = d.httpLn.Close()
			return nil
		}
		// handOver returns only when the execution failed (the build was removed or
		// swapped since retire checked it, is no executable, is for another machine):
		// exiting would free the port while the sessions post to it, so this build goes
		// on serving, on the same listening socket, lock and sessions; status says why.
		err := d.handOver(*exe, lk)
		d.handoverErr.Store(err.Error())
	}
}

// serveRound listens on the daemon's socket and serves it and the http transport (when
// open) until the daemon stops: idle, told to, or retired for another build.
func (d *daemon) serveRound() error {
	sock := filepath.Join(d.o.Dir, SocketName)
	_ = os.Remove(sock) // a socket left by a daemon that died; the lock says none runs
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return err
	}
	mine, _ := os.Stat(sock)
	r := &round{ln: ln, stop: make(chan struct{})}
	d.disp = dispatch.New()
	d.disp.IndexTo(d.o.Dir, d.o.Identity) // the C client's no-match index (core/nomatch)
	d.touch()
	var idle sync.WaitGroup
	idle.Add(1)
	go func() { defer idle.Done(); d.watchIdle(r) }()
	d.serveHTTP(r)
	d.serve(r)
	// Remove the socket only if it is still ours.
	if now, err := os.Stat(sock); err == nil && mine != nil && os.SameFile(now, mine) {
		_ = os.Remove(sock)
	}
	d.conns.Wait()
	idle.Wait()
	d.stopPolling()
	d.disp.Close()
	return nil
}

// round is one serving of the daemon's socket: Run starts another when the build it was
// to execute in its place could not be executed.
type round struct {
	ln   net.Listener
	stop chan struct{}
	once sync.Once
}

// shutdown stops the round: its socket closes, the calls in flight are answered.
func (r *round) shutdown() {
	r.once.Do(func() {
		close(r.stop)
		_ = r.ln.Close()
	})
}

// inherited is what a replaced daemon handed on (Options.Inherit).
type inherited struct {
	lock, http, sessions *os.File
}

// parseInherit opens the descriptors named in s ("lock=3,http=4,sessions=5"). The lock
// must still be held by this process (flock on the same open file succeeds).
func parseInherit(s string) (inherited, error) {
	var in inherited
	if s == "" {
		return in, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, num, _ := strings.Cut(part, "=")
		fd, err := strconv.Atoi(num)
		if err != nil || fd < 3 {
			return in, fmt.Errorf("hookexec: %s: %q is not a descriptor", EnvInherit, part)
		}
		syscall.CloseOnExec(fd) // not into hooks, nor into a later successor unless handed on
		f := os.NewFile(uintptr(fd), name)
		switch name {
		case "lock":
			in.lock = f
		case "http":
			in.http = f
		case "sessions":
			in.sessions = f
		default:
			f.Close()
			return in, fmt.Errorf("hookexec: %s: unknown %q", EnvInherit, name)
		}
	}
	if in.lock == nil {
		return in, fmt.Errorf("hookexec: %s names no lock", EnvInherit)
	}
	if err := syscall.Flock(int(in.lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return in, fmt.Errorf("hookexec: the inherited lock is not held: %w", err)
	}
	return in, nil
}

type daemon struct {
	o Options
	// disp is the round's dispatcher (Run makes one per round, before its goroutines).
	disp     *dispatch.Dispatcher
	conns    sync.WaitGroup
	active   atomic.Int64
	last     atomic.Int64 // unix nanoseconds of the last request's end
	requests atomic.Int64
	pollMu   sync.Mutex
	pollers  map[string]*fetch.Poller // bundle.json path → its poller
	httpPort atomic.Int64             // the port the HTTP transport listens on (0: none)
	httpErr  atomic.Value             // string: why the HTTP transport does not listen
	sessMu   sync.Mutex
	sessions map[string]*session // agent\x00session_id → what its last socket call brought
	// sessionBytes is the sum of the kept sessions' size(); pruned when a full table last
	// dropped the sessions whose agent is gone. Guarded by sessMu.
	sessionBytes int
	pruned       time.Time
	// httpLn is the http transport's listening socket (nil: none) and httpSecret its
	// secret; successor the build to execute in this process when it stops (retire),
	// keeping httpLn open; handoverErr (string) why the last one could not be executed.
	httpLn      *net.TCPListener
	httpSecret  string
	successor   atomic.Pointer[string]
	handoverErr atomic.Value
}

// session is what a session's last call on the socket brought: its environment,
// project, home and log file, which its hook calls over HTTP (the payload alone) run with,
// and the agent process that made the call.
type session struct {
	req   dispatch.Request // without payload
	used  time.Time
	agent procID
}

// procID names a process across pid reuse: its pid and its start time (pid 0: unknown).
type procID struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// SessionKeep is how long a registered session whose agent process cannot be told (not
// Linux, /proc unreadable) is kept without a call. A session whose agent is known is kept
// until its SessionEnd or until that process is gone, however long it is quiet: while a
// session is kept the daemon does not exit idle, since its http calls would otherwise
// post to a port any local user could then take.
const SessionKeep = 24 * time.Hour

// The sessions kept for the http transport are bounded, in number and in the bytes of
// what they keep (each its environment): a process of this user registering sessions
// without end (the socket lets no other uid in) cannot grow the daemon without bound.
// Past either bound a new session is refused, after the sessions whose agent is gone were
// dropped; the sessions kept go on being served. A refused session's http calls fail
// closed (500, which Claude Code blocks on) and its command entries are answered with
// the refusal (CodeSessionsFull).
const (
	MaxSessions     = 1024
	MaxSessionBytes = 8 << 20
)

// CodeSessionsFull is the error a dispatch that would register a session past
// MaxSessions or MaxSessionBytes answers; no hook ran.
const CodeSessionsFull = -32012

// errSessionsFull is remember's refusal of a new session.
var errSessionsFull = &serve.Error{Code: CodeSessionsFull, Message: fmt.Sprintf("hookexec: the daemon keeps %d http sessions or %d MiB of their environments already, its most: "+
	"this session is not registered, so its http hook calls are blocked; end sessions (or restart the daemon) first", MaxSessions, MaxSessionBytes>>20)}

// size is what a kept session holds, in bytes (its request without the payload).
func (s *session) size() int {
	n := len(s.req.Agent) + len(s.req.Project) + len(s.req.Home) + len(s.req.LogFile) + len(s.req.Event) + len(s.req.Scope) + 64
	for _, kv := range s.req.Env {
		n += len(kv) + 16
	}
	return n
}

// register remembers, while the http transport is served, the request of a session's call on the socket (its environment,
// project, home and log file) for that session's HTTP calls, and forgets the session at its
// SessionEnd. Every socket call registers, not only SessionStart, so a session whose
// daemon was restarted is known again from its next command-transport call (a Stop).
func (d *daemon) register(req dispatch.Request, peer int) error {
	id := payload.TopString(req.Payload, "session_id")
	if id == "" || d.httpPort.Load() == 0 {
		return nil // without the http transport nothing needs a session (nor keeps the daemon up)
	}
	return d.remember(req.Agent, id, payload.TopString(req.Payload, "hook_event_name"), req, agentOf(peer))
}

// remember keeps req (without its payload) as session id's, or forgets the session when
// event is SessionEnd. agent is the agent process behind the call (zero: unknown, or the
// same as before). A session that would take the sessions past MaxSessions or
// MaxSessionBytes is refused (errSessionsFull); one already kept is never dropped for it.
func (d *daemon) remember(agent, id, event string, req dispatch.Request, proc procID) error {
	key := agent + "\x00" + id
	d.sessMu.Lock()
	defer d.sessMu.Unlock()
	if d.sessions == nil {
		d.sessions = map[string]*session{}
	}
	old := d.sessions[key]
	if event == "SessionEnd" {
		d.forget(key)
		return nil
	}
	req.Payload = nil
	if proc.PID == 0 && old != nil {
		proc = old.agent
	}
	s := &session{req: req, used: time.Now(), agent: proc}
	grow := s.size()
	if old != nil {
		grow -= old.size()
	}
	full := func() bool {
		return old == nil && len(d.sessions) >= MaxSessions || grow > 0 && d.sessionBytes+grow > MaxSessionBytes
	}
	if full() {
		// At most once a second: each check reads /proc for every session, and a flood of
		// refused calls must not make each of them cost that.
		if time.Since(d.pruned) >= time.Second {
			d.pruned = time.Now()
			d.dropGone()
		}
		if full() {
			return errSessionsFull
		}
	}
	d.sessions[key] = s
	d.sessionBytes += grow
	return nil
}

// forget drops session key; sessMu held.
func (d *daemon) forget(key string) {
	if s := d.sessions[key]; s != nil {
		d.sessionBytes -= s.size()
		delete(d.sessions, key)
	}
}

// dropGone drops the sessions whose agent process is gone (or, the agent unknown, unused
// for SessionKeep); sessMu held.
func (d *daemon) dropGone() {
	for k, s := range d.sessions {
		if s.agent.PID != 0 && !alive(s.agent) || s.agent.PID == 0 && time.Since(s.used) > SessionKeep {
			d.forget(k)
		}
	}
}

// session is the request a session's HTTP calls run with.
func (d *daemon) session(agent, id string) (dispatch.Request, bool) {
	d.sessMu.Lock()
	defer d.sessMu.Unlock()
	s := d.sessions[agent+"\x00"+id]
	if id == "" || s == nil {
		return dispatch.Request{}, false
	}
	s.used = time.Now()
	return s.req, true
}

// liveSessions drops the sessions whose agent process is gone (or, the agent unknown,
// unused for SessionKeep) and counts the others.
func (d *daemon) liveSessions() int {
	d.sessMu.Lock()
	defer d.sessMu.Unlock()
	d.dropGone()
	return len(d.sessions)
}

// savedSession is a session as a replaced daemon hands it on.
type savedSession struct {
	Key     string           `json:"key"`
	Request dispatch.Request `json:"request"`
	Used    time.Time        `json:"used"`
	Agent   procID           `json:"agent"`
}

// saveSessions is the sessions as a replaced daemon hands them on.
func (d *daemon) saveSessions() ([]byte, error) {
	d.sessMu.Lock()
	defer d.sessMu.Unlock()
	var all []savedSession
	for k, s := range d.sessions {
		all = append(all, savedSession{Key: k, Request: s.req, Used: s.used, Agent: s.agent})
	}
	return json.Marshal(all)
}

// loadSessions takes the sessions a replaced daemon handed on (f nil: none).
func (d *daemon) loadSessions(f *os.File) {
	if f == nil {
		return
	}
	defer f.Close()
	var all []savedSession
	if raw, err := io.ReadAll(f); err != nil || json.Unmarshal(raw, &all) != nil {
		return // none: their http calls fail closed until a command entry registers them again
	}
	d.sessMu.Lock()
	defer d.sessMu.Unlock()
	d.sessions = map[string]*session{}
	d.sessionBytes = 0
	for _, s := range all {
		kept := &session{req: s.Request, used: s.Used, agent: s.Agent}
		d.sessions[s.Key] = kept
		d.sessionBytes += kept.size()
	}
}

func (d *daemon) touch() { d.last.Store(time.Now().UnixNano()) }

// retire stops this daemon for another build, exe (a caller's executable; "" or not an
// executable file: this daemon's own path, where an upgrade puts the new build). A daemon
// that serves the http transport is replaced in place by exe when it has drained (Run,
// handOver); any other exits, and the next call starts a daemon of its own build.
func (d *daemon) retire(r *round, exe string) {
	if d.o.Replace && d.httpLn != nil {
		if !isExecutable(exe) {
			exe, _ = os.Executable()
		}
		// The path checked is the path executed: its links resolved now.
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		if isExecutable(exe) {
			d.successor.CompareAndSwap(nil, &exe)
		}
	}
	go r.shutdown()
}

// isExecutable reports whether path is a build the daemon may execute in its place: an
// absolute path to a regular, executable file that only this user (or root) can change —
// the file, after its links, owned by this user or root and not writable by group or
// others, in a directory of the same owners that others cannot write (or a sticky one,
// where they cannot replace another's file). A build another user could swap while the
// daemon drains is refused; the daemon then runs its own path.
func isExecutable(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 || !ownedSafely(st) {
		return false
	}
	dir, err := os.Stat(filepath.Dir(real))
	return err == nil && ownedSafely(dir) || err == nil && dir.Mode()&os.ModeSticky != 0 && ownedBy(dir)
}

// ownedBy reports whether fi belongs to this user or root.
func ownedBy(fi os.FileInfo) bool {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (int(sys.Uid) == os.Getuid() || sys.Uid == 0)
}

// ownedSafely reports whether fi belongs to this user or root and neither group nor
// others can write it.
func ownedSafely(fi os.FileInfo) bool { return ownedBy(fi) && fi.Mode().Perm()&0o022 == 0 }

// replaceParams are the params of the replace method: the caller's build and its executable.
type replaceParams struct {
	Identity string `json:"identity"`
	Exe      string `json:"exe"`
}

// CodeSessions is the error a shutdown without force answers while http sessions are kept.
const CodeSessions = -32011

// quietRelease is how long the daemon waits after its last request, with no connection
// open, before it hands the memory its heap has freed back to the system.
const quietRelease = 2 * time.Second

// releaseMemory hands back what the heap freed (debug.FreeOSMemory) and the executable's
// pages only start-up touched (releaseBinaryPages; a test counts its calls).
var releaseMemory = func() {
	debug.FreeOSMemory()
	releaseBinaryPages()
}

// releaseIfQuiet returns the heap's free memory to the system once per quiet period: when
// no connection is open and no request has come for quietRelease since the one at
// released (the unix nanoseconds of d.last at the previous release). It returns the new
// mark. Without it the RSS of a daemon whose live heap stays flat still grows from session
// to session by what the garbage collector freed and the runtime kept (about 1.5 MiB over
// 20 sessions, docs/performance.md "Memory"); a collection when nothing is asked costs no
// call any time.
func (d *daemon) releaseIfQuiet(released int64, now time.Time) int64 {
	last := d.last.Load()
	if last == released || d.active.Load() > 0 || now.Sub(time.Unix(0, last)) < quietRelease {
		return released
	}
	releaseMemory()
	return last
}

func (d *daemon) watchIdle(r *round) {
	tick := time.NewTicker(min(d.o.Idle/4, time.Second))
	defer tick.Stop()
	var released int64
	for {
		select {
		case <-r.stop:
			return
		case <-tick.C:
		}
		released = d.releaseIfQuiet(released, time.Now())
		d.disp.CloseIdle(d.o.Idle)
		if d.active.Load() == 0 && time.Since(time.Unix(0, d.last.Load())) > d.o.Idle && d.liveSessions() == 0 {
			r.shutdown()
			return
		}
	}
}

func (d *daemon) serve(r *round) {
	common := map[string]serve.Method{
		"status": func(json.RawMessage) (json.RawMessage, error) {
			st := Status{Version: version.Version, Identity: d.o.Identity, PID: os.Getpid(),
				Engines: d.disp.Engines(), Requests: d.requests.Load(), Bundles: d.polled(),
				HTTPPort: int(d.httpPort.Load()), Sessions: d.liveSessions()}
			st.HTTPError, _ = d.httpErr.Load().(string)
			st.HandoverError, _ = d.handoverErr.Load().(string)
			return mustJSON(st), nil
		},
		"shutdown": func(params json.RawMessage) (json.RawMessage, error) {
			var p struct {
				Force bool `json:"force"`
			}
			_ = json.Unmarshal(params, &p)
			if n := d.liveSessions(); n > 0 && d.httpLn != nil && !p.Force {
				return nil, &serve.Error{Code: CodeSessions, Message: fmt.Sprintf("%d http session(s) may still post to 127.0.0.1:%d; "+
					"the daemon's exit would free that port for any local user to answer them: end those sessions first, or force it", n, d.httpPort.Load())}
			}
			go r.shutdown()
			return json.RawMessage("null"), nil
		},
		"replace": func(params json.RawMessage) (json.RawMessage, error) {
			var p replaceParams
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, &serve.Error{Code: serve.CodeInvalidParams, Message: "params: " + err.Error()}
			}
			if p.Identity == d.o.Identity {
				return json.RawMessage("false"), nil
			}
			d.retire(r, p.Exe)
			return mustJSON(d.successor.Load() != nil), nil
		},
	}
	for {
		conn, err := r.ln.Accept()
		if err != nil {
			return
		}
		if !peerAllowed(conn, os.Getuid()) {
			conn.Close() // unread: the peer's client sees a reset, and nothing ran
			continue
		}
		methods := maps.Clone(common)
		peer := peerPID(conn)
		methods["dispatch"] = func(params json.RawMessage) (json.RawMessage, error) { return d.dispatch(r, params, peer) }
		d.conns.Add(1)
		d.active.Add(1)
		go func() {
			// A connection holds the daemon up while open; only dispatches count as use
			// (asking for the status does not keep an idle daemon alive).
			defer func() { d.active.Add(-1); d.conns.Done() }()
			defer conn.Close()
			_ = serve.New(conn, conn, serve.Options{Methods: methods}).Serve()
		}()
	}
}

// dispatch runs a dispatch call of a client whose pid is peer (0: unknown).
func (d *daemon) dispatch(r *round, params json.RawMessage, peer int) (json.RawMessage, error) {
	var p dispatchParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &serve.Error{Code: serve.CodeInvalidParams, Message: "params: " + err.Error()}
	}
	if p.Identity != d.o.Identity {
		d.retire(r, p.Exe)
		return nil, &serve.Error{Code: CodeVersion, Message: fmt.Sprintf("this daemon is %s, the caller %s: exiting", d.o.Identity, p.Identity)}
	}
	d.requests.Add(1)
	defer d.touch()
	if err := d.register(p.Request, peer); err != nil {
		return nil, err // before any hook ran
	}
	d.poll(dispatch.BundleConfig(p.Request))
	reply, err := d.disp.Dispatch(p.Request)
	if err != nil {
		return nil, err
	}
	return mustJSON(reply), nil
}

// run runs a request as the dispatch method does, a failure answered as dispatch.Refuse.
func (d *daemon) run(req dispatch.Request) dispatch.Reply {
	d.requests.Add(1)
	defer d.touch()
	d.poll(dispatch.BundleConfig(req))
	r, err := d.disp.Dispatch(req)
	if err != nil {
		return dispatch.Refuse(req, err)
	}
	return r
}

// poll starts polling the bundle of a bundle.json the first time a dispatch reads it
// (one poller per file, whether it exists yet or not). The first check holds this
// dispatch at most fetch.FirstWait, so that a first start fetches before it fails closed.
func (d *daemon) poll(path string) {
	d.pollMu.Lock()
	if d.pollers == nil {
		d.pollers = map[string]*fetch.Poller{}
	}
	p := d.pollers[path]
	if p == nil {
		p = fetch.Poll(path, nil)
		d.pollers[path] = p
	}
	d.pollMu.Unlock()
	p.WaitFirst() // at once after the first check
}

func (d *daemon) polled() []string {
	d.pollMu.Lock()
	defer d.pollMu.Unlock()
	return slices.Sorted(maps.Keys(d.pollers))
}

func (d *daemon) stopPolling() {
	d.pollMu.Lock()
	defer d.pollMu.Unlock()
	for _, p := range d.pollers {
		p.Stop()
	}
	d.pollers = nil
}

// sessionsFull reports whether a new session would be refused now (remember).
func (d *daemon) sessionsFull() bool {
	d.sessMu.Lock()
	defer d.sessMu.Unlock()
	return len(d.sessions) >= MaxSessions || d.sessionBytes >= MaxSessionBytes
}
