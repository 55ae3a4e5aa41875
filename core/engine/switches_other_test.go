//go:build !unix

package engine

import "testing"

// switches: Windows has no getrusage, so the benchmarks there report time only.
func switches(*testing.B) func() { return func() {} }
