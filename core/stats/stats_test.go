package stats_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/stats"
)

// nearestRank is the percentile by its definition, not by Percentile's index arithmetic:
// the smallest value v of the data such that at least p% of the values are <= v.
func nearestRank(values []float64, p float64) float64 {
	best := math.Inf(1)
	for _, v := range values {
		atOrBelow := 0
		for _, w := range values {
			if w <= v {
				atOrBelow++
			}
		}
		if float64(atOrBelow)*100 >= p*float64(len(values)) && v < best {
			best = v
		}
	}
	return best
}

func TestPercentileAgainstDefinition(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 4, 7, 10, 99, 100, 101, 250, 1000} {
		values := make([]float64, n)
		for i := range values {
			values[i] = math.Round(rng.ExpFloat64()*50*10) / 10 // repeats happen: rounded to 0.1
		}
		sorted := slices.Sorted(slices.Values(values))
		for _, p := range []float64{1, 10, 25, 50, 90, 95, 99, 99.9, 100} {
			assert.Equal(t, nearestRank(values, p), stats.Percentile(sorted, p), "n=%d p=%v", n, p)
		}
	}
	assert.Equal(t, 2.0, stats.Percentile([]float64{1, 2, 3, 4}, 50), "p50 of 1..4 is a value that occurred")
	assert.Equal(t, 0.0, stats.Percentile(nil, 50))
}

// binOf finds a value's bin by scanning, the definition Bin documents.
func binOf(bins []stats.Bin, v float64) int {
	for i, b := range bins {
		if b.LoMs <= v && (v < b.HiMs || i == len(bins)-1 && v == b.HiMs) {
			return i
		}
	}
	return -1
}

func TestHistogramAgainstScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		gen  func() float64
		n    int
		log  bool
	}{
		{"narrow, linear", func() float64 { return 20 + rng.Float64()*5 }, 500, false},
		{"long tail, log scale", func() float64 { return 1 + rng.ExpFloat64()*300 }, 2000, true},
		{"zeros: linear", func() float64 { return math.Floor(rng.Float64() * 4) }, 50, false},
		{"two values", func() float64 { return float64(1 + rng.IntN(2)) }, 9, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values := make([]float64, tc.n)
			for i := range values {
				values[i] = tc.gen()
			}
			sorted := slices.Sorted(slices.Values(values))
			bins := stats.Histogram(sorted)
			wantBins := min(stats.MaxBins, 1+int(math.Ceil(math.Log2(float64(tc.n)))))
			require.Len(t, bins, wantBins)
			assert.Equal(t, sorted[0], bins[0].LoMs)
			assert.Equal(t, sorted[len(sorted)-1], bins[len(bins)-1].HiMs)
			want := make([]int, len(bins))
			for _, v := range values {
				i := binOf(bins, v)
				require.GreaterOrEqual(t, i, 0, "value %v in no bin", v)
				want[i]++
			}
			got := make([]int, len(bins))
			for i, b := range bins {
				got[i] = b.Count
				if i > 0 {
					assert.Equal(t, bins[i-1].HiMs, b.LoMs, "bins are contiguous")
				}
			}
			assert.Equal(t, want, got)
			widthRatio := (bins[1].HiMs - bins[1].LoMs) / (bins[0].HiMs - bins[0].LoMs)
			if tc.log {
				assert.Greater(t, widthRatio, 1.01, "log-scale bins widen")
			} else {
				assert.InDelta(t, 1, widthRatio, 1e-9, "linear bins are equal")
			}
		})
	}
	assert.Equal(t, []stats.Bin{{LoMs: 5, HiMs: 5, Count: 3}}, stats.Histogram([]float64{5, 5, 5}))
	assert.Nil(t, stats.Histogram(nil))
}

// The generated debug log: fires as core/engine/log.go writes them, and what a plain
// computation expects of them.

type genHook struct {
	id, source string
	line       int
}

