package otelcoltest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Protocol is an OTLP transport, spelled as OTEL_EXPORTER_OTLP_PROTOCOL spells it.
type Protocol string

const (
	GRPC Protocol = "grpc"
	HTTP Protocol = "http/protobuf"
)

// Addr is a host:port on 127.0.0.1 an OTLP exporter can be pointed at.
type Addr string

// URL is the endpoint URL an OpenTelemetry SDK exporter takes ("http://" + the address: the
// scheme makes the SDK use plain text, for gRPC too).
func (a Addr) URL() string { return "http://" + string(a) }

// Env is the environment that points an SDK's OTLP exporters at a with protocol p.
func (a Addr) Env(p Protocol) []string {
	return []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + a.URL(), "OTEL_EXPORTER_OTLP_PROTOCOL=" + string(p)}
}

const (
	// Environment variables: the binary's path, and whether its absence fails the test.
	binaryEnv  = "HOOKEXEC_OTELCOL"
	requireEnv = "HOOKEXEC_REQUIRE_COLLECTOR"
	// The collector's log line once every receiver listens and every exporter has started.
	readyLine = "Everything is ready. Begin running and processing data."
	// Bounds on a loaded 2-core machine; a collector starts in about 50 ms when idle.
	startTimeout = 60 * time.Second
	stopTimeout  = 15 * time.Second
	// DefaultWait is how long the Wait methods poll before failing the test.
	DefaultWait = 30 * time.Second
	pollEvery   = 25 * time.Millisecond
	// The tail of the collector's log kept for a failing test's message.
	logTail = 32 << 10
)

// Collector is a running (or stopped) collector. GRPC and HTTP are its OTLP receivers; they
// keep their ports across Restart.
type Collector struct {
	GRPC Addr
	HTTP Addr

	bin  string
	dir  string
	runs int // incarnations started; each writes its own files
	proc *process
	log  *tailBuffer // the latest run's log, kept after Stop
}

// Start runs a collector with OTLP receivers on free 127.0.0.1 ports and a file exporter per
// signal, and returns once it says it is ready. It is stopped when the test ends; if the test
// failed, the collector's log is printed.
func Start(t testing.TB) *Collector {
	t.Helper()
	bin := Binary(t)
	c := &Collector{bin: bin, dir: t.TempDir()}
	// A free port found here can be taken by another process before the collector binds it:
	// the collector then exits saying so, and it is tried again on other ports.
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var ports [2]string
		if ports, err = freePorts(); err != nil {
			t.Fatalf("otelcoltest: %v", err)
		}
		c.GRPC, c.HTTP = Addr(ports[0]), Addr(ports[1])
		if err = c.start(); err == nil || !errors.Is(err, errAddrInUse) {
			break
		}
	}
	if err != nil {
		t.Fatalf("otelcoltest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() && c.log != nil {
			t.Logf("otelcoltest: the collector's log (last %d bytes):\n%s", logTail, c.log.String())
		}
		c.Stop(t)
	})
	return c
}

// Binary is the collector binary's path: HOOKEXEC_OTELCOL, else build/otelcol in the
// repository. When it is missing, the test is skipped, or fails under HOOKEXEC_REQUIRE_COLLECTOR=1.
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(binaryEnv)
	if bin == "" {
		root, err := repoRoot()
		if err != nil {
			t.Fatalf("otelcoltest: %v", err)
		}
		bin = filepath.Join(root, "build", "otelcol")
	}
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		msg := fmt.Sprintf("otelcoltest: no collector at %s: build it with `make build/otelcol` (or set %s)", bin, binaryEnv)
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s; %s=1 makes this a failure", msg, requireEnv)
		}
		t.Skipf("%s; skipped (%s=1 makes this a failure)", msg, requireEnv)
	}
	return bin
}

// repoRoot is the directory of hookexec's go.mod above the working directory (a test runs in
// its package's directory).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(mod, []byte("module github.com/hookexec/hookexec\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("hookexec's go.mod is not above the working directory; set " + binaryEnv)
		}
		dir = parent
	}
}

// freePorts finds two distinct free ports, both held open until both are known.
func freePorts() ([2]string, error) {
	var ports [2]string
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return ports, fmt.Errorf("no free port on 127.0.0.1: %w", err)
		}
		held = append(held, l)
		ports[i] = l.Addr().String()
	}
	return ports, nil
}

// Stop stops the collector (SIGTERM, which flushes its exporters; SIGKILL after 15 s): its
// ports then refuse connections, and what it received stays readable. Stopping a stopped
// collector does nothing.
func (c *Collector) Stop(t testing.TB) {
	t.Helper()
	if c.proc == nil {
		return
	}
	p := c.proc
	c.proc = nil
	if err := p.stop(); err != nil {
		t.Errorf("otelcoltest: stopping the collector: %v\n%s", err, p.log.String())
	}
}

