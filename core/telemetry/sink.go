// Package telemetry exports every decided fire of an engine to OpenTelemetry: a span per
// fire with a child span per hook (joined to the caller's trace when its environment
// holds TRACEPARENT), metrics (durations, counts, timeouts, fail-closed blocks, persistent
// restarts) and a log record per decision, over OTLP (grpc or http/protobuf), configured
// by the standard OTEL_* variables or the engine's "telemetry" option. It is an
// observe.Sink: the engine hands it a finished fire and it changes nothing of it.
//
// It never slows or breaks a fire: Observe only queues (a full queue drops the fire from
// telemetry and counts it), the SDK's work happens on one goroutine per pipeline, and
// exporter failures are counted, never shown. It does not export the environment, and
// exports content (payloads, reasons, commands) only when asked to.
package telemetry

import (
	"sync/atomic"
	"time"

	"github.com/hookexec/hookexec/core/observe"
)

// Sink is one engine's handle on its pipeline.
type Sink struct {
	p       *pipeline
	content bool
	closed  atomic.Bool
}

var _ observe.Sink = (*Sink)(nil)

// New returns a sink exporting over OTLP as c says. Sinks of equal Configs (Content
// aside) share one pipeline in the process.
func New(c *Config) (*Sink, error) {
	return newSink(c, otlpExporters)
}

func newSink(c *Config, build func(*Config) (exporters, error)) (*Sink, error) {
	p, err := acquire(c, build)
	if err != nil {
		return nil, err
	}
	return &Sink{p: p, content: c.Content}, nil
}

// Observe queues the fire for export; it never waits.
func (s *Sink) Observe(f *observe.Fire) {
	if s.closed.Load() {
		return
	}
	s.p.offer(job{fire: f, content: s.content})
}

// Close releases the pipeline; the last sink's Close flushes it, waiting at most until
// the deadline and at most FlushBound.
func (s *Sink) Close(deadline time.Time) error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.p.release(deadline)
}

// Dropped is the number of fires the sink's pipeline dropped because its queue was full.
func (s *Sink) Dropped() int64 { return s.p.dropped.Load() }

// Pipelines is the number of pipelines running in the process: one per setting, however
// many engines share it.
func Pipelines() int {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return len(registry.m)
}
