package stats_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/audit"
	"github.com/hookexec/hookexec/core/observe"
	"github.com/hookexec/hookexec/core/stats"
)

// observed is a generated fire as the engine hands it to its sinks: the selected hooks
// only (those run, and those an earlier block kept from running).
func observed(f genFire) *observe.Fire {
	dur := func(ms float64) time.Duration { return time.Duration(ms*1000+0.5) * time.Microsecond }
	o := &observe.Fire{Start: f.at, Duration: dur(f.durationMs), Event: f.event, Profile: "claude", SessionID: "s1",
		Subject: "Bash", SubjectField: "tool_name", Payload: []byte(`{"tool_name":"Bash"}`),
		Blocked: f.blocked, Decision: f.decision, Continue: true}
	for _, r := range f.hooks {
		if !r.ran && !r.kept {
			continue
		}
		h := observe.Hook{ID: r.h.id, Source: r.h.source, Line: r.h.line, Type: "command", Exec: "shell", Ran: r.ran, ExitCode: -1}
		if r.ran {
			h.Start, h.Duration, h.ExitCode, h.Decision, h.TimedOut, h.Error = f.at, dur(r.ms), 0, r.decision, r.timedOut, r.errText
		} else {
			h.Error = "not run: an earlier hook blocked"
		}
		o.Hooks = append(o.Hooks, h)
	}
	return o
}

// writeAudit writes the fires with core/audit's own writer and returns the log's files in
// chain order.
func writeAudit(t testing.TB, fires []genFire, o audit.Options) []string {
	t.Helper()
	if o.Path == "" {
		o.Path = filepath.Join(t.TempDir(), "audit.log")
	}
	if o.Queue == 0 {
		o.Queue = len(fires) + 1
	}
	l, err := audit.Open(o)
	require.NoError(t, err)
	for _, f := range fires {
		l.Observe(observed(f))
	}
	closeAudit(t, l, len(fires))
	files, err := audit.Files(o.Path)
	require.NoError(t, err)
	return files
}

// closeAudit closes l once its writer has taken all n fires: Close itself waits at most
// audit.MaxCloseWait, less than a loaded machine may need.
func closeAudit(t testing.TB, l *audit.Log, n int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		st := l.Stats()
		if st.Written+st.Dropped >= uint64(n) || time.Now().After(deadline) {
			break
		}
	}
	require.NoError(t, l.Close(time.Now().Add(time.Minute)))
}

func readAll(t *testing.T, agg *stats.Aggregator, files ...string) []stats.FileReport {
	t.Helper()
	var reps []stats.FileReport
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		rep, err := agg.ReadFile(f, name)
		f.Close()
		require.NoError(t, err)
		reps = append(reps, rep)
	}
	return reps
}

func TestAggregateAuditLog(t *testing.T) {
	t.Parallel()
	g := generate(rand.New(rand.NewPCG(21, 22)), 1000, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), func(string, time.Time) bool { return true })
	files := writeAudit(t, g.fires, audit.Options{})
	require.Len(t, files, 1)
	agg := stats.New(stats.Filter{})
	reps := readAll(t, agg, files...)
	assert.Equal(t, stats.FileReport{Name: files[0], Kind: stats.KindAudit, Lines: 1000, Fires: 1000}, reps[0])
	checkSummary(t, g, agg.Summary())
}

// A rotated log is read file by file in chain order, as audit.Files lists them; a debug
// log and an audit log of the same fires give the same statistics.
func TestAuditLogRotatedAndMixed(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	since := start.Add(100 * time.Minute)
	keep := func(ev string, at time.Time) bool { return ev != "Stop" && !at.Before(since) }
	g := generate(rand.New(rand.NewPCG(23, 24)), 300, start, keep)
	files := writeAudit(t, g.fires, audit.Options{MaxBytes: 16 << 10})
	require.GreaterOrEqual(t, len(files), 2, "rotated")
	filter := stats.Filter{Events: []string{"PreToolUse", "PostToolUse", "UserPromptSubmit"}, Since: since}
	agg := stats.New(filter)
	reps := readAll(t, agg, files...)
	total := 0
	for _, r := range reps {
		assert.Equal(t, stats.KindAudit, r.Kind)
		assert.Zero(t, r.Bad, r.Name)
		total += r.Fires
	}
	assert.Equal(t, 300, total)
	fromAudit := agg.Summary()
	checkSummary(t, g, fromAudit)

	agg = stats.New(filter)
	_, err := agg.ReadFile(strings.NewReader(strings.Join(g.lines, "\n")), "debug.log")
	require.NoError(t, err)
	fromDebug := agg.Summary()
	fromDebug.Files, fromAudit.Files = nil, nil
	assert.Equal(t, fromDebug, fromAudit)
}