// Restart starts the collector again on the same ports (after Stop, or stopping it first).
// What earlier runs received is still read.
func (c *Collector) Restart(t testing.TB) {
	t.Helper()
	c.Stop(t)
	if err := c.start(); err != nil {
		t.Fatalf("otelcoltest: restarting the collector: %v", err)
	}
}

// Env points an SDK's OTLP exporters at the collector's receiver for protocol p.
func (c *Collector) Env(p Protocol) []string { return c.Addr(p).Env(p) }

// Addr is the collector's receiver for protocol p.
func (c *Collector) Addr(p Protocol) Addr {
	if p == GRPC {
		return c.GRPC
	}
	return c.HTTP
}

var errAddrInUse = errors.New("a receiver's port was taken")

// start writes this run's configuration and runs the collector until it is ready.
func (c *Collector) start() error {
	run := strconv.Itoa(c.runs)
	c.runs++
	cfg := filepath.Join(c.dir, "config."+run+".yaml")
	if err := os.WriteFile(cfg, []byte(c.config(run)), 0o600); err != nil {
		return err
	}
	p, err := startProcess(c.bin, "--config", "file:"+cfg)
	if err != nil {
		return err
	}
	if err := p.waitReady(); err != nil {
		if strings.Contains(p.log.String(), "address already in use") {
			return fmt.Errorf("%w: %v", errAddrInUse, err)
		}
		return err
	}
	c.proc, c.log = p, p.log
	return nil
}

// signals are OTLP's three signals, in the order the Read methods name them.
var signals = []string{"traces", "metrics", "logs"}

// config is the collector's configuration for run: the OTLP receiver on both protocols, and a
// file exporter per signal writing OTLP JSON lines to <signal>.<run>.jsonl. Its own metrics
// are off: they would listen on a fixed port (8888) two collectors cannot share.
func (c *Collector) config(run string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: %q\n      http:\n        endpoint: %q\n", c.GRPC, c.HTTP)
	b.WriteString("exporters:\n")
	for _, s := range signals {
		fmt.Fprintf(&b, "  file/%s:\n    path: %q\n", s, filepath.Join(c.dir, s+"."+run+".jsonl"))
	}
	b.WriteString("service:\n  telemetry:\n    metrics:\n      level: none\n  pipelines:\n")
	for _, s := range signals {
		fmt.Fprintf(&b, "    %s:\n      receivers: [otlp]\n      exporters: [file/%s]\n", s, s)
	}
	return b.String()
}

// lines is every line the collector's runs wrote for signal.
func (c *Collector) lines(signal string) ([][]byte, error) {
	var out [][]byte
	for run := 0; run < c.runs; run++ {
		data, err := os.ReadFile(filepath.Join(c.dir, signal+"."+strconv.Itoa(run)+".jsonl"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		// A line being written is complete only with its newline.
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i]
		} else {
			continue
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				out = append(out, line)
			}
		}
	}
	return out, nil
}

// process is one run of the collector binary.
type process struct {
	cmd   *exec.Cmd
	log   *tailBuffer
	ready chan struct{} // closed when the ready line is logged
	done  chan struct{} // closed when the process has exited
	err   error         // its exit, once done is closed
}

func startProcess(bin string, args ...string) (*process, error) {
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard
	p := &process{cmd: cmd, log: &tailBuffer{max: logTail}, ready: make(chan struct{}), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			p.log.WriteString(line + "\n")
			if !signalled && strings.Contains(line, readyLine) {
				signalled = true
				close(p.ready)
			}
		}
		_, _ = io.Copy(io.Discard, stderr) // a line too long for the scanner: keep the pipe drained
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *process) waitReady() error {
	select {
	case <-p.ready:
		return nil
	case <-p.done:
		return fmt.Errorf("the collector exited before it was ready (%v):\n%s", p.err, p.log.String())
	case <-time.After(startTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("the collector was not ready after %v:\n%s", startTimeout, p.log.String())
	}
}

func (p *process) stop() error {
	select {
	case <-p.done:
		return fmt.Errorf("the collector had exited by itself (%v)", p.err)
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		// A collector shuts down cleanly on SIGTERM and exits 0, but it installs its handler
		// only after logging that it is ready, so a SIGTERM just after Start ends it by the
		// signal. Nothing it acknowledged is lost either way: the file exporter writes each
		// export to the file (unbuffered) before the receiver answers.
		if p.err != nil && !terminatedBy(p.err, syscall.SIGTERM) {
			return fmt.Errorf("the collector exited with %v after SIGTERM", p.err)
		}
		return nil
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("the collector did not stop within %v of SIGTERM; killed", stopTimeout)
	}
}

func terminatedBy(err error, sig syscall.Signal) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) WriteString(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, s...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
