// Package run starts one hook child process and waits for it; every hook child of
// hookexec goes through Run.
//
// Run starts Argv in its own process group with a clean signal mask, writes Stdin to
// it and closes it, keeps the first OutputCap bytes of stdout and stderr while
// draining and counting the rest, and on timeout or cancellation sends SIGTERM to
// the whole group, then SIGKILL after a grace, so that no process of a timed-out
// tree survives Run.
//
// Run does not invoke a shell: Argv is executed as is, and callers that want shell
// syntax pass "/bin/sh", "-c", script themselves. It never reads the host's stdin,
// never writes to the host's stdout or stderr, and installs no signal handlers.
//
// A child that exits on its own while a process it started in the background still
// holds its stdout or stderr is waited for at most Grace longer; then its pipes are
// closed and its process group is killed (Result.Stragglers): a process holding a
// hook's output is hung, not a daemon. A background process that let go of the
// output (a sound, a server started with >/dev/null) is left running, since the
// hook meant to leave it. A timeout or a cancellation kills the whole group.
//
// A process that leaves the group (setsid, a double fork) escapes a group kill.
// Where the host may create cgroups (cgroup v2, writable), each run also gets its
// own child cgroup, and what the group kill misses is killed through it.
//
// Run starts no goroutine of its own: the calling goroutine forks the child and
// waits for its pipes, its exit (through a pidfd) and the clocks in one ppoll.
// Run is Linux-only: it reads /proc and calls rt_sigprocmask and ppoll; before
// Linux 5.3, which has no pidfd to poll, a goroutine per run waits for the exit.
package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Spec says what to run and how. Its zero value, apart from Argv, is a sensible default.
type Spec struct {
	// Argv is the program and its arguments. Argv[0] is looked up on PATH (from Env
	// if it sets PATH, else the process's) when it has no slash; with a slash it is
	// a path, relative to Dir. An empty Argv is an error.
	Argv []string
	// Stdin is written to the child, then closed. nil or empty means an empty
	// stdin; the child never gets the host's stdin.
	Stdin []byte
	// Env is the child's whole environment. nil means os.Environ().
	Env []string
	// Dir is the working directory. "" means the host's.
	Dir string
	// Timeout bounds the run. Zero or negative means no timeout.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL to the group, and how long Run
	// waits for pipes held open after the child exits. Zero or negative means 1s.
	Grace time.Duration
	// OutputCap is the number of bytes kept per stream; the rest is drained and
	// counted. Zero means 32 KiB; negative keeps nothing and only counts.
	OutputCap int
}

// Result is what became of one run. A Result is a value: Run never returns a partial one.
type Result struct {
	// ExitCode is the child's exit status; -1 when it was killed by a signal or
	// never started.
	ExitCode int
	// Signal is the name of the signal that killed the child ("SIGTERM",
	// "SIGKILL", "SIGSEGV", ...), else "".
	Signal string
	// TimedOut reports that Timeout expired and the group was killed.
	TimedOut bool
	// Duration is the wall time Run took.
	Duration time.Duration
	// Stdout and Stderr hold at most OutputCap bytes each.
	Stdout, Stderr []byte
	// StdoutTruncated and StderrTruncated report that the child wrote more than
	// OutputCap bytes to that stream.
	StdoutTruncated, StderrTruncated bool
	// StdoutBytes and StderrBytes count every byte the child wrote to each stream.
	StdoutBytes, StderrBytes int64
	// Stragglers reports that the child exited but processes it started still held
	// its stdout or stderr Grace later; they were killed (with its process group,
	// and through the run's cgroup when it has one).
	Stragglers bool
	// Err is nil, or why the child could not be started (it wraps exec.ErrNotFound,
	// exec.ErrDot or an fs error such as fs.ErrPermission), or that ctx ended the
	// run (it wraps ctx's error, context.Canceled for a plain cancel), or that the
	// child could not be waited for. A timeout is not an error: see TimedOut.
	Err error
}

