//go:build !unix

package persist

import (
	"os"
	"syscall"
)

// Without process groups only the process itself can be killed.
func groupAttr() *syscall.SysProcAttr { return nil }

func signalGroup(pid int, sig syscall.Signal) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
