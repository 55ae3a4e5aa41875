package telemetry

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Spans without the SDK's tracer. A fire's spans are finished before they are made: their
// times, attributes and status are all known when the worker reads the fire. So the worker
// writes them as finished spans (span below, what the SDK's End would have produced) and
// hands them, a batch at a time, to the same OTLP exporter the SDK's batch processor would
// call. What the collector receives is the same (TestDirectSpansAreTheSDKs compares the
// two paths); what is saved is the SDK's live span (a mutex, its attribute bookkeeping, a
// snapshot copied at End) and its batch processor's channel send per span.
//
// The SDK's tracer stays in use when the process's environment asks it for something the
// direct path does not do: a sampler (OTEL_TRACES_SAMPLER) or span limits
// (OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, ...) other than
// the defaults. The direct path samples as the default sampler does (parent-based, always
// on): a caller's trace that is not sampled exports no span.

// span is one finished span, as the exporter reads it. Embedding the interface provides
// ReadOnlySpan's unexported method (the way the SDK's own tracetest.SpanStub does); every
// method the exporters call is defined here.
type span struct {
	sdktrace.ReadOnlySpan
	name       string
	sc, parent trace.SpanContext
	start, end time.Time
	attrs      []attribute.KeyValue
	status     sdktrace.Status
	children   int
	resource   *resource.Resource
	scope      instrumentation.Scope
	spanKind   trace.SpanKind
}

func (s *span) Name() string                                    { return s.name }
func (s *span) SpanContext() trace.SpanContext                  { return s.sc }
func (s *span) Parent() trace.SpanContext                       { return s.parent }
func (s *span) SpanKind() trace.SpanKind                        { return s.spanKind }
func (s *span) StartTime() time.Time                            { return s.start }
func (s *span) EndTime() time.Time                              { return s.end }
func (s *span) Attributes() []attribute.KeyValue                { return s.attrs }
func (s *span) Links() []sdktrace.Link                          { return nil }
func (s *span) Events() []sdktrace.Event                        { return nil }
func (s *span) Status() sdktrace.Status                         { return s.status }
func (s *span) InstrumentationScope() instrumentation.Scope     { return s.scope }
func (s *span) Resource() *resource.Resource                    { return s.resource }
func (s *span) DroppedAttributes() int                          { return 0 }
func (s *span) DroppedLinks() int                               { return 0 }
func (s *span) DroppedEvents() int                              { return 0 }
func (s *span) ChildSpanCount() int                             { return s.children }
func (s *span) InstrumentationLibrary() instrumentation.Library { return s.scope } //nolint:staticcheck // part of ReadOnlySpan

// directSpans reports whether the process's environment leaves the SDK's tracer at its
// defaults, so that spans may be written directly (see above).
func directSpans() bool {
	if os.Getenv("OTEL_TRACES_SAMPLER") != "" {
		return false
	}
	l := sdktrace.NewSpanLimits() // reads the OTEL_SPAN_* and OTEL_ATTRIBUTE_* limits
	return l.AttributeValueLengthLimit == sdktrace.DefaultAttributeValueLengthLimit &&
		l.AttributeCountLimit == sdktrace.DefaultAttributeCountLimit &&
		l.AttributeValueDepthLimit == sdktrace.DefaultAttributeValueDepthLimit
}

// sampler is the SDK's default, which the direct path follows.
var sampler = sdktrace.ParentBased(sdktrace.AlwaysSample())

// newSpanID is a random non-zero span id, as the SDK's default generator makes them
// (math/rand/v2's generator: ChaCha8, seeded from the system's randomness).
func newSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		binary.NativeEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}

func newTraceID() trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		binary.NativeEndian.PutUint64(id[:8], rand.Uint64())
		binary.NativeEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

