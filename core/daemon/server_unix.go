//go:build unix

package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hookexec/hookexec/core/bundle/fetch"
	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/serve"
	"github.com/hookexec/hookexec/core/version"
)

// Options configure Run; zero values mean the documented defaults.
type Options struct {
	Dir      string        // "" means RuntimeDir()
	Idle     time.Duration // 0 means Idle()
	Identity string        // "" means Identity()
}

// PrivateDir creates dir (0700) or checks that an existing one is a real directory of
// this user that nobody else can enter.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
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
	lk, err := lock(filepath.Join(o.Dir, LockName), 5*time.Second)
	if err != nil {
		return err
	}
	defer lk.Close()
	sock := filepath.Join(o.Dir, SocketName)
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
	d := &daemon{o: o, ln: ln, disp: dispatch.New(), stop: make(chan struct{})}
	d.disp.IndexTo(o.Dir, o.Identity) // the C client's no-match index (core/nomatch)
	d.touch()
	go d.watchIdle()
	d.serve()
	// Remove the socket only if it is still ours.
	if now, err := os.Stat(sock); err == nil && mine != nil && os.SameFile(now, mine) {
		_ = os.Remove(sock)
	}
	d.conns.Wait()
	d.stopPolling()
	d.disp.Close()
	return nil
}

type daemon struct {
	o        Options
	ln       net.Listener
	disp     *dispatch.Dispatcher
	conns    sync.WaitGroup
	active   atomic.Int64
	last     atomic.Int64 // unix nanoseconds of the last request's end
	requests atomic.Int64
	once     sync.Once
	stop     chan struct{}
	pollMu   sync.Mutex
	pollers  map[string]*fetch.Poller // bundle.json path → its poller
}

func (d *daemon) touch() { d.last.Store(time.Now().UnixNano()) }

func (d *daemon) shutdown() {
	d.once.Do(func() {
		close(d.stop)
		_ = d.ln.Close()
	})
}

// quietRelease is how long the daemon waits after its last request, with no connection
// open, before it hands the memory its heap has freed back to the system.
const quietRelease = 2 * time.Second

// releaseMemory is debug.FreeOSMemory (a test counts its calls).
var releaseMemory = debug.FreeOSMemory

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

func (d *daemon) watchIdle() {
	tick := time.NewTicker(min(d.o.Idle/4, time.Second))
	defer tick.Stop()
	var released int64
	for {
		select {
		case <-d.stop:
			return
		case <-tick.C:
		}
		released = d.releaseIfQuiet(released, time.Now())
		d.disp.CloseIdle(d.o.Idle)
		if d.active.Load() == 0 && time.Since(time.Unix(0, d.last.Load())) > d.o.Idle {
			d.shutdown()
			return
		}
	}
}

func (d *daemon) serve() {
	methods := map[string]serve.Method{
		"dispatch": d.dispatch,
		"status": func(json.RawMessage) (json.RawMessage, error) {
			return mustJSON(Status{Version: version.Version, Identity: d.o.Identity, PID: os.Getpid(),
				Engines: d.disp.Engines(), Requests: d.requests.Load(), Bundles: d.polled()}), nil
		},
		"shutdown": func(json.RawMessage) (json.RawMessage, error) {
			go d.shutdown()
			return json.RawMessage("null"), nil
		},
	}
	for {
		conn, err := d.ln.Accept()
		if err != nil {
			return
		}
		if !peerAllowed(conn, os.Getuid()) {
			conn.Close() // unread: the peer's client sees a reset, and nothing ran
			continue
		}
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

func (d *daemon) dispatch(params json.RawMessage) (json.RawMessage, error) {
	var p dispatchParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &serve.Error{Code: serve.CodeInvalidParams, Message: "params: " + err.Error()}
	}
	if p.Identity != d.o.Identity {
		go d.shutdown()
		return nil, &serve.Error{Code: CodeVersion, Message: fmt.Sprintf("this daemon is %s, the caller %s: exiting", d.o.Identity, p.Identity)}
	}
	d.requests.Add(1)
	defer d.touch()
	d.poll(dispatch.BundleConfig(p.Request))
	r, err := d.disp.Dispatch(p.Request)
	if err != nil {
		return nil, err
	}
	return mustJSON(r), nil
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
