//go:build unix

package persist

import (
	"bytes"
	"context"
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// answers: a request writes its line and reads the answer itself, on the calling thread,
// waiting in poll(2); between requests a goroutine drains stdout through Go's poller and
// drops what the process writes, so that it never blocks on a full pipe.
//
// Why: the answer used to come through a reader goroutine and a channel, and every fire
// paid for that goroutine's wake-up and for the hand-off of the answer to the waiting one;
// through the C library the fire runs on the host's thread, where each such hand-off also
// moves Go's scheduler from one OS thread to another. Waiting in poll(2) on the calling
// thread leaves only the wake-ups of the pipe round trip itself, and no timer: the deadline
// is poll's timeout.
//
// The drainer and a request never read at once: while busy is set the drainer leaves stdout
// alone (the answer's arrival still wakes it, on another thread, and it goes back to
// waiting). A wake pipe interrupts a request's poll when the leader dies or the request's
// context ends.
type answers struct {
	inFd, outFd int      // stdin's write end and stdout's read end, non-blocking
	stdout      *os.File // kept for the drainer, which waits for it in Go's poller
	wake        [2]int   // the wake pipe; written by kick

	mu      sync.Mutex // guards what follows, and reads of outFd outside a request
	busy    bool       // a request reads stdout
	closed  bool       // stop ran: no fd is used any more
	eof     bool       // stdout ended (or failed)
	partial []byte     // a line not yet ended by '\n': the answer being read, or unsolicited
	tooLong bool       // the line in partial passed maxLine; its bytes are not kept
	after   []byte     // what came after the answer line in its read, filed at release
	buf     []byte     // read buffer for unsolicited output
	read    int        // bytes the last read of unsolicited output got

	standing     context.Context // the context whose end already kicks (the engine's)
	stopStanding func() bool
}

func (a *answers) start(stdin, stdout *os.File) error {
	var err error
	if a.inFd, err = rawFd(stdin); err != nil {
		return err
	}
	if a.outFd, err = rawFd(stdout); err != nil {
		return err
	}
	if err := wakePipe(&a.wake); err != nil {
		return err
	}
	a.stdout = stdout
	a.buf = make([]byte, 16<<10)
	go a.drain()
	return nil
}

// rawFd is f's descriptor; f stays open (and non-blocking) until stop closes it.
func rawFd(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if err := rc.Control(func(u uintptr) { fd = int(u) }); err != nil {
		return -1, err
	}
	return fd, nil
}

// kick wakes a request waiting in poll: the leader died, or the request's context ended.
func (a *answers) kick() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed {
		syscall.Write(a.wake[1], []byte{1}) // a full pipe is a pending wake already
	}
}

// stop closes stdout (ending the drainer) and the wake pipe. Only after the last request.
func (a *answers) stop() {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	a.closed = true
	syscall.Close(a.wake[0])
	syscall.Close(a.wake[1])
	a.mu.Unlock()
	if a.stopStanding != nil {
		a.stopStanding()
	}
	// Outside mu: Close waits for the drainer to leave stdout, and the drainer takes mu
	// to see that it is closed.
	a.stdout.Close()
}

// drain reads stdout between requests until it ends, dropping whole lines.
func (a *answers) drain() {
	rc, err := a.stdout.SyscallConn()
	if err != nil {
		return
	}
	rc.Read(func(fd uintptr) bool {
		for {
			a.mu.Lock()
			if a.busy || a.closed {
				a.mu.Unlock()
				return false // the request reads; its release looks again
			}
			n := len(a.buf)
			ended := a.unsolicited(int(fd), 1)
			more := !ended && a.read == n // the buffer filled: there may be more
			a.mu.Unlock()
			if ended || !more {
				return ended
			}
		}
	})
}

// unsolicited reads what stdout holds, outside any request, dropping whole lines; at most
// reads times (-1: until it would block). It reports whether stdout ended. a.mu is held.
func (a *answers) unsolicited(fd, reads int) bool {
	for ; reads != 0; reads-- {
		n, err := syscall.Read(fd, a.buf)
		a.read = max(n, 0)
		switch {
		case n > 0:
			a.dropLines(a.buf[:n])
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			return false
		default: // EOF, or an error: no answer can come
			a.eof = true
			return true
		}
	}
	return false
}

// dropLines files output nobody asked for: whole lines go, an unfinished one is kept (as
// the old reader did: it becomes the start of the next answer line).
func (a *answers) dropLines(b []byte) {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		a.partial, a.tooLong = a.partial[:0], false
		b = b[i+1:]
	}
	a.keepPartial(b)
}

func (a *answers) keepPartial(b []byte) {
	switch {
	case a.tooLong:
	case len(a.partial)+len(b) > maxLine:
		a.partial, a.tooLong = a.partial[:0], true
	default:
		a.partial = append(a.partial, b...)
	}
}

// release ends a request: the answer it returned is no longer used. What came after the
// answer is filed as unsolicited, and stdout is looked at once more: output that arrived
// while the request read woke the drainer then, and it may get no other wake-up.
func (a *answers) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.busy || a.closed {
		return
	}
	a.busy = false
	a.partial = a.partial[:0]
	a.tooLong = false
	if len(a.after) > 0 {
		a.dropLines(a.after)
		a.after = a.after[:0]
	}
	if cap(a.partial) > 64<<10 {
		a.partial = nil // one long answer does not stay in memory
	}
	if !a.eof {
		a.unsolicited(a.outFd, 4)
	}
}

