package persist

import (
	"os/exec"

	"github.com/hookexec/hookexec/core/run"
)

// inBox starts cmd in box's cgroup.
func inBox(cmd *exec.Cmd, box *run.Box) {
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, box.FD()
}
