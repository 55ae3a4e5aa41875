//go:build linux || darwin

package trust

import (
	"io/fs"
	"syscall"
	"time"
)

var syscallENOTDIR = syscall.ENOTDIR

// statID is what changes when a file's content can have changed.
type statID struct {
	dev, ino, size   uint64
	mtimeNs, ctimeNs int64
}

func (s statID) ctime() time.Time { return time.Unix(0, s.ctimeNs) }

func identity(fi fs.FileInfo) (statID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statID{}, false
	}
	m, c := statTimes(st)
	return statID{dev: uint64(st.Dev), ino: st.Ino, size: uint64(st.Size), mtimeNs: m, ctimeNs: c}, true
}