var genHooks = []genHook{
	{"fmt", "/p/.claude/settings.json", 4},
	{"guard", "/p/.claude/settings.json", 9},
	{"fmt", "/home/u/.claude/settings.json", 6}, // the same id elsewhere is another hook
	{"notify", "/home/u/.claude/settings.json", 12},
	{"lint", "/p/.codex/hooks.json", 0},
}

var genEvents = []string{"PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit"}

type expectHook struct {
	ms                     []float64
	decisions              map[string]int
	timedOut, errors, runs int
	events                 map[string]bool
}

type expectEvent struct {
	ms                   []float64
	blocked              int
	decisions            map[string]int
	runs, timedOut, errs int
}

type generated struct {
	fires  []genFire
	lines  []string // the fires as debug log lines
	hooks  map[genHook]*expectHook
	events map[string]*expectEvent
}

// genFire is one generated fire; hooks holds every hook of the event, run or not.
type genFire struct {
	at         time.Time
	event      string
	durationMs float64
	blocked    bool
	decision   string
	hooks      []genRun
}

type genRun struct {
	h        genHook
	ran      bool
	kept     bool // selected but kept from running by an earlier block
	ms       float64
	decision string
	timedOut bool
	errText  string
}

// us rounds to the microsecond, as both logs keep durations.
func us(ms float64) float64 { return math.Round(ms*1000) / 1000 }

func generate(rng *rand.Rand, fires int, start time.Time, keep func(event string, at time.Time) bool) *generated {
	g := &generated{hooks: map[genHook]*expectHook{}, events: map[string]*expectEvent{}}
	decisions := []string{"none", "none", "allow", "ask", "deny", "defer"}
	for i := range fires {
		f := genFire{at: start.Add(time.Duration(i) * time.Minute), event: genEvents[rng.IntN(len(genEvents))]}
		sum := 0.0
		for _, h := range genHooks {
			r := genRun{h: h}
			switch rng.IntN(4) {
			case 0: // not run: the matcher said no
			case 1:
				r.kept = true
			default:
				r.ran, r.ms, r.decision = true, us(rng.ExpFloat64()*80), decisions[rng.IntN(len(decisions))]
				switch rng.IntN(10) {
				case 0:
					r.timedOut, r.errText = true, "timed out after 1s"
				case 1:
					r.errText = "cannot start: nope: command not found"
				}
				sum += r.ms
			}
			f.hooks = append(f.hooks, r)
		}
		f.blocked, f.decision, f.durationMs = rng.IntN(5) == 0, decisions[rng.IntN(len(decisions))], us(sum+0.25)
		g.fires = append(g.fires, f)
		g.lines = append(g.lines, debugLine(f))
		if keep(f.event, f.at) {
			g.expect(f)
		}
	}
	return g
}

