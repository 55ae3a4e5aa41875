// Package run starts one hook child process and waits for it; every hook child of
// hookexec goes through Run. Post (http.go) is the runner of http hooks: one POST under
// the hook's timeout with the response body capped like a child's output.
//
// Run starts Argv in its own process group with a clean signal mask, writes Stdin to
// it and closes it, keeps the first OutputCap bytes of stdout and stderr while
// draining and counting the rest, and on timeout or cancellation sends SIGTERM to
// the whole group, then SIGKILL after a grace, so that no process of a timed-out
// tree survives Run.
//
// Run does not invoke a shell: Argv is executed as is, and callers that want shell
// syntax pass "/bin/sh", "-c", script themselves. It never reads the host's stdin,
// never writes to the host's stdout or stderr, and installs no signal handlers.
//
// A child that exits on its own while a process it started in the background still
// holds its stdout or stderr is waited for at most Grace longer; then its pipes are
// closed and, on Linux, its process group is killed (Result.Stragglers): a process
// holding a hook's output is hung, not a daemon (os/exec, used elsewhere, cannot tell
// a held pipe after a failing exit, so there it is left running). A background process that let go of the
// output (a sound, a server started with >/dev/null) is left running, since the
// hook meant to leave it. A timeout or a cancellation kills the whole group.
//
// A process that leaves the group (setsid, a double fork) escapes a group kill.
// Where the host may create cgroups (cgroup v2, writable), each run also gets its
// own child cgroup, and what the group kill misses is killed through it.
//
// On Linux, Run starts no goroutine of its own: the calling goroutine forks the
// child and waits for its pipes, its exit (through a pidfd) and the clocks in one
// ppoll (before Linux 5.3, which has no pidfd to poll, a goroutine per run waits
// for the exit). Elsewhere (macOS, the BSDs, Windows) Run is os/exec with the same
// contract: a process group (a job object on Windows) that Cancel kills, and
// WaitDelay for pipes held by grandchildren. Windows has no SIGTERM: a timeout
// terminates the job at once.
package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Spec says what to run and how. Its zero value, apart from Argv, is a sensible default.
type Spec struct {
	// Argv is the program and its arguments. Argv[0] is looked up on PATH (from Env
	// if it sets PATH, else the process's) when it has no slash; with a slash it is
	// a path, relative to Dir. An empty Argv is an error.
	Argv []string
	// Stdin is written to the child, then closed. nil or empty means an empty
	// stdin; the child never gets the host's stdin.
	Stdin []byte
	// Env is the child's whole environment. nil means os.Environ().
	Env []string
	// Dir is the working directory. "" means the host's.
	Dir string
	// Timeout bounds the run. Zero or negative means no timeout.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL to the group, and how long Run
	// waits for pipes held open after the child exits. Zero or negative means 1s.
	Grace time.Duration
	// OutputCap is the number of bytes kept per stream; the rest is drained and
	// counted. Zero means 32 KiB; negative keeps nothing and only counts.
	OutputCap int
	// StdoutCap, when positive, is the number of stdout bytes kept instead of OutputCap:
	// for a caller that reads more of stdout (a decision) than it shows. Zero means
	// OutputCap.
	StdoutCap int
}

// Result is what became of one run. A Result is a value: Run never returns a partial one.
type Result struct {
	// ExitCode is the child's exit status; -1 when it was killed by a signal or
	// never started.
	ExitCode int
	// Signal is the name of the signal that killed the child ("SIGTERM",
	// "SIGKILL", "SIGSEGV", ...), else "".
	Signal string
	// TimedOut reports that Timeout expired and the group was killed.
	TimedOut bool
	// Duration is the wall time Run took.
	Duration time.Duration
	// Stdout and Stderr hold at most OutputCap bytes each (stdout: StdoutCap when set).
	Stdout, Stderr []byte
	// StdoutTruncated and StderrTruncated report that the child wrote more than
	// that stream keeps.
	StdoutTruncated, StderrTruncated bool
	// StdoutBytes and StderrBytes count every byte the child wrote to each stream.
	StdoutBytes, StderrBytes int64
	// Stragglers reports that the child exited but processes it started still held
	// its stdout or stderr Grace later; they were killed (with its process group,
	// and through the run's cgroup when it has one). Always false off Linux.
	Stragglers bool
	// Err is nil, or why the child could not be started (it wraps exec.ErrNotFound,
	// exec.ErrDot or an fs error such as fs.ErrPermission), or that ctx ended the
	// run (it wraps ctx's error, context.Canceled for a plain cancel), or that the
	// child could not be waited for. A timeout is not an error: see TimedOut.
	Err error
}

