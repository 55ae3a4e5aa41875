package run

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// proc is one started child: its leader, the parent's ends of its pipes and the
// clocks that govern them. The goroutine in Run drives all of it from one ppoll
// loop, so a run starts no goroutine, arms no timer and registers nothing with
// the netpoller: it costs little more than the fork itself.
type proc struct {
	pid   int
	pidfd int // readable once the leader has exited; -1 when the kernel has none

	stdin    int    // write end of the child's stdin while some of it is unwritten, else -1
	rest     []byte // stdin not yet written
	out, err stream
	buf      *[]byte // read buffer, taken from scratch on first use

	// wakeR is readable once wakeW is poked: when the parent context ends and,
	// without a pidfd, when the waiter goroutine has reaped the leader.
	wakeR, wakeW int
	wakeMu       sync.Mutex  // keeps a late poke off a closed (maybe reused) wakeW
	unwatch      func() bool // stops the poke on the parent's end

	// Without a pidfd, a waiter goroutine reaps the leader and sets exited after
	// ws and werr, which the loop reads only once it sees exited.
	exited atomic.Bool
	ws     syscall.WaitStatus
	werr   error

	grace    time.Duration
	deadline time.Time // of the timeout; zero for none
	doneAt   time.Time // when the timeout or the parent ended the run; zero if neither did
	killedAt time.Time // when SIGTERM reached the group; zero if it did not
	timedOut bool      // the timeout, not the parent, ended the run
	sigkill  bool      // the leader was sent SIGKILL
	reaped   bool
	exitAt   time.Time
	// held: the leader exited on its own, yet its stdout or stderr was still open
	// a grace later, held by a process it started.
	held bool
	box  container // the run's cgroup; nil without one
}

// stream is the parent's read end of the child's stdout or stderr, -1 once closed.
type stream struct {
	fd int
	capture
}

func newProc(grace time.Duration, outCap, errCap int) *proc {
	return &proc{
		pidfd: -1, stdin: -1, wakeR: -1, wakeW: -1,
		out:   stream{fd: -1, capture: capture{limit: outCap}},
		err:   stream{fd: -1, capture: capture{limit: errCap}},
		grace: grace,
	}
}

// errEnded tells run that start found the run already over.
var errEnded = errors.New("hookexec: run: ended before start")

