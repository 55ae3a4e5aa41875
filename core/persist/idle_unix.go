//go:build unix && !linux

package persist

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// idle without epoll: the drainer waits in poll(2) on stdout whatever the state, so an
// answer wakes it too (it then waits for release); a pipe written by interrupt ends it.
type idle struct {
	fd   int
	stop [2]int
}

func (i *idle) open(fd int) error {
	i.fd = fd
	return cloexecPipe(&i.stop)
}

func (i *idle) watch()   {}
func (i *idle) unwatch() {}

func (i *idle) wait() bool {
	fds := [2]unix.PollFd{{Fd: int32(i.fd), Events: unix.POLLIN}, {Fd: int32(i.stop[0]), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds[:], -1)
		if err == syscall.EINTR {
			continue
		}
		return err == nil && fds[1].Revents == 0
	}
}

func (i *idle) interrupt() { syscall.Write(i.stop[1], []byte{1}) }

func (i *idle) close() {
	syscall.Close(i.stop[0])
	syscall.Close(i.stop[1])
}

// cloexecPipe makes a close-on-exec pipe (under ForkLock, as os.Pipe does where there is
// no pipe2, so that no child started meanwhile inherits it).
func cloexecPipe(p *[2]int) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p[:]); err != nil {
		return err
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	return nil
}
