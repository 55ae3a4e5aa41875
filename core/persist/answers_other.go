//go:build !unix

package persist

import (
	"bufio"
	"context"
	"os"
	"sync"
	"time"
)

// answers, where poll(2) is not there: a goroutine reads stdout line by line and hands each
// line to the waiting request (or drops it when none waits).
type answers struct {
	mu   sync.Mutex
	want chan []byte // the waiting request's answer slot; nil between requests (under mu)
	out  chan struct{}
}

// pipe is os.Pipe.
func pipe(int) (r, w *os.File, err error) { return os.Pipe() }

func (a *answers) start(_ *os.File, stdout *os.File) error {
	a.out = make(chan struct{})
	go a.readAnswers(stdout)
	return nil
}

func (a *answers) kick() {}

func (a *answers) stop() {}

// release ends a request; the answer it returned is no longer used.
func (a *answers) release() {}

// readAnswers reads stdout line by line until EOF; it never stops reading before, so the
// process never blocks on a full pipe.
func (a *answers) readAnswers(f *os.File) {
	defer close(a.out)
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
		a.mu.Lock()
		if a.want != nil {
			a.want <- append([]byte(nil), line...)
			a.want = nil
		}
		a.mu.Unlock()
	}
}

func (p *pipeConn) request(ctx context.Context, line []byte, deadline time.Time) ([]byte, string, bool) {
	slot := make(chan []byte, 1)
	p.answers.mu.Lock()
	p.want = slot
	p.answers.mu.Unlock()
	defer func() {
		p.answers.mu.Lock()
		p.want = nil
		p.answers.mu.Unlock()
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
