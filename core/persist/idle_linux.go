package persist

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// idle is the drainer's own epoll set: stdout is in it only between requests (a request
// takes it out before it writes and puts it back at release, two epoll_ctl calls), so an
// answer wakes no thread but the one waiting for it. A pipe written by interrupt ends the
// wait for good.
type idle struct {
	ep, fd int
	stop   [2]int
}

func (i *idle) open(fd int) error {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	if err := cloexecPipe(&i.stop); err != nil {
		syscall.Close(ep)
		return err
	}
	i.ep, i.fd = ep, fd
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i.stop[0])}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, i.stop[0], &ev); err != nil {
		i.close()
		return err
	}
	i.watch()
	return nil
}

// watch puts stdout in the set (level-triggered: output already there wakes the drainer).
func (i *idle) watch() {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i.fd)}
	unix.EpollCtl(i.ep, unix.EPOLL_CTL_ADD, i.fd, &ev)
}

// unwatch takes stdout out of the set.
func (i *idle) unwatch() { unix.EpollCtl(i.ep, unix.EPOLL_CTL_DEL, i.fd, nil) }

// wait blocks until stdout may have output or interrupt; false once interrupted.
func (i *idle) wait() bool {
	var evs [2]unix.EpollEvent
	for {
		n, err := unix.EpollWait(i.ep, evs[:], -1)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false
		}
		for _, ev := range evs[:n] {
			if ev.Fd == int32(i.stop[0]) {
				return false
			}
		}
		return true
	}
}

func (i *idle) interrupt() { syscall.Write(i.stop[1], []byte{1}) }

func (i *idle) close() {
	syscall.Close(i.ep)
	syscall.Close(i.stop[0])
	syscall.Close(i.stop[1])
}

// cloexecPipe makes a close-on-exec pipe.
func cloexecPipe(p *[2]int) error { return syscall.Pipe2(p[:], syscall.O_CLOEXEC) }
