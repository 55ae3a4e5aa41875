package run

import (
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// group is the job object a child is put in, so that a timeout or a cancellation reaches
// every process the hook started. Windows has no SIGTERM: terminating the job kills all of
// them at once. A process the child starts before it joins the job (a window of one
// system call after CreateProcess) is outside it.
type group struct {
	cmd *exec.Cmd
	job windows.Handle // 0 when no job could be made: only the child is killed then
	at  atomic.Int64   // when terminate ran (UnixNano); 0 if it did not
}

func newGroup(cmd *exec.Cmd) *group {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		job = 0
	}
	return &group{cmd: cmd, job: job}
}

// started puts the child in the job. The job is not KILL_ON_JOB_CLOSE: a hook that exits on
// its own may leave a daemon behind, as on Unix.
func (g *group) started() {
	if g.job == 0 {
		return
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(g.cmd.Process.Pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	if windows.AssignProcessToJobObject(g.job, h) != nil {
		windows.CloseHandle(g.job)
		g.job = 0
	}
}

// terminate is the Cmd's Cancel.
func (g *group) terminate() error {
	g.at.Store(time.Now().UnixNano())
	if g.job != 0 {
		return windows.TerminateJobObject(g.job, 1)
	}
	return g.cmd.Process.Kill()
}

func (g *group) terminated() (time.Time, bool) {
	ns := g.at.Load()
	return time.Unix(0, ns), ns != 0
}

// reap has nothing left to do: terminating the job ended every process in it.
func (g *group) reap(time.Time) {}

func (g *group) release() {
	if g.job != 0 {
		windows.CloseHandle(g.job)
	}
}

func exitSignal(*os.ProcessState) string { return "" }
