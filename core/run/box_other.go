//go:build !linux

package run

// Box is a cgroup for a process started outside Run; there are none off Linux.
type Box struct{}

// NewBox returns nil: off Linux a process group is all the containment there is.
func NewBox() *Box { return nil }

// FD is -1: there is no cgroup.
func (b *Box) FD() int { return -1 }

// Refused does nothing.
func (b *Box) Refused() {}

// Close does nothing.
func (b *Box) Close() {}
