package persist

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/hookexec/hookexec/core/run"
)

// pipeConn talks to the process through os.File pipes: a goroutine reads stdout line by
// line and hands each line to the waiting request (or drops it when none waits), another
// drains stderr. It is the implementation where rawConn is not available.
type pipeConn struct {
	watch
	box   *run.Box // the process's cgroup; nil without one
	stdin *os.File
	want  chan []byte // the waiting request's answer slot; nil between requests (under mu)
	out   chan struct{}
}

func startPipes(s *Spec) (conn, error) {
	if _, err := command(s); err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	// The process and all it starts live in a cgroup of their own where runs get one, so
	// that what leaves its process group (setsid, double forks) still ends with it.
	box := run.NewBox()
	start := func() (*exec.Cmd, error) {
		cmd, err := command(s)
		if err != nil {
			return nil, err
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
		if box != nil {
			inBox(cmd, box)
		}
		return cmd, cmd.Start()
	}
	cmd, err := start()
	if err != nil && box != nil {
		// The kernel may refuse the cgroup (no clone3, a policy); only if the plain start
		// then works was the cgroup to blame.
		failed := box
		box = nil
		if cmd, err = start(); err == nil {
			failed.Refused()
		} else {
			failed.Close()
		}
	}
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, startErr(s, err)
	}
	p := &pipeConn{watch: newWatch(cmd.Process.Pid), stdin: inW, out: make(chan struct{}), box: box}
	go p.readAnswers(outR)
	go p.drainStderr(errR)
	p.reap(cmd, nil)
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// readAnswers reads stdout line by line until EOF; it never stops reading before, so the
// process never blocks on a full pipe.
func (p *pipeConn) readAnswers(f *os.File) {
	defer close(p.out)
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var long []byte // a line longer than the buffer, being assembled
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(long)+len(chunk) > maxLine {
				tooLong, long = true, nil
			} else if !tooLong {
				long = append(long, chunk...)
			}
			continue
		}
		if err != nil {
			return // EOF or a read error: an unfinished line is no answer
		}
		line := chunk
		if long != nil || tooLong {
			if tooLong || len(long)+len(chunk) > maxLine {
				line = []byte(tooLongAnswer)
			} else {
				line = append(long, chunk...)
			}
			long, tooLong = nil, false
		}
		p.mu.Lock()
		if p.want != nil {
			p.want <- append([]byte(nil), line...)
			p.want = nil
		}
		p.mu.Unlock()
	}
}

func (p *pipeConn) drainStderr(f *os.File) {
	defer close(p.errs)
	defer f.Close()
	buf := make([]byte, 4<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			p.keep(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (p *pipeConn) request(ctx context.Context, line []byte, deadline time.Time) ([]byte, string, bool) {
	slot := make(chan []byte, 1)
	p.mu.Lock()
	p.want = slot
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.want = nil
		p.mu.Unlock()
	}()
	var expired <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
		p.stdin.SetWriteDeadline(deadline)
	}
	if _, err := p.stdin.Write(line); err != nil {
		if os.IsTimeout(err) {
			return nil, "", true
		}
		// The process stopped reading: it exited or closed its stdin.
		if p.waitDead(100 * time.Millisecond) {
			return nil, p.exitText(), false
		}
		return nil, "it stopped reading its stdin", false
	}
	select {
	case a := <-slot:
		return a, "", false
	case <-p.out:
		if a := take(slot); a != nil {
			return a, "", false
		}
		// Most often the process is exiting: say how it ended if it does so promptly.
		if p.waitDead(100 * time.Millisecond) {
			return nil, p.exitText(), false
		}
		return nil, "it closed its stdout without answering" + p.stderrText(), false
	case <-p.dead:
		// An answer written just before the exit may still be in the pipe: wait for
		// stdout's end (briefly: something the leader started may hold it) and look.
		select {
		case <-p.out:
		case <-time.After(100 * time.Millisecond):
		}
		if a := take(slot); a != nil {
			return a, "", false
		}
		return nil, p.exitText(), false
	case <-expired:
		return nil, "", true
	case <-ctx.Done():
		return nil, "", false
	}
}

func take(slot chan []byte) []byte {
	select {
	case a := <-slot:
		return a
	default:
		return nil
	}
}

func (p *pipeConn) terminate(grace time.Duration) {
	p.stdin.Close()
	signalGroup(p.pid, syscall.SIGTERM)
	p.waitDead(grace)
	p.retire(grace)
}

func (p *pipeConn) retire(grace time.Duration) {
	p.stdin.Close()
	signalGroup(p.pid, syscall.SIGKILL)
	if p.box != nil {
		p.box.Close() // what left the group: setsid, double forks
	}
	// Only a process stuck in the kernel outlives SIGKILL this long; its reaper goroutine
	// still reaps it when it goes.
	p.waitDead(grace + time.Second)
}

func (p *pipeConn) close(wait, grace time.Duration) {
	p.stdin.Close()
	if p.waitDead(wait) {
		p.retire(grace) // the leader went; members it left behind go too
		return
	}
	p.terminate(grace)
}
