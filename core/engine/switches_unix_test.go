//go:build unix

package engine

import (
	"syscall"
	"testing"
	"time"
)

// switches reports, once the returned func runs, the context switches of the whole process
// (all its threads, voluntary and not) per op: the wake-ups a request costs.
func switches(b *testing.B) func() {
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	return func() {
		var after syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		n := (after.Nvcsw - before.Nvcsw) + (after.Nivcsw - before.Nivcsw)
		b.ReportMetric(float64(n)/float64(b.N), "switches/op")
	}
}

// processCPU is the CPU time this process has used (user and system, every goroutine,
// GC included; not its children's).
func processCPU() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
