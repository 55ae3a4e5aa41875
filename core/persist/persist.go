// Package persist keeps the processes of persistent hooks ("persistent": true) alive across
// fires and talks to them in protocol v1: for each request one line of compact JSON (the
// hook's stdin payload) goes to the process's stdin, and one line holding a JSON object
// {"exit_code": N, "stdout": "...", "stderr": "..."} (each optional) comes back on its
// stdout. The answer is handed to the engine as a run.Result, so it is read exactly as a
// one-shot hook's exit code and output are.
//
// One process serves one hook, one request at a time: concurrent fires of the same hook
// queue (their wait counts against their timeout). A hook declared stateless with
// Spec.Workers N runs up to N processes of its command, each serving one request at a
// time, so N requests are answered in parallel; each worker starts its process at its first
// request. Failures count for the hook as a whole. A timeout, a cancelled request, or an
// answer that is not one JSON object line kills the process group; a process that exits or
// closes its stdout is reaped. Either way the next request starts a fresh process, after a
// back-off once failures repeat, and a hook that fails maxFailures times in a row is
// disabled until the pool is told to keep it again (a reload).
//
// Output the process writes outside a request (stdout lines nobody asked for, anything on
// stderr) is read as it comes and discarded, keeping only a short stderr tail for error
// messages, so the process can never block on a full pipe.
//
// Persist does not render templates: a persistent command starts once, so per-fire values
// reach it only on stdin. It does not decide anything either; the engine does.
package persist

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/run"
)

// Errors wrapped by run.Result.Err when a request could not be answered; test with errors.Is.
var (
	// ErrFailed: the process died, closed its stdout, answered garbage, could not be
	// started, is backing off, or was stopped. The fire gets a hook error.
	ErrFailed = errors.New("hookexec: persistent hook failed")
	// ErrDisabled (which also matches ErrFailed): the hook failed too often in a row and
	// stays disabled until a reload.
	ErrDisabled = fmt.Errorf("%w: disabled", ErrFailed)
)

// EnvMarker is set in every persistent process's environment, so one script can serve
// both modes.
const EnvMarker = "HOOKEXEC_PERSISTENT=1"

// Back-off: the first failure is replaced on the next request; after that the restart
// waits firstBackoff, doubling; at maxFailures in a row the hook is disabled.
const (
	maxFailures  = 5
	firstBackoff = 100 * time.Millisecond
	// maxLine bounds one answer line; a longer one is garbage (the process is killed).
	maxLine = 16 << 20
	// tailSize is how much of a process's stderr is kept for error messages.
	tailSize   = 2 << 10
	defaultCap = 32 << 10
	// tooLongAnswer stands for an answer line over maxLine; decode rejects it.
	tooLongAnswer = "<answer line over 16 MiB>"
)

// Spec says how to start a hook's process. Two Specs with the same fields and id are the
// same process: Pool.Hook returns the existing one.
type Spec struct {
	// Argv is the program and its arguments. Argv[0] without a slash is looked up on the
	// PATH of Env.
	Argv []string
	// Fallback is run instead when Argv[0] is not found (the shell form, so the error the
	// hook reports is the shell's); nil for none.
	Fallback []string
	// Env is the process's whole environment; EnvMarker is appended. nil means the host's.
	Env []string
	// Dir is the working directory; "" means the host's.
	Dir string
	// Grace is the time between SIGTERM and SIGKILL to the group; zero or negative means 1s.
	Grace time.Duration
	// Workers is how many processes may serve requests in parallel; below 1 means one.
	Workers int
}

func (s *Spec) key(id string) string {
	parts := []string{id, strings.Join(s.Argv, "\x00"), strings.Join(s.Fallback, "\x00"), strings.Join(s.Env, "\x00"), s.Dir, s.Grace.String(), strconv.Itoa(max(s.Workers, 1))}
	return strings.Join(parts, "\x01")
}

