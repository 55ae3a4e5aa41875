//go:build unix && !linux

package persist

import "syscall"

// wakePipe makes a non-blocking, close-on-exec pipe (under ForkLock, as os.Pipe does where
// there is no pipe2, so that no child inherits it).
func wakePipe(p *[2]int) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p[:]); err != nil {
		return err
	}
	for _, fd := range p {
		syscall.CloseOnExec(fd)
		if err := syscall.SetNonblock(fd, true); err != nil {
			syscall.Close(p[0])
			syscall.Close(p[1])
			return err
		}
	}
	return nil
}
