//go:build unix

package dispatch

import (
	"fmt"
	"os"
	"syscall"
)

// fileID names the file itself (device and inode), so a file replaced by rename is seen
// even when its size and time match.
func fileID(st os.FileInfo) string {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", s.Dev, s.Ino)
	}
	return ""
}
