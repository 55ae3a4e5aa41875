package telemetry

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hookexec/hookexec/core/observe"
)

// The SDK's in-memory exporters stand in for a collector here: these tests check what the
// sink hands the SDK. What reaches a real collector over gRPC and HTTP is checked in
// collector_test.go.

// logRecorder is an in-memory log exporter (the log SDK has none).
type logRecorder struct {
	mu      sync.Mutex
	records []sdklog.Record
}

func (l *logRecorder) Export(_ context.Context, rs []sdklog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range rs {
		l.records = append(l.records, r.Clone())
	}
	return nil
}
func (l *logRecorder) Shutdown(context.Context) error   { return nil }
func (l *logRecorder) ForceFlush(context.Context) error { return nil }

// keptSpans is the SDK's in-memory span exporter, whose Shutdown would forget the spans.
type keptSpans struct{ *tracetest.InMemoryExporter }

func (keptSpans) Shutdown(context.Context) error { return nil }

type memory struct {
	spans   *tracetest.InMemoryExporter
	metrics *sdkmetric.ManualReader
	logs    *logRecorder
}

func memorySink(t *testing.T, c *Config) (*Sink, *memory) {
	t.Helper()
	m := &memory{spans: tracetest.NewInMemoryExporter(), metrics: sdkmetric.NewManualReader(), logs: &logRecorder{}}
	s, err := newSink(c, func(*Config) (exporters, error) {
		return exporters{spans: keptSpans{m.spans}, metrics: m.metrics, logs: m.logs}, nil
	})
	require.NoError(t, err)
	return s, m
}

func testConfig(t *testing.T) *Config {
	return &Config{Service: t.Name(), SpanDelay: time.Millisecond, LogDelay: time.Millisecond, MetricInterval: time.Hour}
}

const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

