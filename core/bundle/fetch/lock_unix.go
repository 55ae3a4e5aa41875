//go:build unix

package fetch

import (
	"os"
	"syscall"
)

// lock takes the cache's lock file, so that the daemon and a `hookexec status --fetch` do
// not install at once; it waits for the other.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
