//go:build unix

package telemetry

import (
	"context"
	"syscall"
	"testing"
	"time"

	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }

type discardLogs struct{}

func (discardLogs) Export(context.Context, []sdklog.Record) error { return nil }
func (discardLogs) Shutdown(context.Context) error                { return nil }
func (discardLogs) ForceFlush(context.Context) error              { return nil }

// BenchmarkExport is the worker's CPU per fire (two hooks): spans, metric points and the
// decision record, handed to exporters that discard them. It runs beside the fires, so on a
// busy machine it is what telemetry takes from them.
func BenchmarkExport(b *testing.B) {
	c := &Config{Service: b.Name(), SpanDelay: time.Second, LogDelay: time.Second, MetricInterval: time.Hour}
	p := start(c, exporters{spans: discardSpans{}, metrics: sdkmetric.NewManualReader(), logs: discardLogs{}})
	defer p.shutdown(time.Now().Add(time.Second))
	f := sampleFire()
	b.ReportAllocs()
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for b.Loop() {
		p.export(f, false)
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op") // the process's CPU, GC included: what the fires compete with
}