// debugLine writes a fire as core/engine/log.go does.
func debugLine(f genFire) string {
	var hooks []map[string]any
	matched := 0
	for _, r := range f.hooks {
		entry := map[string]any{"id": r.h.id, "event": f.event, "source": r.h.source, "matcher": "*", "exec": "shell", "command": "sleep 0"}
		if r.h.line > 0 {
			entry["line"] = r.h.line
		}
		switch {
		case r.kept:
			entry["runs"], entry["ran"], entry["exit_code"], entry["error"] = true, false, 0, "not run: an earlier hook blocked"
		case !r.ran:
			entry["runs"], entry["check"], entry["reason"], entry["ran"] = false, "matcher", "no match", false
		default:
			matched++
			entry["runs"], entry["ran"], entry["exit_code"], entry["duration_ms"], entry["decision"] = true, true, 0, r.ms, r.decision
			if r.timedOut {
				entry["timed_out"] = true
			}
			if r.errText != "" {
				entry["error"] = r.errText
			}
		}
		hooks = append(hooks, entry)
	}
	b, err := json.Marshal(map[string]any{"time": f.at.UTC().Format(time.RFC3339Nano), "event": f.event, "subject": "Bash", "subject_field": "tool_name",
		"matched": matched, "blocked": f.blocked, "decision": f.decision, "reason": "", "continue": true, "duration_ms": f.durationMs, "hooks": hooks})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// expect adds a counted fire to what the summary must say, computed plainly.
func (g *generated) expect(f genFire) {
	e := g.events[f.event]
	if e == nil {
		e = &expectEvent{decisions: map[string]int{}}
		g.events[f.event] = e
	}
	e.ms = append(e.ms, f.durationMs)
	e.decisions[f.decision]++
	if f.blocked {
		e.blocked++
	}
	for _, r := range f.hooks {
		if !r.ran {
			continue
		}
		x := g.hooks[r.h]
		if x == nil {
			x = &expectHook{decisions: map[string]int{}, events: map[string]bool{}}
			g.hooks[r.h] = x
		}
		x.ms = append(x.ms, r.ms)
		x.decisions[r.decision]++
		x.events[f.event] = true
		x.runs++
		e.runs++
		if r.timedOut {
			x.timedOut++
			e.timedOut++
		} else if r.errText != "" {
			x.errors++
			e.errs++
		}
	}
}

func decisionMap(d stats.Decisions) map[string]int {
	m := map[string]int{}
	for k, v := range map[string]int{"none": d.None, "allow": d.Allow, "ask": d.Ask, "defer": d.Defer, "deny": d.Deny, "block": d.Block, "other": d.Other} {
		if v > 0 {
			m[k] = v
		}
	}
	return m
}

// checkLatency compares a Latency with the plain computation of its values.
func checkLatency(t *testing.T, what string, values []float64, l stats.Latency) {
	t.Helper()
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	assert.Equal(t, len(values), l.Count, what)
	assert.InDelta(t, sum, l.TotalMs, 1e-6, what)
	assert.Equal(t, slices.Min(values), l.MinMs, what)
	assert.Equal(t, slices.Max(values), l.MaxMs, what)
	assert.Equal(t, nearestRank(values, 50), l.P50Ms, what)
	assert.Equal(t, nearestRank(values, 90), l.P90Ms, what)
	assert.Equal(t, nearestRank(values, 99), l.P99Ms, what)
}

func checkSummary(t *testing.T, g *generated, s *stats.Summary) {
	t.Helper()
	require.Len(t, s.Hooks, len(g.hooks))
	for _, h := range s.Hooks {
		x := g.hooks[genHook{h.ID, h.Source, h.Line}]
		require.NotNil(t, x, "unexpected hook %s %s", h.ID, h.Where())
		what := h.ID + " " + h.Where()
		checkLatency(t, what, x.ms, h.Latency)
		assert.Equal(t, x.decisions, decisionMap(h.Decisions), what)
		assert.Equal(t, x.timedOut, h.TimedOut, what)
		assert.Equal(t, x.errors, h.Errors, what)
		assert.Equal(t, slices.Sorted(func(yield func(string) bool) {
			for e := range x.events {
				if !yield(e) {
					return
				}
			}
		}), h.Events, what)
		total := 0
		for _, b := range h.Histogram {
			total += b.Count
		}
		assert.Equal(t, x.runs, total, "%s: the histogram holds every run", what)
	}
	require.Len(t, s.Events, len(g.events))
	fires := 0
	for _, e := range s.Events {
		x := g.events[e.Event]
		require.NotNil(t, x, e.Event)
		checkLatency(t, e.Event, x.ms, e.Latency)
		assert.Equal(t, x.blocked, e.Blocked, e.Event)
		assert.Equal(t, x.decisions, decisionMap(e.Decisions), e.Event)
		assert.Equal(t, x.runs, e.HookRuns, e.Event)
		assert.Equal(t, x.timedOut, e.TimedOut, e.Event)
		assert.Equal(t, x.errs, e.Errors, e.Event)
		fires += len(x.ms)
	}
	assert.Equal(t, fires, s.Fires)
	assert.True(t, sort.SliceIsSorted(s.Hooks, func(i, j int) bool { return s.Hooks[i].TotalMs > s.Hooks[j].TotalMs }), "by total time")
}

func TestAggregateGeneratedLog(t *testing.T) {
	t.Parallel()
	g := generate(rand.New(rand.NewPCG(5, 6)), 3000, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), func(string, time.Time) bool { return true })
	agg := stats.New(stats.Filter{})
	rep, err := agg.ReadFile(strings.NewReader(strings.Join(g.lines, "\n")+"\n"), "gen.log")
	require.NoError(t, err)
	assert.Equal(t, stats.FileReport{Name: "gen.log", Kind: stats.KindDebug, Lines: 3000, Fires: 3000}, rep)
	s := agg.Summary()
	checkSummary(t, g, s)
	assert.Equal(t, 0, s.Bad)
	assert.Equal(t, 0, s.Excluded)
}

