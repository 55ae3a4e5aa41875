//go:build unix

package persist

import "syscall"

// groupAttr starts the process as the leader of its own group, so that a kill reaches
// everything it started.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func signalGroup(pid int, sig syscall.Signal) { syscall.Kill(-pid, sig) }