// start makes the pipes, fills stdin as far as the pipe holds it, and forks the
// child into its own process group with a clean signal mask.
func (p *proc) start(parent context.Context, path string, spec *Spec, env []string) error {
	// The child's ends, closed in the parent once it has forked; the shared
	// /dev/null stays open.
	child := [3]int{-1, -1, -1}
	defer func() {
		for i := range child {
			closeFd(&child[i])
		}
	}()
	var err error
	shared := -1
	if len(spec.Stdin) == 0 {
		shared = devNull()
	}
	if shared < 0 {
		if child[0], p.stdin, err = pipe(0); err != nil {
			return err
		}
		// Stdin up to the pipe's capacity (64 KiB by default) is written before the
		// fork and never blocks; the loop writes the rest as the child reads it.
		p.rest = spec.Stdin
		if len(p.rest) == 0 {
			closeFd(&p.stdin)
		} else if err := setNonblock(p.stdin); err != nil {
			return err
		}
		p.feed()
	}
	if p.out.fd, child[1], err = pipe(0); err != nil {
		return err
	}
	if p.err.fd, child[2], err = pipe(0); err != nil {
		return err
	}
	usePidfd := pidfdWorks()
	if parent.Done() != nil || !usePidfd {
		if p.wakeR, p.wakeW, err = pipe(syscall.O_NONBLOCK); err != nil {
			return err
		}
	}
	if parent.Done() != nil {
		p.unwatch = context.AfterFunc(parent, p.poke)
	}
	if parent.Err() != nil {
		return errEnded
	}
	if !p.deadline.IsZero() && !time.Now().Before(p.deadline) {
		p.timedOut = true
		return errEnded
	}

	sys := syscall.SysProcAttr{Setpgid: true}
	if usePidfd {
		sys.PidFD = &p.pidfd
	}
	if p.box = newContainer(); p.box != nil {
		sys.UseCgroupFD, sys.CgroupFD = true, p.box.fd()
	}
	stdin := child[0]
	if shared >= 0 {
		stdin = shared
	}
	attr := syscall.ProcAttr{Dir: spec.Dir, Env: env, Files: []uintptr{uintptr(stdin), uintptr(child[1]), uintptr(child[2])}, Sys: &sys}
	fork := func() error {
		return startClean(func() error {
			return startWithDefaultSignals(func() error {
				var err error
				p.pid, err = syscall.ForkExec(path, spec.Argv, &attr)
				return err
			})
		})
	}
	err = fork()
	if err != nil && p.box != nil {
		// The kernel may refuse the cgroup (no clone3, a policy); only if the
		// plain fork then works was the cgroup to blame.
		sys.UseCgroupFD = false
		if err = fork(); err == nil {
			noCgroup(p.box)
		} else {
			p.box.release()
		}
		p.box = nil
	}
	if err != nil {
		return &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	if p.pidfd < 0 {
		go p.waiter()
	}
	return nil
}

// release closes every descriptor the parent still holds and returns the buffer.
func (p *proc) release() {
	if p.unwatch != nil {
		p.unwatch()
	}
	p.closePipes()
	closeFd(&p.pidfd)
	if p.box != nil {
		p.box.release()
		p.box = nil
	}
	closeFd(&p.wakeR)
	p.wakeMu.Lock()
	closeFd(&p.wakeW)
	p.wakeMu.Unlock()
	if p.buf != nil {
		scratch.Put(p.buf)
		p.buf = nil
	}
}

// closePipes closes the parent's ends of the child's stdio pipes. A process that
// inherited them may go on holding the other ends: it no longer holds up Run.
func (p *proc) closePipes() {
	closeFd(&p.stdin)
	p.rest = nil
	closeFd(&p.out.fd)
	closeFd(&p.err.fd)
}

func closeFd(fd *int) {
	if *fd >= 0 {
		syscall.Close(*fd)
		*fd = -1
	}
}

var wakeByte = []byte{1}

// poke wakes the loop. It runs on other goroutines and never blocks: wakeW is
// non-blocking, and a full pipe is awake already.
func (p *proc) poke() {
	p.wakeMu.Lock()
	if p.wakeW >= 0 {
		syscall.Write(p.wakeW, wakeByte)
	}
	p.wakeMu.Unlock()
}

// waiter reaps the leader when the kernel offers no pidfd to poll.
func (p *proc) waiter() {
	var err error
	for {
		_, err = syscall.Wait4(p.pid, &p.ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		p.werr = os.NewSyscallError("wait", err)
	}
	p.exited.Store(true)
	p.poke()
}

// feed writes as much of the rest of stdin as the pipe takes without blocking,
// and closes the pipe once all is written or the child can no longer read it.
func (p *proc) feed() {
	for len(p.rest) > 0 {
		n, err := syscall.Write(p.stdin, p.rest)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			return
		}
		if err != nil || n <= 0 {
			break // EPIPE: nobody reads the rest
		}
		p.rest = p.rest[n:]
	}
	closeFd(&p.stdin)
	p.rest = nil
}

// drain reads what one stream has ready; its fd is blocking, so it reads once
// per readiness. EOF or an error closes it.
func (p *proc) drain(s *stream) {
	if p.buf == nil {
		p.buf = scratch.Get().(*[]byte)
	}
	for {
		n, err := syscall.Read(s.fd, *p.buf)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			return
		}
		if err == nil && n > 0 {
			s.keep((*p.buf)[:n])
			return
		}
		closeFd(&s.fd)
		return
	}
}

// reap collects the leader's status once its pidfd is readable, so wait4 does
// not block. A host that sets SIGCHLD to SIG_IGN has the kernel reap it: ECHILD.
func (p *proc) reap() {
	for {
		_, err := syscall.Wait4(p.pid, &p.ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			p.werr = os.NewSyscallError("wait", err)
		}
		break
	}
	p.reaped = true
	p.exitAt = time.Now()
}

// end is the cancel of a run: SIGTERM to the whole group, once. From then on the
// leader has the grace to exit before SIGKILL and the pipes are closed after it,
// whether or not the leader has exited.
func (p *proc) end(now time.Time, timeout bool) {
	p.doneAt = now
	p.timedOut = timeout
	// ESRCH means the group is gone: the leader exited on its own, not a kill.
	if syscall.Kill(-p.pid, syscall.SIGTERM) == nil {
		p.killedAt = now
	}
	if p.box != nil {
		p.box.signal(syscall.SIGTERM) // those that left the group
	}
}

const (
	pollIn  = 0x1
	pollOut = 0x4
)

type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const (
	roleLeader = iota
	roleWake
	roleStdin
	roleStdout
	roleStderr
)

