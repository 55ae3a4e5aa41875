//go:build unix

package rego_test

import (
	"syscall"
	"time"
)

// processCPU is the process's user and system CPU time: BenchmarkRego reports it per op
// beside the wall time, which a loaded machine inflates.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