// NotFound reports whether r failed because Argv[0] was not found on PATH, in which
// case callers fall back to the shell form.
func (r Result) NotFound() bool { return errors.Is(r.Err, exec.ErrNotFound) }

const (
	defaultGrace = time.Second
	defaultCap   = 32 << 10
)

var errEmptyArgv = errors.New("hookexec: run: empty argv")

// devNull is the empty stdin every run shares, opened once (and kept open, close
// on exec) instead of an open and a close per run; -1 makes a run use an empty pipe.
var devNull = sync.OnceValue(func() int {
	fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
})

// Run starts the child in its own process group, feeds stdin, captures output,
// enforces the timeout and waits. When ctx ends first it kills like a timeout but
// sets Err to wrap ctx's error (context.Canceled) instead of TimedOut. Run never
// panics on a bad Spec and always returns a Result.
func Run(ctx context.Context, spec Spec) Result {
	start := time.Now()
	r := run(ctx, &spec, start)
	r.Duration = time.Since(start)
	return r
}

func run(parent context.Context, spec *Spec, start time.Time) Result {
	r := Result{ExitCode: -1}
	if len(spec.Argv) == 0 {
		r.Err = errEmptyArgv
		return r
	}
	if parent == nil {
		parent = context.Background()
	}
	path, err := lookPath(spec.Argv[0], spec.Env, spec.Dir)
	if err != nil {
		r.Err = fmt.Errorf("hookexec: run: %w", err)
		return r
	}
	env, err := childEnv(spec.Env, spec.Dir)
	if err != nil {
		r.Err = fmt.Errorf("hookexec: run %q: %w", spec.Argv[0], err)
		return r
	}
	grace := spec.Grace
	if grace <= 0 {
		grace = defaultGrace
	}
	limit := spec.OutputCap
	if limit == 0 {
		limit = defaultCap
	}
	p := newProc(grace, limit)
	defer p.release()
	if spec.Timeout > 0 {
		p.deadline = start.Add(spec.Timeout)
	}
	if err := p.start(parent, path, spec, env); err != nil {
		if err == errEnded {
			// The child is not started once ctx has ended, as os/exec refuses to.
			endedByContext(&r, p.timedOut, parent)
			return r
		}
		r.Err = fmt.Errorf("hookexec: run %q: %w", spec.Argv[0], err)
		return r
	}
	p.wait(parent)
	if !p.killedAt.IsZero() {
		killGroup(p.pid, p.killedAt.Add(grace))
		endedByContext(&r, p.timedOut, parent)
	} else if p.held {
		// The leader exited and a process it left kept the output open for the
		// whole grace: that one is hung, not a daemon. Its group has had the grace.
		killGroup(p.pid, time.Now())
		r.Stragglers = true
	}
	if p.box != nil && (!p.doneAt.IsZero() || p.held) {
		p.box.kill() // what left the group: setsid, double forks
	}

	r.Stdout, r.StdoutBytes, r.StdoutTruncated = p.out.buf, p.out.total, p.out.truncated()
	r.Stderr, r.StderrBytes, r.StderrTruncated = p.err.buf, p.err.total, p.err.truncated()
	if p.werr != nil {
		r.Err = fmt.Errorf("hookexec: run %q: wait: %w", spec.Argv[0], p.werr)
		return r
	}
	switch ws := p.ws; {
	case ws.Exited():
		r.ExitCode = ws.ExitStatus()
	case ws.Signaled():
		r.Signal = signalName(ws.Signal())
	}
	return r
}

// childEnv is the child's environment as os/exec would build it: the host's when
// env is nil, with PWD set to dir, and the last of duplicate keys winning.
func childEnv(env []string, dir string) ([]string, error) {
	if env == nil {
		env = os.Environ()
		if dir != "" {
			pwd, err := filepath.Abs(dir)
			if err != nil {
				return nil, err
			}
			env = append(env, "PWD="+pwd)
		}
	}
	return dedupEnv(env)
}