// wait runs the child to its end: it feeds stdin, drains stdout and stderr, reaps
// the leader, and on timeout or when parent ends kills the group, then SIGKILLs
// the leader and closes the pipes after the grace. Once the leader has exited on
// its own, pipes that something else still holds are closed after the grace.
// That is exactly what os/exec does with Cancel and WaitDelay.
func (p *proc) wait(parent context.Context) {
	var fds [5]pollFd
	var roles [5]uint8
	for {
		now := time.Now()
		if !p.reaped && p.exited.Load() {
			p.reaped = true
			p.exitAt = now
		}
		var next time.Time
		if !p.reaped && p.doneAt.IsZero() && !p.deadline.IsZero() {
			if now.Before(p.deadline) {
				next = p.deadline
			} else {
				p.end(now, true)
			}
		}
		if !p.doneAt.IsZero() || p.reaped {
			end := p.exitAt
			if !p.doneAt.IsZero() {
				end = p.doneAt
			}
			end = end.Add(p.grace)
			if now.Before(end) {
				if next.IsZero() || end.Before(next) {
					next = end
				}
			} else {
				if !p.reaped && !p.sigkill && !p.exited.Load() {
					// Killed first so that it dies of SIGKILL, not of SIGPIPE.
					syscall.Kill(p.pid, syscall.SIGKILL)
					p.sigkill = true
				}
				if p.doneAt.IsZero() && (p.out.fd >= 0 || p.err.fd >= 0) {
					p.held = true
				}
				p.closePipes()
			}
		}
		if p.reaped && p.stdin < 0 && p.out.fd < 0 && p.err.fd < 0 {
			return
		}

		n := 0
		add := func(fd int, events int16, role uint8) {
			fds[n] = pollFd{fd: int32(fd), events: events}
			roles[n] = role
			n++
		}
		if !p.reaped {
			if p.pidfd >= 0 {
				add(p.pidfd, pollIn, roleLeader)
			}
			if p.wakeR >= 0 {
				add(p.wakeR, pollIn, roleWake)
			}
		}
		if p.stdin >= 0 {
			add(p.stdin, pollOut, roleStdin)
		}
		if p.out.fd >= 0 {
			add(p.out.fd, pollIn, roleStdout)
		}
		if p.err.fd >= 0 {
			add(p.err.fd, pollIn, roleStderr)
		}
		timeout := time.Duration(-1)
		if !next.IsZero() {
			timeout = max(next.Sub(now), 0)
		}
		if !p.reaped && p.pidfd < 0 && p.wakeR < 0 {
			// Only if the kernel started the child without the pidfd it was asked
			// for: nothing can wake the loop when the waiter reaps, so look.
			if timeout < 0 || timeout > 10*time.Millisecond {
				timeout = 10 * time.Millisecond
			}
		}
		if !ppoll(fds[:n], timeout) {
			continue
		}
		for i := range n {
			if fds[i].revents == 0 {
				continue
			}
			switch roles[i] {
			case roleLeader:
				p.reap()
			case roleWake:
				var b [8]byte
				for {
					m, err := syscall.Read(p.wakeR, b[:])
					if m <= 0 && err != syscall.EINTR {
						break
					}
				}
				if p.doneAt.IsZero() && !p.exited.Load() && parent.Err() != nil {
					p.end(time.Now(), false)
				}
			case roleStdin:
				p.feed()
			case roleStdout:
				p.drain(&p.out)
			case roleStderr:
				p.drain(&p.err)
			}
		}
	}
}

// ppoll waits for fds or timeout (negative: none). It reports false when it was
// interrupted or failed, and the caller should look at the clocks again.
func ppoll(fds []pollFd, timeout time.Duration) bool {
	var ts *syscall.Timespec
	if timeout >= 0 {
		t := syscall.NsecToTimespec(int64(timeout))
		ts = &t
	}
	var p unsafe.Pointer
	if len(fds) > 0 {
		p = unsafe.Pointer(&fds[0])
	}
	_, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(p), uintptr(len(fds)),
		uintptr(unsafe.Pointer(ts)), 0, 0, 0)
	switch e {
	case 0:
		return true
	case syscall.EINTR:
		return false
	}
	// EFAULT, EINVAL or ENOMEM: not expected; do not spin.
	time.Sleep(time.Millisecond)
	return false
}

// sysPidfdOpen is pidfd_open(2), the same number on every architecture.
const sysPidfdOpen = 434

// pidfdWorks reports whether the kernel has pollable pidfds. pidfd_open came
// with poll support (Linux 5.3); CLONE_PIDFD alone (5.2) returned pidfds that
// poll as always readable, which would make reap block the loop.
var pidfdWorks = sync.OnceValue(func() bool {
	fd, _, e := syscall.RawSyscall(sysPidfdOpen, uintptr(syscall.Getpid()), 0, 0)
	if e != 0 {
		return false
	}
	syscall.Close(int(fd))
	return true
})

// pipe returns a close-on-exec pipe.
func pipe(flags int) (r, w int, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC|flags); err != nil {
		return -1, -1, os.NewSyscallError("pipe2", err)
	}
	return fds[0], fds[1], nil
}

func setNonblock(fd int) error {
	_, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFL, syscall.O_NONBLOCK)
	if e != 0 {
		return os.NewSyscallError("fcntl", e)
	}
	return nil
}
