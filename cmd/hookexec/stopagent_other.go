//go:build !linux

package main

import "errors"

// stopAgent: the http transport is served on Linux only (install --transport http refuses
// elsewhere), so its session check has no agent to stop here; it says so rather than
// pretending.
func stopAgent(string) (int, error) {
	return 0, errors.New("stopping the agent is implemented on Linux only")
}

// stoppedNote is Linux's; nothing is ever stopped here.
func stoppedNote(int) string { return "" }
