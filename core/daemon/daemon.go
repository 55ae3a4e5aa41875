// Package daemon keeps hookexec's dispatcher warm between an agent's hook calls: one
// process per user, listening on a Unix socket in a private runtime directory (0700,
// owned by the user; on Linux each peer's uid is checked with SO_PEERCRED), speaking
// core/serve's JSON-RPC with three added methods (dispatch, status, shutdown). It holds
// one core/dispatch Dispatcher, so persistent hooks stay up across tool calls, engines
// reload when their files change, and PreToolUse rewrites are remembered per session.
// It polls the policy bundle of every bundle.json its dispatches read (core/bundle/fetch),
// and the engines reload when the cache's active bundle changes.
//
// The client side (Dispatch, Start) never makes a hook call fail: any error means "run it
// in-process". The first dispatch that finds no daemon starts one in the background; a
// daemon whose Identity differs from the caller's (another version or build) answers
// ErrVersion and exits, and the caller starts its own. The daemon exits after Idle without
// requests.
//
// It does not decide anything about hooks and writes nothing to stdout or stderr.
package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/version"
)

// Environment variables the daemon and its clients read.
const (
	EnvDir  = "HOOKEXEC_RUNTIME_DIR" // the runtime directory; default below (RuntimeDir)
	EnvIdle = "HOOKEXEC_DAEMON_IDLE" // idle time before exit, a Go duration ("10m")
	EnvMode = "HOOKEXEC_DAEMON"      // "off": dispatch in-process, never start a daemon
)

// DefaultIdle is how long a daemon without requests stays up.
const DefaultIdle = 10 * time.Minute

// Names in the runtime directory.
const (
	SocketName = "daemon.sock"
	LockName   = "daemon.lock"
)

// CodeVersion is the JSON-RPC error a daemon of another identity answers a dispatch with.
const CodeVersion = -32010

// Errors of the client side.
var (
	ErrUnavailable = errors.New("hookexec: no daemon")                     // none listening, or it failed
	ErrVersion     = errors.New("hookexec: the daemon is another version") // it exits; start a new one
	ErrRunning     = errors.New("hookexec: a daemon is already running")   // Run found the lock taken
	// ErrDropped: the daemon read the request but no answer came (it died, or the
	// connection dropped while the hooks ran). The hooks may have run: never run it again.
	ErrDropped = errors.New("hookexec: the daemon dropped the call")
)

// AnswerMargin is how long before the agent's timeout for the dispatcher entry a client
// stops waiting for the daemon's answer, keeping the time to give the agent the dropped
// call's fail-closed answer before the agent kills the dispatcher (and, for several agents,
// lets the tool run). capi/hook/hookexec-hook.c has the same rule.
const AnswerMargin = 2 * time.Second

// AnswerWait is how long a client waits for the daemon's answer when the agent kills the
// dispatcher after timeout (install's --timeout-ms): timeout less AnswerMargin, or half the
// timeout when that is shorter. 0 (timeout unknown) means no bound.
func AnswerWait(timeout time.Duration) time.Duration {
	if timeout <= 0 {
		return 0
	}
	return max(timeout-AnswerMargin, timeout/2)
}

// Off reports whether the environment turns the daemon off.
func Off() bool { return os.Getenv(EnvMode) == "off" }

// Idle is the idle time from the environment, else DefaultIdle.
func Idle() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(EnvIdle)); err == nil && d > 0 {
		return d
	}
	return DefaultIdle
}

// RuntimeDir is $HOOKEXEC_RUNTIME_DIR, else $XDG_RUNTIME_DIR/hookexec, else
// <tmp>/hookexec-<uid>.
func RuntimeDir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "hookexec")
	}
	return filepath.Join(os.TempDir(), "hookexec-"+strconv.Itoa(os.Getuid()))
}

// Identity names this build: its version and its executable's size and time, so that a
// reinstalled or rebuilt binary replaces a daemon started by the old one.
func Identity() string {
	id := version.Version
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			id += fmt.Sprintf("+%d.%d", st.Size(), st.ModTime().UnixNano())
		}
	}
	return id
}

// dispatchParams are the params of the dispatch method.
type dispatchParams struct {
	Identity string `json:"identity"`
	// Exe is the caller's executable: a daemon of another identity that serves the http
	// transport executes it in its own place (Options.Replace). The C client sends none.
	Exe     string           `json:"exe,omitempty"`
	Request dispatch.Request `json:"request"`
}

// Status is the answer of the status method.
type Status struct {
	Version  string `json:"version"`
	Identity string `json:"identity"`
	PID      int    `json:"pid"`
	Engines  int    `json:"engines"`
	Requests int64  `json:"requests"`
	// Bundles are the bundle.json files whose policy bundle the daemon polls.
	Bundles []string `json:"bundles"`
	// HTTPPort is the port the HTTP transport listens on (0: none), HTTPError why it does
	// not when it should, Sessions the sessions registered for it.
	HTTPPort  int    `json:"http_port,omitempty"`
	HTTPError string `json:"http_error,omitempty"`
	Sessions  int    `json:"sessions"`
	// HandoverError is why the build the daemon last tried to execute in its place did
	// not start ("": none failed); the daemon then went on serving with its own build.
	HandoverError string `json:"handover_error,omitempty"`
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// Names in the HTTP directory, and the variables of the transport.
const (
	HTTPPortName   = "port"
	HTTPSecretName = "secret"
	EnvHTTPDir     = "HOOKEXEC_HTTP_DIR"    // the HTTP directory; default HTTPDir
	EnvHTTPSecret  = "HOOKEXEC_HTTP_SECRET" // the agent's copy of the secret, sent as a header
)

// HTTPPath is the URL path of an agent's hook calls: /hookexec/hook/AGENT.
func HTTPPath(agent string) string { return "/hookexec/hook/" + agent }

// HTTPDir is $HOOKEXEC_HTTP_DIR, else $XDG_CONFIG_HOME/hookexec/http, else
// $HOME/.config/hookexec/http ("" when none of them is set). It outlives a reboot, unlike
// the runtime directory, because the agent's settings name the port and the user's
// environment holds the secret.
func HTTPDir() string {
	if d := os.Getenv(EnvHTTPDir); d != "" {
		return d
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "hookexec", "http")
	}
	if h := os.Getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".config", "hookexec", "http")
	}
	return ""
}

// HTTPConfig is the transport's port and secret.
type HTTPConfig struct {
	Port   int
	Secret string
}

// ErrNoHTTP: the HTTP directory has no port file (the transport is not installed).
var ErrNoHTTP = errors.New("hookexec: the http transport is not set up (no port file)")

// HTTPURL is the URL an agent posts its hook calls to.
func HTTPURL(port int, agent string) string {
	return "http://127.0.0.1:" + strconv.Itoa(port) + HTTPPath(agent)
}
