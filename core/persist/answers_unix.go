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
// waiting in poll(2); between requests a goroutine drains stdout and drops what the process
// writes, so that it never blocks on a full pipe.
//
// Why: the answer used to come through a reader goroutine and a channel, and every fire
// paid for that goroutine's wake-up and for the hand-off of the answer to the waiting one;
// through the C library the fire runs on the host's thread, where each such hand-off also
// moves Go's scheduler from one OS thread to another. The pipes are kept out of Go's poller
// too (its epoll would wake a thread at every answer and every read of a request); the
// drainer waits in an epoll set of its own that holds stdout only between requests (see
// idle_linux.go). What is left is the wake-ups of the pipe round trip itself, and no timer:
// the deadline is poll's timeout.
//
// The drainer and a request never read at once: while busy is set the drainer leaves stdout
// alone. A wake pipe interrupts a request's poll when the leader dies or the request's
// context ends.
type answers struct {
	inFd, outFd int    // stdin's write end and stdout's read end, non-blocking
	wake        [2]int // the wake pipe; written by kick
	idle               // how the drainer waits for output between requests
	drained     chan struct{}

	mu      sync.Mutex // guards what follows, and reads of outFd outside a request
	free    sync.Cond  // busy went false, or closed true
	busy    bool       // a request reads stdout
	closed  bool       // stop ran: no fd is used any more
	eof     bool       // stdout ended (or failed)
	partial []byte     // a line not yet ended by '\n': the answer being read, or unsolicited
	tooLong bool       // the line in partial passed maxLine; its bytes are not kept
	after   []byte     // what came after the answer line in its read, filed at release
	buf     []byte     // read buffer for unsolicited output

	standing     context.Context // the context whose end already kicks (the engine's)
	stopStanding func() bool
}

// pipe makes a pipe whose end ours (0: read, 1: write) is hookexec's: non-blocking and left
// out of Go's poller (requests and the drainer wait in poll and epoll themselves); the
// process's end is an ordinary blocking one.
func pipe(ours int) (r, w *os.File, err error) {
	var p [2]int
	if err := cloexecPipe(&p); err != nil {
		return nil, nil, err
	}
	// Made non-blocking after os.NewFile, which would put a non-blocking one in the poller.
	r, w = os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1")
	if err := syscall.SetNonblock(p[ours], true); err != nil {
		closeAll(r, w)
		return nil, nil, err
	}
	return r, w, nil
}

func (a *answers) start(stdin, stdout *os.File) error {
	a.inFd = int(stdin.Fd())
	// stdout's descriptor is ours from here on: stop closes it, after the drainer left.
	fd, err := syscall.Dup(int(stdout.Fd()))
	stdout.Close()
	if err != nil {
		return err
	}
	syscall.CloseOnExec(fd)
	a.outFd = fd
	if err = cloexecPipe(&a.wake); err == nil {
		if err = syscall.SetNonblock(a.wake[0], true); err == nil {
			err = syscall.SetNonblock(a.wake[1], true)
		}
	}
	if err != nil {
		syscall.Close(a.outFd)
		return err
	}
	if err := a.idle.open(a.outFd); err != nil {
		syscall.Close(a.outFd)
		syscall.Close(a.wake[0])
		syscall.Close(a.wake[1])
		return err
	}
	a.free.L = &a.mu
	a.buf = make([]byte, 16<<10)
	a.drained = make(chan struct{})
	go a.drain()
	return nil
}

// kick wakes a request waiting in poll: the leader died, or the request's context ended.
func (a *answers) kick() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed {
		syscall.Write(a.wake[1], []byte{1}) // a full pipe is a pending wake already
	}
}

// stop ends the drainer and closes stdout and the wake pipe. Only after the last request.
func (a *answers) stop() {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	a.closed = true
	a.free.Broadcast()
	a.idle.interrupt()
	a.mu.Unlock()
	if a.stopStanding != nil {
		a.stopStanding()
	}
	<-a.drained
	a.idle.close()
	syscall.Close(a.outFd)
	syscall.Close(a.wake[0])
	syscall.Close(a.wake[1])
}

// drain reads stdout between requests until it ends or stop, dropping whole lines.
func (a *answers) drain() {
	defer close(a.drained)
	for a.idle.wait() {
		a.mu.Lock()
		for a.busy && !a.closed {
			a.free.Wait() // a request reads: this output is its answer
		}
		ended := a.closed || a.eof || a.unsolicited(a.outFd, 1)
		a.mu.Unlock()
		if ended {
			return
		}
	}
}

// unsolicited reads what stdout holds, outside any request, dropping whole lines; at most
// reads times (-1: until it would block). It reports whether stdout ended. a.mu is held.
func (a *answers) unsolicited(fd, reads int) bool {
	for ; reads != 0; reads-- {
		n, err := syscall.Read(fd, a.buf)
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

// dropLines files output nobody asked for: whole lines go, an unfinished one is kept (it
// becomes the start of the next answer line, which is then no JSON object).
func (a *answers) dropLines(b []byte) {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		a.partial, a.tooLong = a.partial[:0], false
		b = b[i+1:]
	}
	switch {
	case a.tooLong:
	case len(a.partial)+len(b) > maxLine:
		a.partial, a.tooLong = a.partial[:0], true
	default:
		a.partial = append(a.partial, b...)
	}
}

// release ends a request: the answer it returned is no longer used. What came after the
// answer is filed as unsolicited, and the drainer watches stdout again.
func (a *answers) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.busy || a.closed {
		return
	}
	a.busy = false
	a.partial, a.tooLong = a.partial[:0], false
	if cap(a.partial) > 64<<10 {
		a.partial = nil // one long answer does not stay in memory
	}
	if len(a.after) > 0 {
		a.dropLines(a.after)
		a.after = a.after[:0]
	}
	if cap(a.after) > 64<<10 {
		a.after = nil
	}
	if !a.eof {
		a.idle.watch()
	}
	a.free.Broadcast()
}

func (p *pipeConn) request(ctx context.Context, line []byte, deadline time.Time) ([]byte, string, bool) {
	a := &p.answers
	a.mu.Lock()
	a.busy = true
	if !a.eof && !a.closed {
		a.idle.unwatch()
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
	// The answer cannot be there yet when the request was just written: wait first, and
	// save the read that would find nothing.
	for waited := false; ; waited = false {
		ready, expired, err := p.wait(a.outFd, unix.POLLIN, deadline)
		switch {
		case err != nil:
			return nil, "cannot wait for the process: " + err.Error(), false
		case expired && dying:
			return nil, p.exitText(), false
		case expired:
			return nil, "", true
		case ready:
			waited = true
		case ctx.Err() != nil:
			return nil, "", false
		}
		if !waited {
			select {
			case <-p.dead:
				// An answer written just before the exit may still be in the pipe: read
				// on until stdout ends (briefly: something the leader started may hold it).
				if !dying {
					dying, deadline = true, time.Now().Add(100*time.Millisecond)
				}
			default:
			}
			continue
		}
		if line, failure, done := p.readSome(); done {
			return line, failure, false
		}
	}
}

// readSome reads what stdout holds, up to the answer's newline. done reports the answer
// (line) or why there is none (failure); not done, the request waits for more.
func (p *pipeConn) readSome() (line []byte, failure string, done bool) {
	a := &p.answers
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
				return line, "", true
			}
			if len(a.partial) > maxLine {
				return []byte(tooLongAnswer), "", true
			}
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			return nil, "", false
		default: // EOF, or an error: an unfinished line is no answer
			a.mu.Lock()
			a.eof = true
			a.mu.Unlock()
			return nil, p.closedText(), true
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