func sampleFire() *observe.Fire {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	return &observe.Fire{
		Start: t0, Duration: 80 * time.Millisecond, Event: "PreToolUse", Profile: "claude", SessionID: "s1",
		Subject: "Bash", SubjectField: "tool_name", Payload: []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`),
		Matched: 2, Blocked: true, Decision: "deny", Reason: "no rm", Continue: true, TraceParent: parent, TraceState: "vendor=1",
		Hooks: []observe.Hook{
			{ID: "guard", Source: "/p/.claude/settings.json", Line: 7, Type: "command", Exec: "direct", Matcher: "Bash",
				Command: "guard.sh --secret", Start: t0.Add(time.Millisecond), Duration: 50 * time.Millisecond, Ran: true,
				ExitCode: 2, Decision: "deny"},
			{ID: "slow", Source: "/p/.claude/settings.json", Line: 9, Type: "command", Exec: "shell", Matcher: "Bash",
				Command: "sleep 9", Start: t0.Add(time.Millisecond), Duration: 70 * time.Millisecond, Ran: true,
				ExitCode: -1, TimedOut: true, Decision: "deny", Error: "timed out after 70ms", FailClosed: true,
				Persistent: true, Warm: true, Restarted: true},
		},
	}
}

func attrs(kv []attribute.KeyValue) map[string]any {
	m := map[string]any{}
	for _, a := range kv {
		m[string(a.Key)] = a.Value.AsInterface()
	}
	return m
}

func TestSpansJoinTheCallersTrace(t *testing.T) {
	s, m := memorySink(t, testConfig(t))
	s.Observe(sampleFire())
	require.NoError(t, s.Close(time.Now().Add(5*time.Second)))

	spans := m.spans.GetSpans()
	require.Len(t, spans, 3)
	fire := spans[2] // the fire's span ends last
	assert.Equal(t, "fire PreToolUse", fire.Name)
	assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", fire.SpanContext.TraceID().String())
	assert.Equal(t, "b7ad6b7169203331", fire.Parent.SpanID().String(), "the fire's parent is the caller's span")
	assert.True(t, fire.Parent.IsRemote())
	assert.Equal(t, "vendor=1", fire.SpanContext.TraceState().String())
	assert.Equal(t, 80*time.Millisecond, fire.EndTime.Sub(fire.StartTime))
	fa := attrs(fire.Attributes)
	assert.Equal(t, "PreToolUse", fa["hookexec.event"])
	assert.Equal(t, "claude", fa["gen_ai.agent.name"])
	assert.Equal(t, "s1", fa["gen_ai.conversation.id"])
	assert.Equal(t, "Bash", fa["gen_ai.tool.name"])
	assert.Equal(t, int64(2), fa["hookexec.matched"])
	assert.Equal(t, "deny", fa["hookexec.decision"])
	assert.Equal(t, true, fa["hookexec.blocked"])
	for _, k := range []string{"hookexec.reason", "hookexec.payload", "hookexec.hook.command", "hookexec.hook.error"} {
		assert.NotContains(t, fa, k, "content is off by default")
	}

	for i, h := range spans[:2] {
		assert.Equal(t, fire.SpanContext.SpanID(), h.Parent.SpanID(), "hook spans sit in the fire's")
		ha := attrs(h.Attributes)
		assert.Equal(t, "execute_hook", ha["gen_ai.operation.name"])
		assert.Equal(t, "/p/.claude/settings.json", ha["code.file.path"])
		assert.NotContains(t, ha, "hookexec.hook.command")
		assert.NotContains(t, ha, "hookexec.hook.error")
		if i == 0 {
			assert.Equal(t, "execute_hook guard", h.Name)
			assert.Equal(t, int64(7), ha["code.line.number"])
			assert.Equal(t, int64(2), ha["process.exit.code"])
			assert.Equal(t, 50*time.Millisecond, h.EndTime.Sub(h.StartTime))
			assert.NotContains(t, ha, "hookexec.hook.warm", "warm or cold only for persistent hooks")
		} else {
			assert.Equal(t, true, ha["hookexec.hook.timed_out"])
			assert.Equal(t, true, ha["hookexec.hook.fail_closed"])
			assert.Equal(t, true, ha["hookexec.hook.warm"])
			assert.Equal(t, true, ha["hookexec.hook.restarted"])
			assert.Equal(t, "timeout", ha["error.type"])
			assert.NotContains(t, ha, "process.exit.code", "a hook that did not exit has no exit code")
			assert.Equal(t, "timeout", h.Status.Description, "the error text is content")
		}
	}

	m.logs.mu.Lock()
	defer m.logs.mu.Unlock()
	require.Len(t, m.logs.records, 1)
	r := m.logs.records[0]
	assert.Equal(t, "hookexec.decision", r.EventName())
	assert.Equal(t, "deny", r.Body().AsString())
	assert.Equal(t, fire.SpanContext.TraceID(), r.TraceID(), "the decision record is in the fire's trace")
	assert.Equal(t, fire.SpanContext.SpanID(), r.SpanID())
	la := map[string]any{}
	r.WalkAttributes(func(a attribute.KeyValue) bool { la[string(a.Key)] = a.Value.AsInterface(); return true })
	assert.Equal(t, []string{"guard", "slow"}, la["hookexec.hook.ids"])
	assert.NotContains(t, la, "hookexec.reason")
}

func TestContentOnlyWhenAsked(t *testing.T) {
	c := testConfig(t)
	c.Content = true
	s, m := memorySink(t, c)
	s.Observe(sampleFire())
	require.NoError(t, s.Close(time.Now().Add(5*time.Second)))
	spans := m.spans.GetSpans()
	require.Len(t, spans, 3)
	fa := attrs(spans[2].Attributes)
	assert.Equal(t, "no rm", fa["hookexec.reason"])
	assert.Contains(t, fa["hookexec.payload"], "rm -rf /")
	ha := attrs(spans[1].Attributes)
	assert.Equal(t, "sleep 9", ha["hookexec.hook.command"])
	assert.Equal(t, "timed out after 70ms", ha["hookexec.hook.error"])
	assert.Equal(t, "timed out after 70ms", spans[1].Status.Description)
}

func TestNoParentStartsATrace(t *testing.T) {
	s, m := memorySink(t, testConfig(t))
	f := sampleFire()
	f.TraceParent, f.TraceState = "", ""
	s.Observe(f)
	f2 := sampleFire()
	f2.TraceParent = "00-zz-not-a-traceparent-01" // ignored as W3C says, not an error
	s.Observe(f2)
	require.NoError(t, s.Close(time.Now().Add(5*time.Second)))
	spans := m.spans.GetSpans()
	require.Len(t, spans, 6)
	assert.False(t, spans[2].Parent.IsValid())
	assert.False(t, spans[5].Parent.IsValid())
	assert.NotEqual(t, spans[2].SpanContext.TraceID(), spans[5].SpanContext.TraceID())
}

func TestMetrics(t *testing.T) {
	s, m := memorySink(t, testConfig(t))
	s.Observe(sampleFire())
	s.Observe(sampleFire())
	var rm metricdata.ResourceMetrics
	require.Eventually(t, func() bool {
		rm = metricdata.ResourceMetrics{}
		require.NoError(t, m.metrics.Collect(context.Background(), &rm))
		return sum(rm, metricFires, nil) == 2
	}, 5*time.Second, 5*time.Millisecond)
	guard := map[string]string{"hookexec.hook.id": "guard", "hookexec.event": "PreToolUse", "hookexec.hook.decision": "deny"}
	assert.Equal(t, int64(2), sum(rm, metricHookRuns, guard))
	assert.Equal(t, int64(2), sum(rm, metricTimeouts, map[string]string{"hookexec.hook.id": "slow"}))
	assert.Equal(t, int64(0), sum(rm, metricTimeouts, map[string]string{"hookexec.hook.id": "guard"}))
	assert.Equal(t, int64(2), sum(rm, metricFailClosed, map[string]string{"hookexec.hook.id": "slow"}))
	assert.Equal(t, int64(2), sum(rm, metricRestarts, map[string]string{"hookexec.hook.id": "slow"}))
	assert.Equal(t, int64(0), sum(rm, metricDropped, nil))
	h := histogram(rm, metricHookDuration, guard)
	require.NotNil(t, h)
	assert.Equal(t, uint64(2), h.Count)
	assert.InDelta(t, 0.1, h.Sum, 1e-9)
	require.NoError(t, s.Close(time.Now().Add(5*time.Second)))
}

// sum adds up an int counter's points whose attributes include want.
func sum(rm metricdata.ResourceMetrics, name string, want map[string]string) int64 {
	var n int64
	for _, mt := range named(rm, name) {
		for _, dp := range mt.Data.(metricdata.Sum[int64]).DataPoints {
			if has(dp.Attributes, want) {
				n += dp.Value
			}
		}
	}
	return n
}

func histogram(rm metricdata.ResourceMetrics, name string, want map[string]string) *metricdata.HistogramDataPoint[float64] {
	for _, mt := range named(rm, name) {
		for _, dp := range mt.Data.(metricdata.Histogram[float64]).DataPoints {
			if has(dp.Attributes, want) {
				return &dp
			}
		}
	}
	return nil
}

func named(rm metricdata.ResourceMetrics, name string) []metricdata.Metrics {
	var out []metricdata.Metrics
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if mt.Name == name {
				out = append(out, mt)
			}
		}
	}
	return out
}

func has(set attribute.Set, want map[string]string) bool {
	for k, v := range want {
		if got, ok := set.Value(attribute.Key(k)); !ok || got.AsString() != v {
			return false
		}
	}
	return true
}

func TestEnginesShareOnePipeline(t *testing.T) {
	c := testConfig(t)
	builds := 0
	m := &memory{spans: tracetest.NewInMemoryExporter(), metrics: sdkmetric.NewManualReader(), logs: &logRecorder{}}
	build := func(*Config) (exporters, error) {
		builds++
		return exporters{spans: keptSpans{m.spans}, metrics: m.metrics, logs: m.logs}, nil
	}
	a, err := newSink(c, build)
	require.NoError(t, err)
	withContent := *c
	withContent.Content = true // content is per engine, not per pipeline
	b, err := newSink(&withContent, build)
	require.NoError(t, err)
	assert.Same(t, a.p, b.p)
	assert.Equal(t, 1, builds)
	require.NoError(t, a.Close(time.Now().Add(time.Second)))
	b.Observe(sampleFire()) // the pipeline outlives a's Close
	require.NoError(t, b.Close(time.Now().Add(5*time.Second)))
	spans := m.spans.GetSpans()
	require.Len(t, spans, 3)
	assert.Contains(t, attrs(spans[2].Attributes), "hookexec.payload", "b's fires carry b's content setting")

	registry.mu.Lock()
	_, kept := registry.m[c.key()]
	registry.mu.Unlock()
	assert.False(t, kept, "the last Close removes the pipeline")
	other := *c
	other.Service = "other"
	assert.NotEqual(t, c.key(), other.key())
}

// blockingExporter never finishes an export until released: a collector that accepts and
// never answers, as the SDK sees it.
type blockingExporter struct{ release chan struct{} }

func (b *blockingExporter) ExportSpans(ctx context.Context, _ []sdktrace.ReadOnlySpan) error {
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	return ctx.Err()
}
func (b *blockingExporter) Shutdown(context.Context) error { return nil }

func TestAStuckExporterDropsAndNeverWaits(t *testing.T) {
	stuck := &blockingExporter{release: make(chan struct{})}
	c := testConfig(t)
	s, err := newSink(c, func(*Config) (exporters, error) { return exporters{spans: stuck}, nil })
	require.NoError(t, err)
	f := sampleFire()
	const n = 3 * QueueSize
	var worst time.Duration
	for range n {
		t0 := time.Now()
		s.Observe(f)
		worst = max(worst, time.Since(t0))
	}
	assert.Less(t, worst, 50*time.Millisecond, "Observe never waits for the exporter")
	assert.Greater(t, s.Dropped(), int64(0), "a full queue drops and counts")
	t0 := time.Now()
	require.NoError(t, s.Close(time.Now().Add(time.Minute)))
	assert.Less(t, time.Since(t0), FlushBound+500*time.Millisecond, "Close waits at most FlushBound")
	close(stuck.release)
}
