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
	HTTPDir  string
	Replace  bool
	Inherit  string
}

// EnvInherit: no daemon to hand over here.
const EnvInherit = "HOOKEXEC_DAEMON_INHERIT"

// ForceShutdown always reports ErrUnavailable.
func ForceShutdown(string) error { return ErrUnavailable }

// Replace always reports ErrUnavailable.
func Replace(string, string, string) (bool, error) { return false, ErrUnavailable }

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

// LoadHTTP: no HTTP transport without the daemon.
func LoadHTTP(string) (HTTPConfig, error) { return HTTPConfig{}, ErrNoHTTP }

// SetupHTTP reports that the platform has no daemon.
func SetupHTTP(string) (HTTPConfig, error) { return HTTPConfig{}, errPlatform }

// ListenerUID reports that the platform has no daemon.
func ListenerUID(int) (int, error) { return -1, errPlatform }
