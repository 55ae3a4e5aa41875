//go:build !unix

package daemon

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/hookexec/hookexec/core/dispatch"
)

// Without Unix sockets and flock there is no daemon: every dispatch runs in-process.
var errPlatform = errors.New("hookexec: the daemon needs a Unix system; dispatching in-process")

// Options configure Run.
type Options struct {
	Dir      string
	Idle     time.Duration
	Identity string
}

// Run reports that the platform has no daemon.
func Run(Options) error { return errPlatform }

// Dispatch always reports ErrUnavailable.
func Dispatch(string, string, dispatch.Request, time.Time) (dispatch.Reply, error) {
	return dispatch.Reply{}, ErrUnavailable
}

// Ask always reports ErrUnavailable.
func Ask(string, string) (json.RawMessage, error) { return nil, ErrUnavailable }

// Start reports that the platform has no daemon.
func Start(string) error { return errPlatform }

// PrivateDir reports that the platform has no daemon (and no no-match index).
func PrivateDir(string) error { return errPlatform }