func (p *pipeConn) request(ctx context.Context, line []byte, deadline time.Time) ([]byte, string, bool) {
	a := &p.answers
	a.mu.Lock()
	a.busy = true
	if !a.eof && !a.closed {
		a.unsolicited(a.outFd, -1) // written before the request: not its answer
	}
	eof, closed := a.eof, a.closed
	a.mu.Unlock()
	if closed {
		return nil, "it was stopped", false
	}
	if done := ctx.Done(); done != nil {
		switch {
		case a.standing == nil:
			a.standing, a.stopStanding = ctx, context.AfterFunc(ctx, a.kick)
		case ctx != a.standing:
			defer context.AfterFunc(ctx, a.kick)()
		}
	}
	if eof {
		return nil, p.closedText(), false
	}
	if failure, timedOut, ok := p.write(ctx, line, deadline); !ok {
		return nil, failure, timedOut
	}
	return p.read(ctx, deadline)
}

// write writes line to the process's stdin, waiting in poll while the pipe is full.
func (p *pipeConn) write(ctx context.Context, line []byte, deadline time.Time) (failure string, timedOut, ok bool) {
	for len(line) > 0 {
		n, err := syscall.Write(p.inFd, line)
		if n > 0 {
			line = line[n:]
		}
		switch {
		case err == nil || err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			ready, expired, err := p.wait(p.inFd, unix.POLLOUT, deadline)
			switch {
			case err != nil:
				return "cannot wait for the process: " + err.Error(), false, false
			case expired:
				return "", true, false
			case !ready && ctx.Err() != nil:
				return "", false, false
			}
			continue
		}
		// The process stopped reading: it exited or closed its stdin.
		if p.waitDead(100 * time.Millisecond) {
			return p.exitText(), false, false
		}
		return "it stopped reading its stdin", false, false
	}
	return "", false, true
}

// read reads the answer line.
func (p *pipeConn) read(ctx context.Context, deadline time.Time) ([]byte, string, bool) {
	a := &p.answers
	dying := false // the leader is gone: what it wrote before may still be in the pipe
	for {
		if cap(a.partial)-len(a.partial) < 4<<10 {
			a.partial = append(a.partial, make([]byte, 16<<10)...)[:len(a.partial)]
		}
		from := len(a.partial)
		n, err := syscall.Read(a.outFd, a.partial[from:cap(a.partial)])
		switch {
		case n > 0:
			a.partial = a.partial[:from+n]
			got := a.partial[from:]
			if i := bytes.IndexByte(got, '\n'); i >= 0 {
				line := a.partial[:from+i+1]
				a.after = append(a.after[:0], got[i+1:]...)
				if a.tooLong {
					line = []byte(tooLongAnswer)
				}
				return line, "", false
			}
			if len(a.partial) > maxLine {
				return []byte(tooLongAnswer), "", false
			}
			continue
		case err == syscall.EINTR:
			continue
		case err != syscall.EAGAIN: // EOF, or an error: an unfinished line is no answer
			a.mu.Lock()
			a.eof = true
			a.mu.Unlock()
			return nil, p.closedText(), false
		}
		ready, expired, err := p.wait(a.outFd, unix.POLLIN, deadline)
		switch {
		case err != nil:
			return nil, "cannot wait for the process: " + err.Error(), false
		case expired && dying:
			return nil, p.exitText(), false
		case expired:
			return nil, "", true
		case ready:
			continue
		case ctx.Err() != nil:
			return nil, "", false
		}
		select {
		case <-p.dead:
			// An answer written just before the exit may still be in the pipe: read on
			// until stdout ends (briefly: something the leader started may hold it).
			if !dying {
				dying, deadline = true, time.Now().Add(100*time.Millisecond)
			}
		default:
		}
	}
}

// closedText says why stdout ended without an answer.
func (p *pipeConn) closedText() string {
	// Most often the process is exiting: say how it ended if it does so promptly.
	if p.waitDead(100 * time.Millisecond) {
		return p.exitText()
	}
	return "it closed its stdout without answering" + p.stderrText()
}

// wait blocks the calling thread in poll(2) until fd is ready for events, the wake pipe is
// written (ready false; the wake is consumed) or deadline passes (expired).
func (p *pipeConn) wait(fd int, events int16, deadline time.Time) (ready, expired bool, err error) {
	fds := [2]unix.PollFd{{Fd: int32(fd), Events: events}, {Fd: int32(p.wake[0]), Events: unix.POLLIN}}
	for {
		timeout := -1
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return false, true, nil
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		fds[0].Revents, fds[1].Revents = 0, 0
		n, err := unix.Poll(fds[:], timeout)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return false, false, err
		}
		if n == 0 {
			continue // the deadline is checked above, with the clock, not poll's rounding
		}
		if fds[1].Revents != 0 {
			var b [16]byte
			for {
				if n, _ := syscall.Read(p.wake[0], b[:]); n < len(b) {
					break
				}
			}
			return false, false, nil
		}
		// Hang-up or an error counts as ready: the read or write that follows says which.
		return true, false, nil
	}
}