// spanContext is what the SDK's tracer gives a new span under the parent in ctx: the
// parent's trace (else a new one), a new span id, the sampler's decision and trace state.
// sampled false: the span is not recorded.
func spanContext(ctx context.Context, name string, attrs []attribute.KeyValue) (sc trace.SpanContext, sampled bool) {
	psc := trace.SpanContextFromContext(ctx)
	tid := psc.TraceID()
	if !tid.IsValid() {
		tid = newTraceID()
	}
	sid := newSpanID()
	r := sampler.ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: tid, Name: name,
		Kind: trace.SpanKindInternal, Attributes: attrs})
	flags := psc.TraceFlags() &^ trace.FlagsSampled
	sampled = r.Decision == sdktrace.RecordAndSample
	if sampled {
		flags |= trace.FlagsSampled
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceState: r.Tracestate, TraceFlags: flags}), sampled
}

// spanBatches exports the worker's finished spans: it gathers them as the SDK's batch
// processor does (up to maxBatch, or for SpanDelay after the first), and exports one batch
// at a time. When the exporter is slow the worker waits to hand over the next batch and the
// fires wait in the pipeline's queue, where a full queue drops and counts: as with the
// SDK's processor in blocking mode, no span is dropped uncounted.
type spanBatches struct {
	exp   sdktrace.SpanExporter
	delay time.Duration
	in    chan []sdktrace.ReadOnlySpan
	done  chan struct{}
	ctx   context.Context // cancelled when shutdown's deadline passes
}

// maxBatch is the SDK's default batch size (OTEL_BSP_MAX_EXPORT_BATCH_SIZE); exportTimeout
// its export timeout (OTEL_BSP_EXPORT_TIMEOUT).
const (
	maxBatch      = 512
	exportTimeout = 30 * time.Second
)

func newSpanBatches(ctx context.Context, exp sdktrace.SpanExporter, delay time.Duration) *spanBatches {
	b := &spanBatches{exp: exp, delay: delay, in: make(chan []sdktrace.ReadOnlySpan, 1), done: make(chan struct{}), ctx: ctx}
	go b.run()
	return b
}

func (b *spanBatches) run() {
	defer close(b.done)
	var pending []sdktrace.ReadOnlySpan
	timer := time.NewTimer(b.delay)
	timer.Stop()
	for {
		select {
		case spans, ok := <-b.in:
			if !ok {
				b.export(pending)
				return
			}
			if len(pending) == 0 {
				timer.Reset(b.delay)
			}
			pending = append(pending, spans...)
			for len(pending) >= maxBatch {
				b.export(pending[:maxBatch])
				pending = append(pending[:0:0], pending[maxBatch:]...)
			}
			if len(pending) == 0 {
				timer.Stop()
			}
		case <-timer.C:
			b.export(pending)
			pending = nil
		}
	}
}

func (b *spanBatches) export(spans []sdktrace.ReadOnlySpan) {
	if len(spans) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, exportTimeout)
	defer cancel()
	if err := b.exp.ExportSpans(ctx, spans); err != nil {
		otel.Handle(err) // counted, never shown (silence), as the SDK's processor reports it
	}
}

// stop waits for the spans handed over to be exported (the worker closes in when it has
// handed over its last batch) and shuts the exporter down, by ctx's deadline.
func (b *spanBatches) stop(ctx context.Context) error {
	select {
	case <-b.done:
	case <-ctx.Done():
	}
	return b.exp.Shutdown(ctx)
}

// flushSpans hands the spans the worker wrote to the exporting goroutine; it waits while
// that goroutine is still busy with the previous batch (the exporter is slow).
func (p *pipeline) flushSpans() {
	if len(p.batch) == 0 {
		return
	}
	p.batches.in <- p.batch
	p.batch = nil
}

// addSpan queues a finished span for the next hand-over; a full batch is handed over now.
func (p *pipeline) addSpan(s *span) {
	p.batch = append(p.batch, s)
	if len(p.batch) >= maxBatch {
		p.flushSpans()
	}
}
