package dispatch

import (
	"os"
	"syscall"
)

func sysStat(st os.FileInfo, s *fileStat) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(sys.Dev), sys.Ino
		s.ctime, s.hasCtime = sys.Ctim.Nano(), true
	}
}
