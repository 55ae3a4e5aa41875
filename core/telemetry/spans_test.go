package telemetry

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookexec/hookexec/core/observe"
)

// exportBoth runs the fires through a pipeline writing spans directly and through one using
// the SDK's tracer (OTEL_TRACES_SAMPLER set to the SDK's default sampler, which is what
// keeps the SDK path), and returns the spans and records each exported.
func exportBoth(t *testing.T, content bool, fires ...*observe.Fire) (direct, sdk *memory) {
	run := func(t *testing.T, viaSDK bool) *memory {
		if viaSDK {
			t.Setenv("OTEL_TRACES_SAMPLER", "parentbased_always_on")
		}
		c := testConfig(t)
		c.Service, c.Content = "equivalence", content
		s, m := memorySink(t, c)
		require.Equal(t, !viaSDK, s.p.batches != nil, "the path under test")
		for _, f := range fires {
			s.Observe(f)
		}
		require.NoError(t, s.Close(time.Now().Add(5*time.Second)))
		return m
	}
	direct = run(t, false)
	t.Run("sdk", func(t *testing.T) { sdk = run(t, true) }) // the variable is the subtest's only
	return direct, sdk
}

// normal is a span with the ids that are random in each run replaced by where they point:
// the index of the span they name, or "caller" for the caller's span.
type normal struct {
	tracetest.SpanStub
	Parent, TraceID string
}

func normalize(t *testing.T, spans tracetest.SpanStubs) []normal {
	t.Helper()
	index := map[trace.SpanID]int{}
	for i, s := range spans {
		index[s.SpanContext.SpanID()] = i
	}
	out := make([]normal, len(spans))
	for i, s := range spans {
		n := normal{SpanStub: s, Parent: "none", TraceID: "new"}
		if s.Parent.IsValid() {
			if j, ok := index[s.Parent.SpanID()]; ok {
				n.Parent = spans[j].Name
			} else {
				n.Parent = "caller " + s.Parent.SpanID().String()
			}
		}
		if s.SpanContext.TraceID().String() == "0af7651916cd43dd8448eb211c80319c" {
			n.TraceID = "caller's"
		}
		n.SpanContext = trace.NewSpanContext(trace.SpanContextConfig{TraceFlags: s.SpanContext.TraceFlags(), TraceState: s.SpanContext.TraceState()})
		n.Parent += map[bool]string{true: " remote", false: ""}[s.Parent.IsRemote()]
		n.SpanStub.Parent = trace.SpanContext{}
		// The SDK's scope has an empty attribute set, the direct one the zero set: the same
		// nothing on the wire.
		assert.Equal(t, 0, n.InstrumentationScope.Attributes.Len())
		n.InstrumentationScope.Attributes = attribute.NewSet()
		out[i] = n
	}
	return out
}

// TestDirectSpansAreTheSDKs: the spans written directly are those the SDK's tracer makes
// from the same fires, field by field (ids aside, which are random: where they point is
// compared), with and without content, joined to a caller's trace or starting one; and
// a caller's trace that is not sampled exports no span on either path, while its decision
// record still carries the caller's trace.
func TestDirectSpansAreTheSDKs(t *testing.T) {
	noParent := sampleFire()
	noParent.TraceParent, noParent.TraceState = "", ""
	unsampled := sampleFire()
	unsampled.TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
	ok := sampleFire()
	ok.Hooks[0].Error, ok.Hooks[0].ExitCode, ok.Hooks[0].Decision = "", 0, "allow"
	notRun := sampleFire()
	notRun.Hooks[1] = observe.Hook{ID: "later", Source: "<inline>", Type: "command", ExitCode: -1}
	for _, content := range []bool{false, true} {
		direct, sdk := exportBoth(t, content, sampleFire(), noParent, unsampled, ok, notRun)
		d, s := direct.spans.GetSpans(), sdk.spans.GetSpans()
		require.Len(t, d, 12, "three spans for each sampled fire")
		require.Len(t, s, 12)
		assert.Equal(t, normalize(t, s), normalize(t, d), "content %v", content)

		for _, m := range []*memory{direct, sdk} {
			m.logs.mu.Lock()
			require.Len(t, m.logs.records, 5)
			r := m.logs.records[2] // the unsampled caller's fire
			assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", r.TraceID().String())
			assert.False(t, r.TraceFlags().IsSampled())
			assert.True(t, r.SpanID().IsValid())
			m.logs.mu.Unlock()
		}
	}
}

// TestDirectSpansUnderLoad: fires past a batch's size all arrive, in order, a batch of at
// most maxBatch at a time.
func TestDirectSpansUnderLoad(t *testing.T) {
	s, m := memorySink(t, testConfig(t))
	sizes := &batchSizes{SpanExporter: keptSpans{m.spans}}
	s.p.batches.exp = sizes
	const n = maxBatch + 37
	for i := range n {
		f := sampleFire()
		f.Duration = time.Duration(i+1) * time.Microsecond
		s.Observe(f)
	}
	// Close waits at most FlushBound: wait for the spans first (a slow machine, -race).
	require.Eventually(t, func() bool { return len(m.spans.GetSpans()) == 3*n }, 30*time.Second, 10*time.Millisecond)
	require.NoError(t, s.Close(time.Now().Add(5*time.Second)))
	spans := m.spans.GetSpans()
	for i := range n {
		require.Equal(t, time.Duration(i+1)*time.Microsecond, spans[3*i+2].EndTime.Sub(spans[3*i+2].StartTime), "fire %d", i)
	}
	sizes.mu.Lock()
	defer sizes.mu.Unlock()
	assert.LessOrEqual(t, slices.Max(sizes.n), maxBatch)
	assert.Greater(t, len(sizes.n), 1)
}

// batchSizes records the size of every batch exported.
type batchSizes struct {
	sdktrace.SpanExporter
	mu sync.Mutex
	n  []int
}

func (b *batchSizes) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	b.mu.Lock()
	b.n = append(b.n, len(spans))
	b.mu.Unlock()
	return b.SpanExporter.ExportSpans(ctx, spans)
}
