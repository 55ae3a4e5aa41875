package otelcoltest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookexec/hookexec/tests/otelcoltest"
)

// The agent's trace context, as Claude Code passes it to a hook in TRACEPARENT/TRACESTATE.
const (
	agentTraceID    = "4bf92f3577b34da6a3ce929d0e0e4736"
	agentSpanID     = "00f067aa0ba902b7"
	agentTraceState = "vendor=agent"
)

// exporters is the OpenTelemetry SDK's three OTLP exporters for one protocol, configured from
// the environment (OTEL_EXPORTER_OTLP_ENDPOINT), as hookexec's telemetry is.
type exporters struct {
	span   func(context.Context) (sdktrace.SpanExporter, error)
	metric func(context.Context) (sdkmetric.Exporter, error)
	log    func(context.Context) (sdklog.Exporter, error)
}

var byProtocol = map[otelcoltest.Protocol]exporters{
	otelcoltest.GRPC: {
		span:   func(ctx context.Context) (sdktrace.SpanExporter, error) { return otlptracegrpc.New(ctx) },
		metric: func(ctx context.Context) (sdkmetric.Exporter, error) { return otlpmetricgrpc.New(ctx) },
		log:    func(ctx context.Context) (sdklog.Exporter, error) { return otlploggrpc.New(ctx) },
	},
	otelcoltest.HTTP: {
		span:   func(ctx context.Context) (sdktrace.SpanExporter, error) { return otlptracehttp.New(ctx) },
		metric: func(ctx context.Context) (sdkmetric.Exporter, error) { return otlpmetrichttp.New(ctx) },
		log:    func(ctx context.Context) (sdklog.Exporter, error) { return otlploghttp.New(ctx) },
	},
}

func setenv(t *testing.T, env []string) {
	for _, kv := range env {
		for i := range kv {
			if kv[i] == '=' {
				t.Setenv(kv[:i], kv[i+1:])
				break
			}
		}
	}
}