// dedupEnv returns env with any duplicates removed, in favour of later values, as
// os/exec does; env itself when it has none to remove. Entries not of the form
// key=value are kept, empty ones dropped, and ones holding NUL dropped with an error.
func dedupEnv(env []string) ([]string, error) {
	saw := make(map[string]struct{}, len(env))
	clean := true
	for _, kv := range env {
		k, ok := envKey(kv)
		if kv == "" || strings.IndexByte(kv, 0) >= 0 {
			clean = false
			break
		}
		if !ok {
			continue
		}
		if _, dup := saw[k]; dup {
			clean = false
			break
		}
		saw[k] = struct{}{}
	}
	if clean {
		return env, nil
	}
	clear(saw)
	var err error
	out := make([]string, 0, len(env))
	for i := len(env) - 1; i >= 0; i-- {
		kv := env[i]
		if strings.IndexByte(kv, 0) >= 0 {
			err = errors.New("exec: environment variable contains NUL")
			continue
		}
		k, ok := envKey(kv)
		if !ok {
			if kv != "" {
				out = append(out, kv)
			}
			continue
		}
		if _, dup := saw[k]; dup {
			continue
		}
		saw[k] = struct{}{}
		out = append(out, kv)
	}
	slices.Reverse(out)
	return out, err
}

// envKey is the key of a key=value entry; a leading "=" is part of the key.
func envKey(kv string) (string, bool) {
	i := strings.IndexByte(kv, '=')
	if i == 0 {
		i = strings.IndexByte(kv[1:], '=') + 1
	}
	if i <= 0 {
		return "", false
	}
	return kv[:i], true
}

// endedByContext records why the run was ended: Run's own deadline is a timeout,
// anything else is the parent's doing and becomes Err.
func endedByContext(r *Result, timedOut bool, parent context.Context) {
	if timedOut {
		r.TimedOut = true
		return
	}
	err := parent.Err()
	if err == nil {
		err = context.Canceled
	}
	r.Err = fmt.Errorf("hookexec: run: %w", err)
}

// killGroup makes sure no member of the group survives once its leader is reaped:
// members that ignored SIGTERM get until deadline to exit, then SIGKILL. The short
// sleeps are only ever taken on this failure path.
func killGroup(pgid int, deadline time.Time) {
	for pause := time.Millisecond; groupLive(pgid); pause *= 2 {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		time.Sleep(min(pause, left, 50*time.Millisecond))
	}
	if syscall.Kill(-pgid, syscall.SIGKILL) != nil {
		return
	}
	// SIGKILL is delivered asynchronously; wait a bounded moment so the tree is
	// dead, not dying, when Run returns.
	for end := time.Now().Add(50 * time.Millisecond); groupLive(pgid) && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
}

// groupLive reports whether a process of group pgid still runs. kill(2) also
// counts zombies, which under an init that does not reap orphans stay forever,
// so a positive answer is checked against /proc.
func groupLive(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	d, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer d.Close()
	member := false
	for {
		names, err := d.Readdirnames(512)
		for _, name := range names {
			if name[0] < '0' || name[0] > '9' {
				continue
			}
			state, pgrp, ok := procStat(name)
			if !ok || pgrp != pgid {
				continue
			}
			if state != 'Z' && state != 'X' {
				return true
			}
			member = true
		}
		if err == io.EOF {
			// A group kill(2) sees but /proc does not is another pid namespace's
			// view: trust kill(2).
			return !member
		}
		if err != nil {
			return true
		}
	}
}

// procStat reads the state and process group from /proc/PID/stat.
func procStat(pid string) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(f[2])
	return f[0][0], pgrp, err == nil
}

