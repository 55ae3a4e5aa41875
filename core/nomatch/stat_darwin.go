package nomatch

import (
	"io/fs"
	"syscall"
)

// fileID is what the client compares against its own stat(2): device, inode and change time.
func fileID(fi fs.FileInfo) (dev, ino uint64, ctimeNs int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), st.Ino, st.Ctimespec.Nano(), true
}
