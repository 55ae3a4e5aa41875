//go:build linux || darwin

package main

import (
	"os"
	"syscall"
	"unsafe"
)

// isatty asks the terminal driver, since /dev/null is a character device too.
func isatty(f *os.File) bool {
	var t syscall.Termios
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), ioctlGetTermios, uintptr(unsafe.Pointer(&t)))
	return e == 0
}

// termWidth returns the terminal's columns, or 0.
func termWidth(f *os.File) int {
	var ws struct{ row, col, x, y uint16 }
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws)))
	if e != 0 {
		return 0
	}
	return int(ws.col)
}