func TestAggregateFilters(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	since := start.Add(400 * time.Minute)
	keep := func(ev string, at time.Time) bool {
		return (ev == "PreToolUse" || ev == "Stop") && !at.Before(since)
	}
	g := generate(rand.New(rand.NewPCG(7, 8)), 1000, start, keep)
	agg := stats.New(stats.Filter{Events: []string{"PreToolUse", "Stop"}, Since: since})
	_, err := agg.ReadFile(strings.NewReader(strings.Join(g.lines, "\n")), "gen.log") // no final newline
	require.NoError(t, err)
	s := agg.Summary()
	checkSummary(t, g, s)
	assert.Equal(t, 1000, s.Fires+s.Excluded)

	// A fire whose time is unreadable is left out by --since and kept without it.
	line := `{"time":"yesterday","event":"Stop","matched":0,"blocked":false,"decision":"none","duration_ms":1,"hooks":[]}`
	for _, tc := range []struct {
		f     stats.Filter
		fires int
	}{{stats.Filter{Since: since}, 0}, {stats.Filter{}, 1}} {
		agg := stats.New(tc.f)
		_, err := agg.ReadFile(strings.NewReader(line), "x")
		require.NoError(t, err)
		assert.Equal(t, tc.fires, agg.Summary().Fires)
	}
}

func TestBadLines(t *testing.T) {
	t.Parallel()
	g := generate(rand.New(rand.NewPCG(9, 10)), 6, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), func(string, time.Time) bool { return true })
	huge := `{"event":"Stop","matched":0,"hooks":[],"reason":"` + strings.Repeat("x", stats.MaxLine) + `"}`
	lines := []string{
		"not json at all",                     // 1: before the kind is known
		g.lines[0],                            // 2
		"",                                    // 3: blank, not bad
		`{"event":"Stop","matched":0,`,        // 4: cut mid-write
		g.lines[1],                            // 5
		`[1,2,3]`,                             // 6
		`{"hello":"world"}`,                   // 7: JSON, another kind
		huge,                                  // 8
		g.lines[2],                            // 9
		`{"event":"","matched":0,"hooks":[]}`, // 10: no event
		`{"event":"Stop","matched":"x","hooks":[]}`, // 11: wrong type
		"\x00\xff\xfe",                     // 12
		g.lines[3], g.lines[4], g.lines[5], // 13-15
		`{"event":"Stop","matched":0,"hooks":[{"id":"x","ran":true,"duration_ms":"slow"}]}`, // 16
		`{"event":"Stop","matched":0,"duration_ms":-1,"hooks":[]}`,                          // 17
		`{"event":"Stop","matched":0,"hooks":[{"id":"x","ran":true,"duration_ms":1e300}]}`,  // 18
	}
	agg := stats.New(stats.Filter{})
	rep, err := agg.ReadFile(strings.NewReader(strings.Join(lines, "\n")+"\n"), "bad.log")
	require.NoError(t, err)
	assert.Equal(t, stats.KindDebug, rep.Kind)
	assert.Equal(t, 18, rep.Lines)
	assert.Equal(t, 6, rep.Fires)
	assert.Equal(t, 11, rep.Bad)
	var at []int
	for _, b := range rep.BadSamples {
		at = append(at, b.Line)
		assert.NotEmpty(t, b.Why)
	}
	assert.Equal(t, []int{1, 4, 6, 7, 8, 10, 11, 12, 16, 17}, at, "the first ten")
	assert.Equal(t, "not a JSON object", rep.BadSamples[1].Why, "cut mid-write, after the kind is known")
	assert.Contains(t, rep.BadSamples[4].Why, "longer than")
	assert.Contains(t, rep.BadSamples[3].Why, "not a line of a debug log")
	assert.Contains(t, rep.BadSamples[9].Why, "duration_ms of -1")
	checkSummary(t, g, agg.Summary())

	// Only the first few are named; all are counted.
	agg = stats.New(stats.Filter{})
	rep, err = agg.ReadFile(strings.NewReader(strings.Repeat("junk\n", 1000)), "junk.log")
	require.NoError(t, err)
	assert.Equal(t, 1000, rep.Bad)
	assert.Len(t, rep.BadSamples, 10)
	assert.Equal(t, stats.Kind(""), rep.Kind)
	assert.Equal(t, 1000, agg.Summary().Bad)
}

