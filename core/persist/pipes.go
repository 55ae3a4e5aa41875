package persist

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/hookexec/hookexec/core/run"
)

// pipeConn talks to the process through pipes. How a request reads its answer is per
// platform (answers_unix.go, answers_other.go); starting, stderr and ending are here.
type pipeConn struct {
	watch
	answers
	box   *run.Box // the process's cgroup; nil without one
	stdin *os.File
}

func startPipes(s *Spec) (conn, error) {
	if _, err := command(s); err != nil {
		return nil, err
	}
	inR, inW, err := pipe(1)
	if err != nil {
		return nil, err
	}
	outR, outW, err := pipe(0)
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
	p := &pipeConn{watch: newWatch(cmd.Process.Pid), stdin: inW, box: box}
	if err := p.answers.start(inW, outR); err != nil {
		closeAll(inW, outR, errR)
		signalGroup(p.pid, syscall.SIGKILL)
		if box != nil {
			box.Close()
		}
		go cmd.Wait()
		return nil, err
	}
	go p.drainStderr(errR)
	p.reap(cmd, p.answers.kick)
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
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
	p.answers.stop()
}

func (p *pipeConn) close(wait, grace time.Duration) {
	p.stdin.Close()
	if p.waitDead(wait) {
		p.retire(grace) // the leader went; members it left behind go too
		return
	}
	p.terminate(grace)
}
