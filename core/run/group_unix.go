//go:build unix

package run

import (
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
)

// group is the process group os/exec starts a child in, so that a timeout or a
// cancellation reaches every process the hook started.
type group struct {
	cmd *exec.Cmd
	at  atomic.Int64 // when terminate sent SIGTERM (UnixNano); 0 if it did not
}

func newGroup(cmd *exec.Cmd) *group {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &group{cmd: cmd}
}

func (g *group) started() {}

// terminate is the Cmd's Cancel: SIGTERM to the whole group.
func (g *group) terminate() error {
	g.at.Store(time.Now().UnixNano())
	err := syscall.Kill(-g.cmd.Process.Pid, syscall.SIGTERM)
	if err == syscall.ESRCH {
		return os.ErrProcessDone
	}
	return err
}

func (g *group) terminated() (time.Time, bool) {
	ns := g.at.Load()
	return time.Unix(0, ns), ns != 0
}

// reap gives members that outlive their leader until deadline to heed SIGTERM, then
// SIGKILLs the group, so that none survives Run. The short sleeps are only ever taken on
// this path.
func (g *group) reap(deadline time.Time) {
	pgid := g.cmd.Process.Pid
	for pause := time.Millisecond; syscall.Kill(-pgid, 0) == nil; pause *= 2 {
		left := time.Until(deadline)
		if left <= 0 {
			syscall.Kill(-pgid, syscall.SIGKILL)
			awaitKilled(pgid)
			return
		}
		time.Sleep(min(pause, left, 50*time.Millisecond))
	}
}

// awaitKilled waits, briefly, until the SIGKILLed members are gone: on a loaded machine a
// member may not have been scheduled to die yet when kill returns. Orphans that died stay
// zombies until their new parent reaps them, so the wait is bounded rather than exact.
func awaitKilled(pgid int) {
	deadline := time.Now().Add(50 * time.Millisecond)
	for syscall.Kill(-pgid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}

func (g *group) release() {}

// exitSignal names the signal that ended the process, or "".
func exitSignal(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return signalName(ws.Signal())
	}
	return ""
}
