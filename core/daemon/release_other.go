//go:build unix && !linux

package daemon

// releaseBinaryPages: only Linux's smaps tells which pages of the executable are its own;
// elsewhere the daemon keeps them.
func releaseBinaryPages() {}
