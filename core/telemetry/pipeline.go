package telemetry

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	lognoop "go.opentelemetry.io/otel/log/noop"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/hookexec/hookexec/core/observe"
	"github.com/hookexec/hookexec/core/version"
)

// A pipeline is one set of OpenTelemetry SDK providers (traces, metrics, logs) with their
// exporters, and the one goroutine that turns queued fires into spans, metric points and
// log records. Every sink of one Config in the process shares it (the daemon's engines,
// one per agent and project, or a host's several engines), so engines that come and go do
// not each start exporters; the last sink's Close shuts it down.

// QueueSize bounds the fires waiting to be exported; a fire that finds the queue full is
// dropped from telemetry (and counted in hookexec.telemetry.dropped), never waited for.
const QueueSize = 4096

// Gather is how long the worker, woken by the first fire after it went idle, lets fires
// accumulate before it exports them all: a fire does not wake it (a futex call and a
// thread to schedule, on the fire's own time) unless the worker is idle, so at most one
// fire per Gather pays for a wake. A queue half full wakes it at once. Spans, metric
// points and records carry the fire's own times, so the delay shows nowhere.
const Gather = 20 * time.Millisecond

// FlushBound is the longest a pipeline's shutdown waits for what is queued to be exported:
// the last engine's Close (a one-shot CLI run, the daemon's exit) takes at most this more
// when the collector is slow or gone, and less when its Close deadline is sooner.
const FlushBound = time.Second

// scope is the instrumentation scope of everything hookexec exports.
const scope = "github.com/hookexec/hookexec/core/telemetry"

type job struct {
	fire    *observe.Fire
	content bool
}

type pipeline struct {
	key  string
	refs int // sinks holding it; guarded by registry.mu

	tp *sdktrace.TracerProvider // nil when traces are off or written directly
	// Direct spans (spans.go): the exporting goroutine, the batch the worker is writing,
	// and what every span carries. nil when traces are off or go through tp.
	batches       *spanBatches
	batch         []sdktrace.ReadOnlySpan
	res           *resource.Resource
	scope         instrumentation.Scope
	cancelExports context.CancelFunc       // ends direct span exports still running at shutdown's deadline
	mp            *sdkmetric.MeterProvider // nil when metrics are off
	lp            *sdklog.LoggerProvider   // nil when logs are off
	tracer        trace.Tracer
	logger        log.Logger
	inst          instruments
	prop          propagation.TraceContext

	sets    attrSets // the metric attribute sets seen, by value; the worker's own
	scratch scratch  // the worker's buffers and per-hook attributes (record.go)
	queue   chan job
	wake    chan struct{} // a fire found the worker idle, or the queue half full
	idle    atomic.Bool   // the worker waits on wake (offer then wakes it)
	stop    chan struct{} // closed by shutdown: drain what is queued, then exit
	done    chan struct{} // closed when the worker has drained the queue
	dropped atomic.Int64
}

// exporters are where a pipeline sends each signal; nil turns the signal off. Tests pass
// the SDK's in-memory ones; New builds OTLP ones from the Config.
type exporters struct {
	spans   sdktrace.SpanExporter
	metrics sdkmetric.Reader
	logs    sdklog.Exporter
}

var registry = struct {
	mu sync.Mutex
	m  map[string]*pipeline
}{m: map[string]*pipeline{}}

// acquire returns the pipeline of c, starting it (with the exporters make builds) when the
// process has none; the caller holds one reference.
func acquire(c *Config, build func(*Config) (exporters, error)) (*pipeline, error) {
	key := c.key()
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if p := registry.m[key]; p != nil {
		p.refs++
		return p, nil
	}
	ex, err := build(c)
	if err != nil {
		return nil, err
	}
	p := start(c, ex)
	p.key, p.refs = key, 1
	registry.m[key] = p
	return p, nil
}

// release drops one reference; the last one shuts the pipeline down.
func (p *pipeline) release(deadline time.Time) error {
	registry.mu.Lock()
	p.refs--
	last := p.refs == 0
	if last && registry.m[p.key] == p {
		delete(registry.m, p.key)
	}
	registry.mu.Unlock()
	if !last {
		return nil
	}
	return p.shutdown(deadline)
}

// key identifies a pipeline: every field but Content.
func (c *Config) key() string {
	b, _ := json.Marshal(c) // plain data: cannot fail
	return string(b)
}

