//go:build windows

package audit

import (
	"os"

	"golang.org/x/sys/windows"
)

// lock takes the exclusive lock on the first byte of f (LockFileEx), waiting for it.
func lock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

func unlock(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
