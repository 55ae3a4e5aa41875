package engine

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/hookexec/hookexec/core/observe"
	"github.com/hookexec/hookexec/core/run"
	"github.com/hookexec/hookexec/core/telemetry"
)

// The fire benchmarks sit beside their baselines: spawning /bin/true through os/exec and
// through core/run. `make bench` shows them in one run; the difference is hookexec's cost.

func benchEngine(b *testing.B, cfg string) *Engine {
	dir := b.TempDir()
	e, err := Open(Options{ProjectDir: dir, Home: dir, Config: json.RawMessage(cfg)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e
}

const benchPayload = `{"tool_name":"bash_execute","tool_input":{"command":"ls -la","description":"list"},"session_id":"s"}`

func BenchmarkBaselineExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBaselineRunTrue(b *testing.B) {
	for b.Loop() {
		run.Run(context.Background(), run.Spec{Argv: []string{"/bin/true"}})
	}
}

func BenchmarkFireOneDirectHook(b *testing.B) {
	e := benchEngine(b, `{"hooks":{"PreToolUse":[{"matcher":"bash_execute","hooks":[{"command":"/bin/true <<tool_input.command>>"}]}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Fire("PreToolUse", []byte(benchPayload)); err != nil {
			b.Fatal(err)
		}
	}
}

// telemetryHooks are the matching hooks the telemetry benchmarks fire: one-shot `true` and a
// persistent sh loop answering {}.
func telemetryHooks(b *testing.B) []struct{ name, hook string } {
	script := filepath.Join(b.TempDir(), "echo.sh")
	if err := os.WriteFile(script, []byte(shEcho+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return []struct{ name, hook string }{
		{"true", `{"command":"/bin/true <<tool_input.command>>"}`},
		{"persistent", `{"command":"sh ` + script + `","persistent":true}`},
	}
}

// telemetryEngine opens an engine with the hook on PreToolUse, telemetry on (exporting to a
// port where nothing listens) or off.
func telemetryEngine(b *testing.B, hook string, on bool) *Engine {
	dir := b.TempDir()
	o := Options{ProjectDir: dir, Home: dir, Config: json.RawMessage(`{"hooks":{"PreToolUse":[{"matcher":"bash_execute","hooks":[` + hook + `]}]}}`)}
	if on {
		o.Telemetry = &telemetry.Options{Enabled: ptr(true), Endpoint: "http://127.0.0.1:9"}
	}
	e, err := Open(o)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkFireTelemetry: the matching fire of BenchmarkFireOneDirectHook, and of a persistent
// hook, with telemetry off (no sink: the default) and on (exporting to a port where nothing
// listens, so exports fail invisibly while the fires go on). cpu-ns/op is the process's CPU
// per fire up to the engine's Close (which exports what is queued), the exporter's goroutines
// and GC included: on a busy machine, what telemetry takes from the fires. tests/bench/
// bench_fire.py times the two in turns.
func BenchmarkFireTelemetry(b *testing.B) {
	for _, c := range telemetryHooks(b) {
		for _, on := range []bool{false, true} {
			b.Run(c.name+"/"+map[bool]string{false: "off", true: "on"}[on], func(b *testing.B) {
				e := telemetryEngine(b, c.hook, on)
				if _, err := e.Fire("PreToolUse", []byte(benchPayload)); err != nil { // a persistent process starts
					b.Fatal(err)
				}
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					if _, err := e.Fire("PreToolUse", []byte(benchPayload)); err != nil {
						b.Fatal(err)
					}
				}
				_ = e.Close()
				b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// nopSink takes fires and does nothing: what a fire itself pays for having an observer.
type nopSink struct{}

func (nopSink) Observe(*observe.Fire) {}
func (nopSink) Close(time.Time) error { return nil }

// BenchmarkObservePath is a matching fire of a persistent hook (the fastest there is) with no
// sink and with one that does nothing: the record the fire builds for observers, on the fire's
// own goroutine. Telemetry's export runs on a goroutine of its own (core/telemetry
// BenchmarkExport).
func BenchmarkObservePath(b *testing.B) {
	for _, sinks := range [][]observe.Sink{nil, {nopSink{}}} {
		b.Run(map[bool]string{false: "none", true: "nop-sink"}[sinks != nil], func(b *testing.B) {
			dir := b.TempDir()
			e, err := Open(Options{ProjectDir: dir, Home: dir, Sinks: sinks,
				Config: json.RawMessage(`{"hooks":{"PreToolUse":[{"matcher":"bash_execute","hooks":[{"command":"sh -c '` + shEcho + `'","persistent":true}]}]}}`)})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = e.Close() })
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Fire("PreToolUse", []byte(benchPayload)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFireNoMatch(b *testing.B) {
	e := benchEngine(b, `{"hooks":{"PreToolUse":[{"matcher":"write_file|mcp__*","hooks":[{"command":"true"}]}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Fire("PreToolUse", []byte(benchPayload)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	e := benchEngine(b, `{"hooks":{"PreToolUse":[{"matcher":"write_file|mcp__*","hooks":[{"command":"true"}]},{"matcher":"^bash","hooks":[{"command":"true"}]}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Match("PreToolUse", "bash_execute"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFireParallelHooks fires four 50 ms hooks and reports the fire's wall time as a
// multiple of one hook's (1 is perfect overlap, 4 is serial); the tests check overlap
// without a clock.
func BenchmarkFireParallelHooks(b *testing.B) {
	const one = 50 * time.Millisecond
	h := `{"command":"sleep 0.05"}`
	e := benchEngine(b, `{"hooks":{"Stop":[{"hooks":[`+h+`,`+h+`,`+h+`,`+h+`]}]}}`)
	var wall time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := e.Fire("Stop", []byte(`{}`)); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
	}
	b.ReportMetric(float64(wall)/float64(b.N)/float64(one), "x-one-hook")
}

// shEcho is the `true` of the persistent protocol: a sh loop answering every request with {}.
const shEcho = `while IFS= read -r line; do printf '{}\n'; done`

// BenchmarkBaselinePipeRoundTrip is the floor of a persistent hook: the line a fire of
// benchPayload hands the hook, written to the same sh loop and its answer read back,
// nothing else. (sh reads its input a byte at a time, so the line must be the fire's own.)
func BenchmarkBaselinePipeRoundTrip(b *testing.B) {
	dir := b.TempDir()
	got := filepath.Join(dir, "line")
	script := filepath.Join(dir, "capture.sh")
	if err := os.WriteFile(script, []byte(`IFS= read -r line; printf '%s\n' "$line" > "$1"; printf '{}\n'`), 0o644); err != nil {
		b.Fatal(err)
	}
	e, err := Open(Options{ProjectDir: dir, Home: dir, Config: json.RawMessage(`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"command":"sh ` + script + ` ` + got + `"}]}]}}`)})
	if err != nil {
		b.Fatal(err)
	}
	_, err = e.Fire("PreToolUse", []byte(benchPayload))
	e.Close()
	line, rerr := os.ReadFile(got)
	if err != nil || rerr != nil {
		b.Fatal(err, rerr)
	}
	cmd := exec.Command("sh", "-c", shEcho)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	buf := make([]byte, 64)
	defer switches(b)()
	for b.Loop() {
		if _, err := in.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := out.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFirePersistentEcho(b *testing.B) { benchPersistentEcho(b, false) }

// BenchmarkFirePersistentEchoLocked fires from a goroutine locked to its thread, as every
// fire through the C library is (the host's thread): each wake of it is a hand-off to that
// thread.
func BenchmarkFirePersistentEchoLocked(b *testing.B) { benchPersistentEcho(b, true) }

func benchPersistentEcho(b *testing.B, locked bool) {
	if locked {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	script := filepath.Join(b.TempDir(), "echo.sh")
	if err := os.WriteFile(script, []byte(shEcho+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	e := benchEngine(b, `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"command":"sh `+script+`","persistent":true}]}]}}`)
	b.ReportAllocs()
	if _, err := e.Fire("PreToolUse", []byte(benchPayload)); err != nil { // the process starts
		b.Fatal(err)
	}
	defer switches(b)()
	for b.Loop() {
		r, err := e.Fire("PreToolUse", []byte(benchPayload))
		if err != nil {
			b.Fatal(err)
		}
		if r.Hooks[0].Error != "" {
			b.Fatal(r.Hooks[0].Error)
		}
	}
}

// BenchmarkResultJSON is what the C library adds to every fire that ran a hook: the result
// encoded for the host.
func BenchmarkResultJSON(b *testing.B) {
	e := benchEngine(b, `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"command":"true"}]}]}}`)
	r, err := e.Fire("PreToolUse", []byte(benchPayload))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = r.JSON()
	}
}

// BenchmarkFireTelemetryTurns fires two engines of the same config in turns, telemetry off
// and on (exporting to a port where nothing listens), one fire of each per iteration, so
// that the load of a shared machine hits both alike; it reports each one's median and
// their ratio (the figure tests/bench/bench_fire.py sets against its 1.03 target). The
// exporter's goroutines run in this process, as in a host's.
func BenchmarkFireTelemetryTurns(b *testing.B) {
	for _, c := range telemetryHooks(b) {
		b.Run(c.name, func(b *testing.B) {
			var engines [2]*Engine
			for i := range engines {
				e := telemetryEngine(b, c.hook, i == 1)
				b.Cleanup(func() { _ = e.Close() })
				engines[i] = e
			}
			var took [2][]time.Duration
			fire := func(i int) {
				t := time.Now()
				if _, err := engines[i].Fire("PreToolUse", []byte(benchPayload)); err != nil {
					b.Fatal(err)
				}
				took[i] = append(took[i], time.Since(t))
			}
			fire(0) // persistent processes start
			fire(1)
			took[0], took[1] = nil, nil
			for b.Loop() {
				fire(0)
				fire(1)
			}
			off, on := median(took[0]), median(took[1])
			b.ReportMetric(float64(off.Nanoseconds()), "off-ns")
			b.ReportMetric(float64(on.Nanoseconds()), "on-ns")
			b.ReportMetric(float64(on)/float64(off), "on/off")
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