// startClean runs start, which forks the child, so that the child's signal mask
// is empty. Go hands the child the forking thread's mask, which is empty in a Go
// program but is whatever the host blocked when hookexec runs on a host thread or
// in a host that blocks signals process-wide; a hook with SIGTERM blocked would
// ignore our timeout.
func startClean(start func() error) error {
	runtime.LockOSThread()
	var cur uint64
	if sigprocmask(sigSetmask, nil, &cur) != 0 || cur == 0 {
		err := start()
		runtime.UnlockOSThread()
		return err
	}
	runtime.UnlockOSThread()
	// Clear the mask on a Go-owned thread, not the caller's: Go records the mask
	// at fork and would restore the cleared one onto a host thread when the call
	// returns to C. While it is cleared, a signal the host blocked may be
	// delivered on that thread; the window is one fork.
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var empty, old uint64
		if sigprocmask(sigSetmask, &empty, &old) != 0 {
			done <- start()
			return
		}
		err := start()
		sigprocmask(sigSetmask, &old, nil)
		done <- err
	}()
	return <-done
}

// sigSetmask is SIG_SETMASK on Linux amd64, arm64 and the other generic-ABI
// architectures (not mips), with an 8-byte kernel sigset.
const sigSetmask = 2

func sigprocmask(how int, set, old *uint64) syscall.Errno {
	_, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, uintptr(how),
		uintptr(unsafe.Pointer(set)), uintptr(unsafe.Pointer(old)), 8, 0, 0)
	return e
}

// lookPath finds file on the PATH that env sets, which is the child's, not
// necessarily the host's. It follows exec.LookPath: a name with a slash is used
// as is, an empty PATH element means ".", and a match in a relative directory
// (looked for in dir, where the child would look) is refused with exec.ErrDot.
func lookPath(file string, env []string, dir string) (string, error) {
	if strings.IndexByte(file, '/') >= 0 {
		return file, nil
	}
	var list string
	if env == nil {
		list = os.Getenv("PATH")
	} else {
		for i := len(env) - 1; i >= 0; i-- {
			// The last PATH wins, as it does for os/exec's environment.
			if v, ok := strings.CutPrefix(env[i], "PATH="); ok {
				list = v
				break
			}
		}
	}
	if file != "" && list != "" {
		for elem := range strings.SplitSeq(list, ":") {
			if elem == "" {
				elem = "."
			}
			p := elem + "/" + file
			if p[0] == '/' {
				if executable(p) {
					return p, nil
				}
				continue
			}
			if dir != "" {
				p = dir + "/" + p
			}
			if executable(p) {
				return "", &exec.Error{Name: file, Err: exec.ErrDot}
			}
		}
	}
	return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
}

func executable(p string) bool {
	var st syscall.Stat_t
	if syscall.Stat(p, &st) != nil || st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return false
	}
	err := syscall.Access(p, 1) // X_OK
	if err == syscall.ENOSYS || err == syscall.EPERM {
		// Seccomp sandboxes may refuse access(2); the mode bits still tell.
		return st.Mode&0o111 != 0
	}
	return err == nil
}

// signalName names the signal that killed a child the way shells and kill(1) do.
func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGTRAP:
		return "SIGTRAP"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGFPE:
		return "SIGFPE"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGALRM:
		return "SIGALRM"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGSTKFLT:
		return "SIGSTKFLT"
	case syscall.SIGCHLD:
		return "SIGCHLD"
	case syscall.SIGCONT:
		return "SIGCONT"
	case syscall.SIGSTOP:
		return "SIGSTOP"
	case syscall.SIGTSTP:
		return "SIGTSTP"
	case syscall.SIGTTIN:
		return "SIGTTIN"
	case syscall.SIGTTOU:
		return "SIGTTOU"
	case syscall.SIGURG:
		return "SIGURG"
	case syscall.SIGXCPU:
		return "SIGXCPU"
	case syscall.SIGXFSZ:
		return "SIGXFSZ"
	case syscall.SIGVTALRM:
		return "SIGVTALRM"
	case syscall.SIGPROF:
		return "SIGPROF"
	case syscall.SIGWINCH:
		return "SIGWINCH"
	case syscall.SIGIO:
		return "SIGIO"
	case syscall.SIGPWR:
		return "SIGPWR"
	case syscall.SIGSYS:
		return "SIGSYS"
	}
	return "SIG" + strconv.Itoa(int(s))
}
