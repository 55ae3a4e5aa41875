//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package trust

import (
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock on path (created if needed) until unlock.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil // closing releases the lock
}
