//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package trust

import "sync"

var storeMu sync.Mutex

// Without flock the lock is the process's own: two processes approving in the same
// instant may each keep only their own change (the file itself is never torn).
func lock(string) (func(), error) {
	storeMu.Lock()
	return storeMu.Unlock, nil
}
