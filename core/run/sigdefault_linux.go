package run

import (
	"sync"
	"syscall"
	"unsafe"
)

// Children must start with default dispositions for SIGPIPE and SIGXFSZ (a `yes | head` in a
// hook must end, a hook exceeding a file-size limit must die as it would from a terminal).
// execve resets caught signals but keeps ignored ones, and Python hosts ignore both; Go
// cannot reset dispositions in the child (os/exec has no posix_spawnattr_setsigdefault).
//
// So while a child is being started, a signal the host ignores is set to SIG_DFL and put back
// exactly as it was once the last concurrent start is done. That is only safe when the
// kernel cannot raise the signal meanwhile: SIGXFSZ only comes from RLIMIT_FSIZE, so with a
// finite limit it is left alone; SIGPIPE is always caught by the Go runtime in a shared
// library, so it is never ignored here and never touched. The host's handlers are never
// replaced and nothing is installed: with no ignored signal this costs one rt_sigaction per
// signal and start.
var resetSignals = []syscall.Signal{syscall.SIGPIPE, syscall.SIGXFSZ}

const sigIgn = 1 // SIG_IGN

// kernelSigaction is big enough for the kernel's struct sigaction on amd64 and arm64; only
// the first word (the handler) is read or changed, the rest is written back as read.
type kernelSigaction [4]uint64

var sigdefault struct {
	mu    sync.Mutex
	users int
	saved map[syscall.Signal]kernelSigaction
}

func sigaction(sig syscall.Signal, act, old *kernelSigaction) error {
	_, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig),
		uintptr(unsafe.Pointer(act)), uintptr(unsafe.Pointer(old)), 8, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// ignoredSignals lists the signals of resetSignals that the process ignores now and that
// may be reset safely.
func ignoredSignals() []syscall.Signal {
	var out []syscall.Signal
	for _, sig := range resetSignals {
		var old kernelSigaction
		if sigaction(sig, nil, &old) != nil || old[0] != sigIgn {
			continue
		}
		if sig == syscall.SIGXFSZ {
			var lim syscall.Rlimit
			if syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim) != nil || lim.Cur != ^uint64(0) {
				continue // a finite limit could raise it in the host meanwhile
			}
		}
		out = append(out, sig)
	}
	return out
}

// startWithDefaultSignals runs start (which forks the child) with the host's ignored
// SIGPIPE/SIGXFSZ set to SIG_DFL, so the child inherits the default. Deciding, resetting
// and restoring happen under one lock, so no start slips in between a restore and its check.
func startWithDefaultSignals(start func() error) error {
	sigdefault.mu.Lock()
	if sigdefault.users == 0 {
		sigdefault.saved = nil
		for _, sig := range ignoredSignals() {
			var old kernelSigaction
			if sigaction(sig, nil, &old) != nil {
				continue
			}
			dfl := old
			dfl[0] = 0 // SIG_DFL
			if sigaction(sig, &dfl, nil) == nil {
				if sigdefault.saved == nil {
					sigdefault.saved = map[syscall.Signal]kernelSigaction{}
				}
				sigdefault.saved[sig] = old
			}
		}
		if sigdefault.saved == nil {
			sigdefault.mu.Unlock()
			return start() // the common case: nothing ignored, nothing changed
		}
	}
	sigdefault.users++
	sigdefault.mu.Unlock()

	err := start()

	sigdefault.mu.Lock()
	sigdefault.users--
	if sigdefault.users == 0 {
		for sig, old := range sigdefault.saved {
			_ = sigaction(sig, &old, nil)
		}
		sigdefault.saved = nil
	}
	sigdefault.mu.Unlock()
	return err
}
