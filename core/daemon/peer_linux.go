package daemon

import (
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// peerAllowed reports whether the process at the other end of c runs as uid, as the kernel
// recorded it when that process connected (SO_PEERCRED). Anything it cannot read is refused.
func peerAllowed(c net.Conn, uid int) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return false
	}
	return int(cred.Uid) == uid
}

// peerPID is the pid of the process at the other end of c (SO_PEERCRED; 0: unknown).
func peerPID(c net.Conn) int {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	_ = raw.Control(func(fd uintptr) {
		if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}

// agentOf is the agent process behind a dispatcher whose pid is pid: its nearest ancestor
// that is neither a shell (agents run a hook's command through one) nor hookexec itself
// (the C client hands calls to the Go binary), with its start time. The zero procID when
// it cannot be told.
func agentOf(pid int) procID {
	if pid <= 0 {
		return procID{}
	}
	_, ppid, _, ok := procStat(pid)
	for i := 0; ok && i < 6 && ppid > 1; i++ {
		comm, next, start, found := procStat(ppid)
		if !found {
			return procID{}
		}
		switch comm {
		case "sh", "bash", "dash", "zsh", "ash", "busybox", "hookexec", "hookexec-hook":
			ppid = next
			continue
		}
		return procID{PID: ppid, Start: start}
	}
	return procID{}
}

// alive reports whether the process p still runs (the same pid and start time).
func alive(p procID) bool {
	_, _, start, ok := procStat(p.PID)
	return ok && start == p.Start
}

// procStat reads a process's command name, parent and start time (clock ticks since boot)
// from /proc/PID/stat.
func procStat(pid int) (string, int, uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, 0, false
	}
	s := string(b)
	open, shut := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || shut < open {
		return "", 0, 0, false
	}
	// After the name: state (3), ppid (4), … starttime (22).
	f := strings.Fields(s[shut+1:])
	if len(f) < 20 {
		return "", 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	return s[open+1 : shut], ppid, start, err1 == nil && err2 == nil
}
