//go:build unix

package audit

import (
	"os"
	"syscall"
)

// lock takes the exclusive advisory lock on f (flock), waiting for it. flock locks belong
// to the open file, so two opens in one process exclude each other as two processes do.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
