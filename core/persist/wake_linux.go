package persist

import "syscall"

// wakePipe makes a non-blocking, close-on-exec pipe.
func wakePipe(p *[2]int) error {
	return syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK)
}