func TestSort(t *testing.T) {
	t.Parallel()
	hooks := []stats.HookStats{
		{ID: "b", Latency: stats.Latency{Count: 1, TotalMs: 10, P99Ms: 10, MaxMs: 10}},
		{ID: "a", Source: "y", Latency: stats.Latency{Count: 5, TotalMs: 10, P99Ms: 3, MaxMs: 3}, TimedOut: 2},
		{ID: "a", Source: "x", Latency: stats.Latency{Count: 2, TotalMs: 30, P99Ms: 20, MaxMs: 20}},
	}
	order := func(key string) string {
		h := slices.Clone(hooks)
		require.NoError(t, stats.Sort(h, key))
		var ids []string
		for _, x := range h {
			ids = append(ids, x.ID+x.Source)
		}
		return strings.Join(ids, " ")
	}
	assert.Equal(t, "ax ay b", order(stats.SortTotal), "ties by id")
	assert.Equal(t, "ay ax b", order(stats.SortCount))
	assert.Equal(t, "ax b ay", order(stats.SortP99))
	assert.Equal(t, "ay ax b", order(stats.SortTimeouts))
	assert.Equal(t, "ax ay b", order(stats.SortID))
	err := stats.Sort(hooks, "speed")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "total, count")
}

// A log far larger than what the aggregator keeps is read as a stream: after reading
// 20 MB the heap holds a small fraction of it.
func TestStreamsLargeLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 20 MB")
	}
	const fires = 10000
	pad := strings.Repeat("p", 2000)
	r, w := io.Pipe()
	go func() {
		for i := range fires {
			fmt.Fprintf(w, `{"time":"2026-01-02T03:04:05Z","event":"Stop","matched":1,"blocked":false,"decision":"none","duration_ms":%d,"hooks":[{"id":"h","source":"s","ran":true,"command":"%s","duration_ms":%d}]}`+"\n", i%97, pad, i%89)
		}
		w.Close()
	}()
	agg := stats.New(stats.Filter{})
	rep, err := agg.ReadFile(r, "big.log")
	require.NoError(t, err)
	require.Equal(t, fires, rep.Fires)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	t.Logf("read %d MB; heap in use after: %.1f MB", fires*(len(pad)+200)>>20, float64(m.HeapInuse)/(1<<20))
	assert.Less(t, m.HeapInuse, uint64(8<<20), "the log is not kept")
	s := agg.Summary()
	require.Len(t, s.Hooks, 1)
	assert.Equal(t, fires, s.Hooks[0].Count)
}