// NotFound reports whether r failed because Argv[0] was not found on PATH, in which
// case callers fall back to the shell form.
func (r Result) NotFound() bool { return errors.Is(r.Err, exec.ErrNotFound) }

const (
	defaultGrace = time.Second
	defaultCap   = 32 << 10
)

var errEmptyArgv = errors.New("hookexec: run: empty argv")

// limits are the grace and the output caps in force (stdout's, stderr's), defaults filled in.
func (s *Spec) limits() (grace time.Duration, stdoutCap, stderrCap int) {
	grace, stderrCap = s.Grace, s.OutputCap
	if grace <= 0 {
		grace = defaultGrace
	}
	if stderrCap == 0 {
		stderrCap = defaultCap
	}
	stdoutCap = stderrCap
	if s.StdoutCap > 0 {
		stdoutCap = s.StdoutCap
	}
	return grace, stdoutCap, stderrCap
}

// Run starts the child in its own process group, feeds stdin, captures output,
// enforces the timeout and waits. When ctx ends first it kills like a timeout but
// sets Err to wrap ctx's error (context.Canceled) instead of TimedOut. Run never
// panics on a bad Spec and always returns a Result.
func Run(ctx context.Context, spec Spec) Result {
	start := time.Now()
	r := run(ctx, &spec, start)
	r.Duration = time.Since(start)
	return r
}

// childEnv is the child's environment as os/exec would build it: the host's when
// env is nil, with PWD set to dir, and the last of duplicate keys winning.
func childEnv(env []string, dir string) ([]string, error) {
	if env == nil {
		env = os.Environ()
		if dir != "" {
			pwd, err := filepath.Abs(dir)
			if err != nil {
				return nil, err
			}
			env = append(env, "PWD="+pwd)
		}
	}
	return dedupEnv(env)
}

// dedupEnv returns env with any duplicates removed, in favour of later values, as
// os/exec does; env itself when it has none to remove. Entries not of the form
// key=value are kept, empty ones dropped, and ones holding NUL dropped with an error.
func dedupEnv(env []string) ([]string, error) {
	saw := make(map[string]struct{}, len(env))
	clean := true
	for _, kv := range env {
		k, ok := envKey(kv)
		if kv == "" || strings.IndexByte(kv, 0) >= 0 {
			clean = false
			break
		}
		if !ok {
			continue
		}
		if _, dup := saw[k]; dup {
			clean = false
			break
		}
		saw[k] = struct{}{}
	}
	if clean {
		return env, nil
	}
	clear(saw)
	var err error
	out := make([]string, 0, len(env))
	for i := len(env) - 1; i >= 0; i-- {
		kv := env[i]
		if strings.IndexByte(kv, 0) >= 0 {
			err = errors.New("exec: environment variable contains NUL")
			continue
		}
		k, ok := envKey(kv)
		if !ok {
			if kv != "" {
				out = append(out, kv)
			}
			continue
		}
		if _, dup := saw[k]; dup {
			continue
		}
		saw[k] = struct{}{}
		out = append(out, kv)
	}
	slices.Reverse(out)
	return out, err
}

// envKey is the key of a key=value entry; a leading "=" is part of the key.
func envKey(kv string) (string, bool) {
	i := strings.IndexByte(kv, '=')
	if i == 0 {
		i = strings.IndexByte(kv[1:], '=') + 1
	}
	if i <= 0 {
		return "", false
	}
	return kv[:i], true
}

// endedByContext records why the run was ended: Run's own deadline is a timeout,
// anything else is the parent's doing and becomes Err.
func endedByContext(r *Result, timedOut bool, parent context.Context) {
	if timedOut {
		r.TimedOut = true
		return
	}
	err := parent.Err()
	if err == nil {
		err = context.Canceled
	}
	r.Err = fmt.Errorf("hookexec: run: %w", err)
}
