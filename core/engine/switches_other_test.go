//go:build !unix

package engine

import (
	"testing"
	"time"
)

// switches: Windows has no getrusage, so the benchmarks there report time only.
func switches(*testing.B) func() { return func() {} }

func processCPU() time.Duration { return 0 }
