//go:build !linux

package main

// stopAgent: the http transport is served on Linux only (core/daemon), so its session
// check never finds a port to refuse elsewhere; there is nothing to stop.
func stopAgent() int { return 0 }
