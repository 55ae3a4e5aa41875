//go:build unix && !linux

package daemon

import (
	"errors"
	"os"
)

// handOver: the http transport is served on Linux only, so no daemon elsewhere holds a
// listening socket to hand on.
func (d *daemon) handOver(string, *os.File) error {
	return errors.New("hookexec: a daemon hands itself over on Linux only")
}
