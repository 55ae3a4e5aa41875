//go:build unix && !linux

package daemon

import "net"

// peerAllowed: without SO_PEERCRED the runtime directory's 0700 mode is what keeps other
// users out (PrivateDir checks it).
func peerAllowed(net.Conn, int) bool { return true }

// peerPID: no SO_PEERCRED here.
func peerPID(net.Conn) int { return 0 }

// agentOf: the agent process cannot be told here (SessionKeep applies).
func agentOf(int) procID { return procID{} }

// alive: never asked (agentOf tells no process).
func alive(procID) bool { return true }
