package run

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// devNull is the empty stdin every run shares, opened once (and kept open, close
// on exec) instead of an open and a close per run; -1 makes a run use an empty pipe.
var devNull = sync.OnceValue(func() int {
	fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
})

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
	grace, outCap, errCap := spec.limits()
	p := newProc(grace, outCap, errCap)
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