// Status is a persistent hook's state as config() reports it.
type Status struct {
	// State is "idle" (no process yet), "running", "backoff" (the next request waits for
	// the restart delay), "disabled" (until reload) or "stopped" (reload removed the hook,
	// or the engine closed).
	State string `json:"state"`
	// PID of the running process (the first worker's that runs); 0 when none runs.
	PID int `json:"pid"`
	// Workers is the number of processes the hook may run; PIDs those running, by worker.
	Workers int   `json:"workers"`
	PIDs    []int `json:"pids,omitempty"`
	// Starts counts the processes started for the hook.
	Starts int `json:"starts"`
	// Failures counts failures since the last good answer.
	Failures int `json:"failures"`
	// LastError is why the last process was replaced; "" when none was.
	LastError string `json:"last_error,omitempty"`
}

// Pool holds the persistent hooks of one engine, keyed by hook identity, so that a reload
// keeps the processes of hooks it did not change.
type Pool struct {
	mu       sync.Mutex
	hooks    map[string]*Hook
	closed   bool
	stopping sync.WaitGroup // hooks being stopped after a reload
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{hooks: map[string]*Hook{}} }

// Hook returns the hook of that id and spec, creating it (without starting anything) when
// the pool has none.
func (p *Pool) Hook(id string, spec Spec) *Hook {
	k := spec.key(id)
	p.mu.Lock()
	defer p.mu.Unlock()
	if h := p.hooks[k]; h != nil {
		return h
	}
	if spec.Grace <= 0 {
		spec.Grace = time.Second
	}
	spec.Workers = max(spec.Workers, 1)
	h := &Hook{id: id, key: k, spec: spec, free: make(chan *worker, spec.Workers)}
	for range spec.Workers {
		w := &worker{}
		h.workers = append(h.workers, w)
		h.free <- w
	}
	if p.closed {
		h.stopped = true
	}
	p.hooks[k] = h
	return h
}

// Keep stops every hook of the pool that is not in keep, in the background (a request in
// flight finishes first), and gives the kept ones a fresh start: a hook disabled for
// failing is enabled again.
func (p *Pool) Keep(keep []*Hook, wait time.Duration) {
	want := make(map[*Hook]bool, len(keep))
	for _, h := range keep {
		want[h] = true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, h := range p.hooks {
		if want[h] {
			h.mu.Lock()
			h.failures, h.disabled, h.retryAt = 0, "", time.Time{}
			h.mu.Unlock()
			continue
		}
		delete(p.hooks, k)
		p.stopping.Add(1)
		go func() {
			defer p.stopping.Done()
			h.stop(wait)
		}()
	}
}

// Close stops every process: it closes their stdin, waits up to wait for them to exit, then
// kills their groups. Requests in flight get an error.
func (p *Pool) Close(wait time.Duration) {
	p.mu.Lock()
	p.closed = true
	hooks := make([]*Hook, 0, len(p.hooks))
	for _, h := range p.hooks {
		hooks = append(hooks, h)
	}
	clear(p.hooks)
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, h := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.stop(wait)
		}()
	}
	wg.Wait()
	p.stopping.Wait()
}

// Hook is one persistent hook: at most Spec.Workers processes, each serving one request
// at a time.
type Hook struct {
	id      string
	key     string
	spec    Spec
	workers []*worker
	free    chan *worker // the idle workers: a request takes one and gives it back

	mu       sync.Mutex // guards what follows and the workers' processes, for Status and stop
	starts   int
	failures int       // in a row, since the last good answer
	retryAt  time.Time // no restart before
	disabled string    // why, until reload
	lastErr  string
	stopped  bool
}

// worker is one slot of a hook: the request holding it talks to its process.
type worker struct {
	p      conn            // nil when no process runs (under Hook.mu)
	parser fastjson.Parser // reads the answers of the request holding the worker
}

// Status reports the hook's state.
func (h *Hook) Status() Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := Status{State: "idle", Starts: h.starts, Failures: h.failures, LastError: h.lastErr, Workers: len(h.workers)}
	for _, w := range h.workers {
		if w.p != nil {
			s.PIDs = append(s.PIDs, w.p.PID())
		}
	}
	switch {
	case h.stopped:
		s.State, s.PIDs = "stopped", nil
	case h.disabled != "":
		s.State, s.PIDs = "disabled", nil
	case len(s.PIDs) > 0:
		s.State, s.PID = "running", s.PIDs[0]
	case time.Now().Before(h.retryAt):
		s.State = "backoff"
	}
	return s
}

