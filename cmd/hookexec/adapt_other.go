//go:build !linux

package main

// superviseAdapt: off Linux there is no parent-death signal; adapt does the work itself,
// and the command outlives an adapt killed by SIGKILL until its own timeout.
func superviseAdapt(*app) (int, bool) { return 0, false }
