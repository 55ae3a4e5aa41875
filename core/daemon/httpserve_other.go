//go:build unix && !linux

package daemon

import (
	"errors"
	"os"
)

// openHTTP: the HTTP transport needs Linux, where the daemon can tell which user's
// process is at the other end of a TCP connection; elsewhere it is not served.
func (d *daemon) openHTTP(inherited *os.File) {
	if inherited != nil {
		inherited.Close()
	}
	if _, err := LoadHTTP(d.o.HTTPDir); !errors.Is(err, ErrNoHTTP) {
		d.httpErr.Store("the http transport needs Linux (the uid of a TCP peer)")
	}
}

// serveHTTP: nothing to serve elsewhere than Linux (openHTTP).
func (d *daemon) serveHTTP(*round) {}

// ListenerUID: no way to tell elsewhere than Linux.
func ListenerUID(int) (int, error) { return -1, errors.New("hookexec: the http transport needs Linux") }