// Disabled is why the hook is disabled, or "".
func (h *Hook) Disabled() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.disabled
}

// Run answers one request: spec.Stdin is the request line (a trailing newline is added when
// missing), spec.Timeout bounds the whole request including its wait in the queue, and
// spec.OutputCap (spec.StdoutCap for stdout, when set) caps the answer's stdout and stderr as
// they do a one-shot hook's. The rest
// of spec is ignored: the process was started from the Hook's own Spec. It has run.Run's
// signature so the engine runs both kinds of hook the same way.
func (h *Hook) Run(ctx context.Context, spec run.Spec) run.Result {
	start := time.Now()
	r := h.run(ctx, spec, start)
	r.Duration = time.Since(start)
	return r
}

func (h *Hook) run(ctx context.Context, spec run.Spec, start time.Time) run.Result {
	r := run.Result{ExitCode: -1}
	if ctx == nil {
		ctx = context.Background()
	}
	var deadline time.Time
	if spec.Timeout > 0 {
		deadline = start.Add(spec.Timeout)
	}
	var w *worker
	select {
	case w = <-h.free:
	default:
		if w = h.queue(ctx, deadline, &r); w == nil {
			return r
		}
	}
	defer func() { h.free <- w }()

	p, err := h.ready(w)
	if err != nil {
		r.Err = err
		return r
	}
	line := spec.Stdin
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line[:len(line):len(line)], '\n')
	}
	answer, failure, timedOut := p.request(ctx, line, deadline)
	defer p.release() // after decode: answer is the connection's buffer
	switch {
	case timedOut:
		r.TimedOut = true
		h.fail(w, p, "timed out", true)
	case answer == nil && failure == "":
		r.Err = fmt.Errorf("hookexec: persistent hook: %w", ctx.Err())
		h.fail(w, p, "cancelled", true)
	case failure != "":
		r.Err = h.fail(w, p, failure, false)
	default:
		outCap := spec.OutputCap
		if spec.StdoutCap > 0 {
			outCap = spec.StdoutCap
		}
		if err := decode(&w.parser, answer, &r, outCap, spec.OutputCap); err != nil {
			r.Err = h.fail(w, p, err.Error(), true)
			return r
		}
		h.mu.Lock()
		h.failures = 0
		h.mu.Unlock()
	}
	return r
}

// queue waits for a request in flight to finish and returns its worker. It returns nil,
// with r saying why, when the deadline or ctx ends the wait first.
func (h *Hook) queue(ctx context.Context, deadline time.Time, r *run.Result) *worker {
	var expired <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	select {
	case w := <-h.free:
		return w
	case <-expired:
		r.TimedOut = true // still queued behind another request: that process is not ours to kill
	case <-ctx.Done():
		r.Err = fmt.Errorf("hookexec: persistent hook: %w", ctx.Err())
	}
	return nil
}

// ready returns w's running process, starting one when there is none and the back-off
// allows it. Only the request holding w calls it.
func (h *Hook) ready(w *worker) (conn, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.stopped:
		return nil, fmt.Errorf("%w: stopped (removed by a reload, or the engine closed)", ErrFailed)
	case h.disabled != "":
		return nil, fmt.Errorf("%w: %s", ErrDisabled, h.disabled)
	case w.p != nil:
		return w.p, nil
	}
	if wait := time.Until(h.retryAt); wait > 0 {
		return nil, fmt.Errorf("%w: backing off after %d failures in a row (last: %s); next start in %s",
			ErrFailed, h.failures, h.lastErr, wait.Round(time.Millisecond))
	}
	p, err := start(&h.spec)
	if err != nil {
		h.lastErr = "cannot start: " + err.Error()
		h.failed()
		return nil, fmt.Errorf("%w: cannot start: %v", ErrFailed, err)
	}
	w.p = p
	h.starts++
	return p, nil
}

