package daemon

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// handOver executes exe as the daemon in this process (execve: same pid), handing it,
// as descriptors it inherits, the lock lk still held, the http transport's listening
// socket still listening, and the sessions in a memory file: the port is never free, so
// no other user can take it while a session may post to it, and the sessions' http calls
// keep their environment. Calls that arrive meanwhile wait in the socket's queue for the
// new build. It returns only when the execution fails, having closed again to the hooks
// every descriptor it opened to the successor: Run then goes on serving with this build.
func (d *daemon) handOver(exe string, lk *os.File) (err error) {
	saved, err := d.saveSessions()
	if err != nil {
		return err
	}
	mem, err := unix.MemfdCreate("hookexec-sessions", 0) // no MFD_CLOEXEC: the new build reads it
	if err != nil {
		return fmt.Errorf("hookexec: handing over the sessions: %w", err)
	}
	defer unix.Close(mem) // reached only when the execution failed
	if _, err := unix.Pwrite(mem, saved, 0); err != nil {
		return fmt.Errorf("hookexec: handing over the sessions: %w", err)
	}
	httpFD, err := inheritable(d.httpLn)
	if err != nil {
		return err
	}
	lockFD := int(lk.Fd())
	// Once the execution failed, the hooks this daemon runs must not inherit them.
	defer syscall.CloseOnExec(httpFD)
	defer syscall.CloseOnExec(lockFD)
	if err := keepOnExec(lockFD); err != nil {
		return err
	}
	env := []string{EnvDir + "=" + d.o.Dir, EnvIdle + "=" + d.o.Idle.String(),
		EnvInherit + "=" + fmt.Sprintf("lock=%d,http=%d,sessions=%d", lockFD, httpFD, mem)}
	if d.o.HTTPDir != "" {
		env = append(env, EnvHTTPDir+"="+d.o.HTTPDir)
	}
	err = syscall.Exec(exe, []string{exe, "daemon"}, env)
	return fmt.Errorf("hookexec: executing the daemon's successor %s: %w", exe, err)
}

// inheritable is the listening socket's descriptor, kept open across execve.
func inheritable(ln *net.TCPListener) (int, error) {
	raw, err := ln.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if err := raw.Control(func(s uintptr) { fd = int(s) }); err != nil {
		return -1, err
	}
	// The runtime's descriptor is non-blocking, as the new build's net.FileListener wants.
	return fd, keepOnExec(fd)
}

func keepOnExec(fd int) error {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
		return fmt.Errorf("hookexec: keeping descriptor %s open for the successor: %w", strconv.Itoa(fd), err)
	}
	return nil
}
