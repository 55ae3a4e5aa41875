//go:build !unix

package rego_test

import "time"

// processCPU is unknown here: BenchmarkRego reports no cpu-ns/op.
func processCPU() time.Duration { return 0 }