// fail retires w's process p after a failed request: killed (kill) or reaped, so the next
// request on w starts afresh. It returns the error for the request.
func (h *Hook) fail(w *worker, p conn, why string, kill bool) error {
	if kill {
		p.terminate(h.spec.Grace)
	} else {
		p.retire(h.spec.Grace)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if w.p == p {
		w.p = nil
	}
	h.lastErr = why
	h.failed()
	if h.disabled != "" {
		return fmt.Errorf("%w: %s", ErrDisabled, h.disabled)
	}
	return fmt.Errorf("%w: %s", ErrFailed, why)
}

// failed counts a failure and schedules the next start; h.mu is held.
func (h *Hook) failed() {
	h.failures++
	if h.failures >= maxFailures {
		h.disabled = fmt.Sprintf("failed %d times in a row (last: %s); disabled until reload", h.failures, h.lastErr)
		return
	}
	if h.failures > 1 {
		h.retryAt = time.Now().Add(firstBackoff << (h.failures - 2))
	}
}

// stop ends the hook for good: it waits for the requests in flight, closes the processes'
// stdin, gives them up to wait to exit, then kills their groups.
func (h *Hook) stop(wait time.Duration) {
	h.mu.Lock()
	h.stopped = true
	h.mu.Unlock()
	held := make([]*worker, 0, len(h.workers))
	for range h.workers {
		held = append(held, <-h.free) // no request talks to the processes from here on
	}
	defer func() {
		for _, w := range held {
			h.free <- w
		}
	}()
	var wg sync.WaitGroup
	h.mu.Lock()
	for _, w := range h.workers {
		if p := w.p; p != nil {
			w.p = nil
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.close(wait, h.spec.Grace)
			}()
		}
	}
	h.mu.Unlock()
	wg.Wait()
}

// conn is one running process of a hook (pipeConn).
type conn interface {
	PID() int
	// request writes line and waits for the answer line. It reports the answer, or why
	// there is none (failure), or that deadline (zero: none) passed (timedOut); when ctx
	// ended the wait it reports none of the three. The answer is valid until release.
	request(ctx context.Context, line []byte, deadline time.Time) (answer []byte, failure string, timedOut bool)
	// release ends the request: output from here on is outside any request.
	release()
	// terminate kills the group: SIGTERM, up to grace for the leader, SIGKILL.
	terminate(grace time.Duration)
	// retire makes sure the leader is reaped and nothing of its group is left.
	retire(grace time.Duration)
	// close is the polite end: stdin closed, up to wait for the exit, then the group killed.
	close(wait, grace time.Duration)
}

// start starts the hook's process.
func start(s *Spec) (conn, error) { return startPipes(s) }

// command builds the process: argv resolved on the process's PATH (the fallback when the
// program is not there), the environment with EnvMarker, its own process group.
func command(s *Spec) (*exec.Cmd, error) {
	argv := s.Argv
	path, err := lookPath(argv[0], s.Env)
	if err != nil && s.Fallback != nil && errors.Is(err, exec.ErrNotFound) {
		argv = s.Fallback
		path, err = lookPath(argv[0], s.Env)
	}
	if err != nil {
		return nil, err
	}
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], EnvMarker)
	return &exec.Cmd{Path: path, Args: argv, Env: env, Dir: s.Dir, SysProcAttr: groupAttr()}, nil
}

// startErr names a bad working directory, which exec reports as the program missing.
func startErr(s *Spec, err error) error {
	if _, statErr := os.Stat(s.Dir); s.Dir != "" && statErr != nil {
		return fmt.Errorf("working directory %s: %v", s.Dir, statErr)
	}
	return err
}

// watch is what both implementations keep about the leader and its stderr.
type watch struct {
	pid  int
	mu   sync.Mutex
	tail []byte           // the last tailSize bytes of stderr
	st   *os.ProcessState // once reaped
	dead chan struct{}    // closed once the leader is reaped
	errs chan struct{}    // closed once stderr reached EOF
}

func newWatch(pid int) watch {
	return watch{pid: pid, dead: make(chan struct{}), errs: make(chan struct{})}
}