// TestCollectorReceivesSDKExports sends a trace joined to an agent's traceparent, a counter, a
// histogram and a log record with the OpenTelemetry Go SDK to the real collector, over each
// protocol, and reads them back from its file exporter.
func TestCollectorReceivesSDKExports(t *testing.T) {
	for _, proto := range []otelcoltest.Protocol{otelcoltest.GRPC, otelcoltest.HTTP} {
		t.Run(string(proto), func(t *testing.T) {
			c := otelcoltest.Start(t)
			setenv(t, c.Env(proto))
			t.Setenv("OTEL_SERVICE_NAME", "hookexec-selftest")
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=test,team=hooks")
			ctx := context.Background()
			exp := byProtocol[proto]
			res, err := resource.New(ctx, resource.WithFromEnv())
			require.NoError(t, err)

			spanExp, err := exp.span(ctx)
			require.NoError(t, err)
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spanExp), sdktrace.WithResource(res))
			metricExp, err := exp.metric(ctx)
			require.NoError(t, err)
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metricExp)), sdkmetric.WithResource(res))
			logExp, err := exp.log(ctx)
			require.NoError(t, err)
			lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewBatchProcessor(logExp)), sdklog.WithResource(res))

			// The agent's span, from the environment's W3C trace context.
			carrier := propagation.MapCarrier{"traceparent": "00-" + agentTraceID + "-" + agentSpanID + "-01", "tracestate": agentTraceState}
			agentCtx := propagation.TraceContext{}.Extract(ctx, carrier)
			require.True(t, trace.SpanContextFromContext(agentCtx).IsRemote())

			tracer := tp.Tracer("otelcoltest.selftest")
			fireCtx, fire := tracer.Start(agentCtx, "fire PreToolUse", trace.WithAttributes(
				attribute.String("protocol", string(proto)),
				attribute.Int64("hooks.matched", 2),
				attribute.Bool("blocked", true),
				attribute.Float64("ratio", 0.25),
				attribute.StringSlice("hooks", []string{"a", "b"}),
			))
			_, hook := tracer.Start(fireCtx, "execute_hook guard", trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_hook")))
			hook.End()

			meter := mp.Meter("otelcoltest.selftest")
			count, err := meter.Int64Counter("selftest.fires")
			require.NoError(t, err)
			count.Add(ctx, 3, metric.WithAttributes(attribute.String("decision", "deny")))
			hist, err := meter.Float64Histogram("selftest.duration", metric.WithUnit("s"))
			require.NoError(t, err)
			for _, d := range []float64{0.002, 0.004, 0.3} {
				hist.Record(ctx, d, metric.WithAttributes(attribute.String("hook", "guard")))
			}

			var rec otellog.Record
			rec.SetEventName("hook.decision")
			rec.SetSeverity(otellog.SeverityWarn)
			rec.SetSeverityText("WARN")
			rec.SetBody(attribute.MapValue(attribute.String("decision", "deny"), attribute.ByteSlice("digest", []byte{0xde, 0xad}), attribute.Int64("n", 7)))
			rec.AddAttributes(attribute.String("hook.id", "guard"))
			lp.Logger("otelcoltest.selftest").Emit(fireCtx, rec)
			fire.End()

			// Shutdown flushes every exporter; an export the collector did not take is an error here.
			require.NoError(t, tp.Shutdown(ctx))
			require.NoError(t, mp.Shutdown(ctx))
			require.NoError(t, lp.Shutdown(ctx))

			spans := c.WaitSpans(t, func(s []otelcoltest.Span) bool { return len(s) >= 2 })
			require.Len(t, spans, 2)
			fires, hooks := otelcoltest.SpanNamed(spans, "fire PreToolUse"), otelcoltest.SpanNamed(spans, "execute_hook guard")
			require.Len(t, fires, 1)
			require.Len(t, hooks, 1)
			f, h := fires[0], hooks[0]
			assert.Equal(t, agentTraceID, f.TraceID, "the fire joins the agent's trace")
			assert.Equal(t, agentSpanID, f.ParentSpanID, "the fire's parent is the agent's span")
			assert.Equal(t, agentTraceState, f.TraceState)
			assert.Equal(t, agentTraceID, h.TraceID)
			assert.Equal(t, f.SpanID, h.ParentSpanID, "the hook's parent is the fire")
			assert.Len(t, f.SpanID, 16)
			assert.Equal(t, map[string]any{
				"protocol": string(proto), "hooks.matched": int64(2), "blocked": true, "ratio": 0.25, "hooks": []any{"a", "b"},
			}, f.Attributes)
			assert.Equal(t, "execute_hook", h.Attributes["gen_ai.operation.name"])
			assert.False(t, f.Start.IsZero())
			assert.False(t, f.End.Before(f.Start))
			assert.False(t, h.Start.Before(f.Start))
			assert.Equal(t, "otelcoltest.selftest", f.Scope.Name)
			assert.Equal(t, "hookexec-selftest", f.Resource["service.name"])
			assert.Equal(t, "test", f.Resource["deployment.environment.name"])
			assert.Equal(t, "hooks", f.Resource["team"])

			metrics := c.WaitMetrics(t, func(m []otelcoltest.Metric) bool {
				return len(otelcoltest.MetricNamed(m, "selftest.fires")) > 0 && len(otelcoltest.MetricNamed(m, "selftest.duration")) > 0
			})
			fireCount := otelcoltest.MetricNamed(metrics, "selftest.fires")[0]
			assert.Equal(t, "sum", fireCount.Type)
			assert.True(t, fireCount.Monotonic)
			assert.Equal(t, 2, fireCount.Temporality, "cumulative, the SDK's default")
			require.Len(t, fireCount.Points, 1)
			assert.True(t, fireCount.Points[0].IsInt)
			assert.Equal(t, int64(3), fireCount.Points[0].Int)
			assert.Equal(t, map[string]any{"decision": "deny"}, fireCount.Points[0].Attributes)
			assert.Equal(t, "hookexec-selftest", fireCount.Resource["service.name"])
			duration := otelcoltest.MetricNamed(metrics, "selftest.duration")[0]
			assert.Equal(t, "histogram", duration.Type)
			assert.Equal(t, "s", duration.Unit)
			require.Len(t, duration.Points, 1)
			p := duration.Points[0]
			assert.Equal(t, uint64(3), p.Count)
			assert.InDelta(t, 0.306, p.Sum, 1e-9)
			require.NotNil(t, p.Min)
			require.NotNil(t, p.Max)
			assert.InDelta(t, 0.002, *p.Min, 1e-12)
			assert.InDelta(t, 0.3, *p.Max, 1e-12)
			assert.Len(t, p.BucketCounts, len(p.Bounds)+1)
			var total uint64
			for _, n := range p.BucketCounts {
				total += n
			}
			assert.Equal(t, uint64(3), total)
			assert.Equal(t, map[string]any{"hook": "guard"}, p.Attributes)

			logs := c.WaitLogs(t, func(l []otelcoltest.LogRecord) bool { return len(l) >= 1 })
			require.Len(t, logs, 1)
			l := logs[0]
			assert.Equal(t, "hook.decision", l.EventName)
			assert.Equal(t, 13, l.SeverityNumber)
			assert.Equal(t, "WARN", l.SeverityText)
			assert.Equal(t, map[string]any{"decision": "deny", "digest": []byte{0xde, 0xad}, "n": int64(7)}, l.Body)
			assert.Equal(t, map[string]any{"hook.id": "guard"}, l.Attributes)
			assert.Equal(t, agentTraceID, l.TraceID, "the record carries the fire's trace")
			assert.Equal(t, f.SpanID, l.SpanID, "and the fire's span")
			assert.Equal(t, "hookexec-selftest", l.Resource["service.name"])
			assert.False(t, l.Time.IsZero() && l.ObservedTime.IsZero())
			assert.WithinDuration(t, time.Now(), l.ObservedTime, time.Minute)
		})
	}
}
