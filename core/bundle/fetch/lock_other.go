//go:build !unix

package fetch

// lock: without flock, checks of one process are serialised by the caller only (the
// daemon, which runs one poller per configuration, is Unix-only).
func lock(string) (func(), error) { return func() {}, nil }
