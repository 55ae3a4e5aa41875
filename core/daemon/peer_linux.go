package daemon

import (
	"net"
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
