//go:build unix && !linux

package daemon

import "net"

// peerAllowed: without SO_PEERCRED the runtime directory's 0700 mode is what keeps other
// users out (PrivateDir checks it).
func peerAllowed(net.Conn, int) bool { return true }