func start(c *Config, ex exporters) *pipeline {
	silence()
	res, _ := resource.New(context.Background(), resource.WithTelemetrySDK(), resource.WithAttributes(
		append([]attribute.KeyValue{attribute.String("service.name", c.Service), attribute.String("service.version", version.Version)}, c.Resource...)...))
	p := &pipeline{queue: make(chan job, QueueSize), wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	p.tracer = tracenoop.NewTracerProvider().Tracer(scope)
	var exportCtx context.Context
	exportCtx, p.cancelExports = context.WithCancel(context.Background())
	if ex.spans != nil && directSpans() {
		p.res, p.scope = res, instrumentation.Scope{Name: scope, Version: version.Version}
		p.batches = newSpanBatches(exportCtx, ex.spans, c.SpanDelay)
	} else if ex.spans != nil {
		// Blocking: when the exporter falls behind, the worker waits and the fires queue
		// up in p.queue, where a full queue drops and counts; the SDK's own queue never
		// drops uncounted.
		p.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res),
			sdktrace.WithBatcher(ex.spans, sdktrace.WithBatchTimeout(c.SpanDelay), sdktrace.WithBlocking()))
		p.tracer = p.tp.Tracer(scope, trace.WithInstrumentationVersion(version.Version))
	}
	var meter metric.Meter = metricnoop.NewMeterProvider().Meter(scope)
	if ex.metrics != nil {
		p.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(ex.metrics))
		meter = p.mp.Meter(scope, metric.WithInstrumentationVersion(version.Version))
	}
	p.logger = lognoop.NewLoggerProvider().Logger(scope)
	if ex.logs != nil {
		// Records carry each key once (record.go), so the SDK's dedup map is work for nothing.
		p.lp = sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithAllowKeyDuplication(),
			sdklog.WithProcessor(sdklog.NewBatchProcessor(ex.logs, sdklog.WithExportInterval(c.LogDelay))))
		p.logger = p.lp.Logger(scope, log.WithInstrumentationVersion(version.Version))
	}
	p.inst = newInstruments(meter, &p.dropped)
	go p.work()
	return p
}

// offer queues a fire without waiting; a full queue drops it and counts. It wakes the
// worker only when the worker is idle or the queue is half full (Gather).
func (p *pipeline) offer(j job) {
	select {
	case p.queue <- j:
	default:
		p.dropped.Add(1)
	}
	if (p.idle.Load() && p.idle.CompareAndSwap(true, false)) || len(p.queue) >= QueueSize/2 {
		select {
		case p.wake <- struct{}{}:
		default: // a wake is pending already
		}
	}
}

// work exports what is queued, a Gather's worth at a time, until shutdown.
func (p *pipeline) work() {
	defer close(p.done)
	if p.batches != nil {
		defer close(p.batches.in) // after the last batch (deferred calls run last first)
		defer p.flushSpans()
	}
	gather := time.NewTimer(Gather)
	gather.Stop()
	for {
		p.idle.Store(true)
		if len(p.queue) == 0 { // a fire queued after the last drain and before idle was set would wait: look again
			select {
			case <-p.wake:
			case <-p.stop:
				p.drain()
				return
			}
			gather.Reset(Gather)
			select {
			case <-gather.C:
			case <-p.wake: // half full
				gather.Stop()
			case <-p.stop:
				gather.Stop()
				p.drain()
				return
			}
		}
		p.idle.Store(false)
		p.drain()
	}
}

// drain exports every fire queued now, and hands their spans over.
func (p *pipeline) drain() {
	for {
		select {
		case j := <-p.queue:
			p.export(j.fire, j.content)
		default:
			if p.batches != nil {
				p.flushSpans()
			}
			return
		}
	}
}

// shutdown stops the worker and flushes every provider, all of it by the deadline or
// FlushBound from now, whichever is sooner.
func (p *pipeline) shutdown(deadline time.Time) error {
	if bound := time.Now().Add(FlushBound); deadline.IsZero() || bound.Before(deadline) {
		deadline = bound
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	stopExports := context.AfterFunc(ctx, p.cancelExports)
	defer stopExports()
	close(p.stop)
	select {
	case <-p.done:
	case <-ctx.Done():
	}
	var wg sync.WaitGroup
	for _, stop := range []func(context.Context) error{p.stopTraces, p.stopMetrics, p.stopLogs} {
		wg.Go(func() { _ = stop(ctx) }) // an exporter's failure is invisible (silence)
	}
	wg.Wait()
	return nil
}

func (p *pipeline) stopTraces(ctx context.Context) error {
	if p.batches != nil {
		return p.batches.stop(ctx)
	}
	if p.tp == nil {
		return nil
	}
	return p.tp.Shutdown(ctx)
}

func (p *pipeline) stopMetrics(ctx context.Context) error {
	if p.mp == nil {
		return nil
	}
	return p.mp.Shutdown(ctx)
}

func (p *pipeline) stopLogs(ctx context.Context) error {
	if p.lp == nil {
		return nil
	}
	return p.lp.Shutdown(ctx)
}