func (w *watch) PID() int { return w.pid }

// reap waits for the leader in its own goroutine; then runs onExit.
func (w *watch) reap(cmd *exec.Cmd, onExit func()) {
	go func() {
		cmd.Wait()
		w.mu.Lock()
		w.st = cmd.ProcessState
		w.mu.Unlock()
		close(w.dead)
		if onExit != nil {
			onExit()
		}
	}()
}

// keep adds b to the stderr tail.
func (w *watch) keep(b []byte) {
	w.mu.Lock()
	w.tail = append(w.tail, b...)
	if len(w.tail) > tailSize {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-tailSize:]...)
	}
	w.mu.Unlock()
}

// exitText says how the process ended, with the tail of its stderr.
func (w *watch) exitText() string {
	w.mu.Lock()
	st := w.st
	w.mu.Unlock()
	what := "it exited"
	if st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			what = "it was killed by signal " + ws.Signal().String()
		} else {
			what = "it exited with status " + strconv.Itoa(st.ExitCode())
		}
	}
	return what + " without answering" + w.stderrText()
}

func (w *watch) stderrText() string {
	// What it wrote just before it went may still be in the pipe.
	select {
	case <-w.errs:
	case <-time.After(50 * time.Millisecond):
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t := strings.TrimSpace(string(w.tail))
	if t == "" {
		return ""
	}
	if len(t) > 300 {
		t = "..." + t[len(t)-300:]
	}
	return " (stderr: " + t + ")"
}

// waitDead waits up to d for the leader to be reaped.
func (w *watch) waitDead(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.dead:
		return true
	case <-t.C:
		return false
	}
}

// decode reads an answer line into r. Anything but one JSON object whose exit_code is an
// integer and whose stdout and stderr are strings is an error.
func decode(ps *fastjson.Parser, line []byte, r *run.Result, outCap, errCap int) error {
	v, err := ps.ParseBytes(line)
	if err != nil || v.Type() != fastjson.TypeObject {
		return fmt.Errorf("answer is not one JSON object line: %s", quoteShort(line))
	}
	r.ExitCode = 0
	if x := v.Get("exit_code"); x != nil {
		n, err := x.Int()
		if err != nil {
			return fmt.Errorf("answer's exit_code is not an integer: %s", quoteShort(line))
		}
		r.ExitCode = n
	}
	for _, f := range []struct {
		key   string
		limit int
		dst   *[]byte
		total *int64
		trunc *bool
	}{{"stdout", outCap, &r.Stdout, &r.StdoutBytes, &r.StdoutTruncated}, {"stderr", errCap, &r.Stderr, &r.StderrBytes, &r.StderrTruncated}} {
		limit := f.limit
		if limit == 0 {
			limit = defaultCap
		}
		x := v.Get(f.key)
		if x == nil || x.Type() == fastjson.TypeNull {
			continue
		}
		if x.Type() != fastjson.TypeString {
			return fmt.Errorf("answer's %s is not a string: %s", f.key, quoteShort(line))
		}
		b := x.GetStringBytes()
		*f.total = int64(len(b))
		if len(b) > max(limit, 0) {
			b, *f.trunc = b[:max(limit, 0)], true
		}
		*f.dst = append([]byte(nil), b...)
	}
	return nil
}

func quoteShort(b []byte) string {
	const n = 200
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "..."
	}
	return strconv.Quote(string(b))
}

// lookPath finds file on the PATH that env sets (the process's), like exec.LookPath.
func lookPath(file string, env []string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	path, ok := "", false
	for i := len(env) - 1; i >= 0; i-- {
		if v, found := strings.CutPrefix(env[i], "PATH="); found {
			path, ok = v, true
			break
		}
	}
	if !ok {
		return exec.LookPath(file)
	}
	for _, dir := range strings.Split(path, string(os.PathListSeparator)) {
		if dir == "" || !strings.HasPrefix(dir, "/") {
			continue // relative PATH entries are refused, as exec.ErrDot would
		}
		p := dir + "/" + file
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
}