// Damaged lines of an audit log are counted and named, and every entry after them is still
// read: stats goes on where audit.Read stops.
func TestAuditLogBadLines(t *testing.T) {
	t.Parallel()
	g := generate(rand.New(rand.NewPCG(25, 26)), 40, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), func(string, time.Time) bool { return true })
	files := writeAudit(t, g.fires, audit.Options{})
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.Len(t, lines, 40)
	// Which fires survive: those whose line is left alone.
	var kept []genFire
	var out []string
	damage := map[int]string{ // fire index → what replaces its line
		3:  "garbage",
		4:  `{"hello":"world"}`,
		5:  g.lines[5], // a debug log line in an audit log
		9:  lines[9][:len(lines[9])/2],
		10: "[1,2]",
		20: `null`,
		39: lines[39][:30], // cut mid-write at the end
	}
	for i, l := range lines {
		if d, ok := damage[i]; ok {
			out = append(out, d)
			continue
		}
		kept = append(kept, g.fires[i])
		out = append(out, l)
		if i == 30 {
			out = append(out, "") // a blank line is not bad
		}
	}
	want := generate(rand.New(rand.NewPCG(0, 0)), 0, time.Time{}, nil)
	for _, f := range kept {
		want.expect(f)
	}
	agg := stats.New(stats.Filter{})
	rep, err := agg.ReadFile(strings.NewReader(strings.Join(out, "\n")), "audit.log") // no final newline
	require.NoError(t, err)
	assert.Equal(t, stats.KindAudit, rep.Kind)
	assert.Equal(t, 41, rep.Lines)
	assert.Equal(t, len(kept), rep.Fires)
	assert.Equal(t, len(damage), rep.Bad)
	var at []int
	for _, b := range rep.BadSamples {
		at = append(at, b.Line)
	}
	assert.Equal(t, []int{4, 5, 6, 10, 11, 21, 41}, at, "line numbers, the blank line counted")
	assert.Equal(t, "not an audit entry", rep.BadSamples[1].Why)
	checkSummary(t, want, agg.Summary())
}

// Gap entries (decisions the writer could not keep up with) are not fires: they are
// counted, with the decisions they say were lost.
func TestAuditLogGaps(t *testing.T) {
	t.Parallel()
	g := generate(rand.New(rand.NewPCG(27, 28)), 600, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), func(string, time.Time) bool { return true })
	files := writeAudit(t, g.fires, audit.Options{Queue: 1})
	var fires, gaps int
	var lost uint64
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		require.NoError(t, audit.Read(f, func(e audit.Entry) error {
			switch e.Kind {
			case audit.KindFire:
				fires++
			case audit.KindGap:
				gaps++
				lost += e.Dropped
			}
			return nil
		}))
		f.Close()
	}
	if gaps == 0 {
		t.Skip("the writer kept up with a queue of one: no gap to read")
	}
	agg := stats.New(stats.Filter{})
	reps := readAll(t, agg, files...)
	assert.Equal(t, fires, reps[0].Fires)
	assert.Equal(t, gaps, reps[0].Other)
	assert.Equal(t, lost, reps[0].Dropped)
	assert.Zero(t, reps[0].Bad)
	assert.Equal(t, fires, agg.Summary().Fires)
}

// The kind is found per file: a debug log's first line decides, and an audit entry in it
// is a bad line.
func TestKindPerFile(t *testing.T) {
	t.Parallel()
	g := generate(rand.New(rand.NewPCG(29, 30)), 3, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), func(string, time.Time) bool { return true })
	files := writeAudit(t, g.fires, audit.Options{})
	entry, err := os.ReadFile(files[0])
	require.NoError(t, err)
	first := string(bytes.SplitN(entry, []byte("\n"), 2)[0])
	agg := stats.New(stats.Filter{})
	rep, err := agg.ReadFile(strings.NewReader(g.lines[0]+"\n"+first+"\n"+g.lines[1]+"\n"), "debug.log")
	require.NoError(t, err)
	assert.Equal(t, stats.KindDebug, rep.Kind)
	assert.Equal(t, 2, rep.Fires)
	require.Equal(t, 1, rep.Bad)
	assert.Equal(t, stats.BadLine{Line: 2, Why: "not a line of a debug log"}, rep.BadSamples[0])
}

// An audit log is read as a stream too: after 30 MB of entries the heap holds a small
// fraction of it.
func TestAuditLogStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 30 MB")
	}
	g := generate(rand.New(rand.NewPCG(31, 32)), 1, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), func(string, time.Time) bool { return true })
	fire := observed(g.fires[0])
	fire.Reason = strings.Repeat("r", 2000)
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := audit.Open(audit.Options{Path: path})
	require.NoError(t, err)
	l.Observe(fire)
	closeAudit(t, l, 1)
	entry, err := os.ReadFile(path)
	require.NoError(t, err)
	const copies = 10000
	r, w := io.Pipe()
	go func() {
		for range copies {
			w.Write(entry)
		}
		w.Close()
	}()
	agg := stats.New(stats.Filter{})
	rep, err := agg.ReadFile(r, "big-audit.log")
	require.NoError(t, err)
	require.Equal(t, copies, rep.Fires)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	t.Logf("read %d MB; heap in use after: %.1f MB", copies*len(entry)>>20, float64(m.HeapInuse)/(1<<20))
	assert.Less(t, m.HeapInuse, uint64(8<<20), "the log is not kept")
}
