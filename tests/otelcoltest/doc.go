// Package otelcoltest runs the real OpenTelemetry Collector (build/otelcol, built by
// `make build/otelcol` from tests/otelcol, its own Go module) on 127.0.0.1 for the tests, and
// reads back what arrived through its file exporter: the tests check hookexec's telemetry
// against what a collector really received, over OTLP/gRPC and OTLP/HTTP, not against a mock.
// It also stands up the failing endpoints the "exporter failures are invisible to the agent"
// tests point an exporter at: one that refuses connections, one that accepts and never
// answers, one that answers every export with an error, and a slow path to a real collector.
//
// The API:
//
//	c := otelcoltest.Start(t)             // a collector on free ports; stopped at the test's end
//	c.GRPC, c.HTTP                        // its OTLP receivers (Addr: "127.0.0.1:port")
//	c.Env(otelcoltest.GRPC)               // OTEL_EXPORTER_OTLP_ENDPOINT=http://…, OTEL_EXPORTER_OTLP_PROTOCOL=grpc
//	c.GRPC.URL()                          // "http://127.0.0.1:port" (an SDK exporter's endpoint URL)
//	spans := c.WaitSpans(t, func(s []otelcoltest.Span) bool { return len(s) >= 2 })
//	c.Spans(t), c.Metrics(t), c.Logs(t)   // what has arrived so far
//	c.WaitMetrics(t, until), c.WaitLogs(t, until)
//	otelcoltest.SpanNamed(spans, "name"), otelcoltest.MetricNamed(metrics, "name")
//	c.Stop(t)                             // down: its ports refuse; what it received stays readable
//	c.Restart(t)                          // up again on the same ports
//	otelcoltest.Refused(t)                // an Addr where nothing listens (connection refused)
//	otelcoltest.StartBlackhole(t)         // accepts connections, never answers; .Addr, .Conns()
//	otelcoltest.StartRefusing(t)          // answers every export with gRPC UNAVAILABLE / HTTP 503; .Addr, .Requests()
//	otelcoltest.StartSlow(t, c.GRPC, d)   // a proxy to c whose every answer is d late; .Addr, .Conns()
//
// A Span carries its TraceID, SpanID and ParentSpanID (lower-case hex, "" for none), Name,
// Kind, times, Status, Attributes, its Resource's attributes and its Scope; a Metric its Name,
// Type, Unit, Temporality and data Points (each with its Attributes and value, count, sum and
// buckets); a LogRecord its severity, Body, Attributes, EventName and trace context. Attribute
// values are decoded to Go values: string, int64, float64, bool, []byte, []any and
// map[string]any.
//
// The collector binary is HOOKEXEC_OTELCOL when set, else build/otelcol at the repository's
// root. When it is missing Start skips the test saying how to build it, unless
// HOOKEXEC_REQUIRE_COLLECTOR=1 (make test-go sets it), which makes that a failure.
//
// The package does not configure an exporter: the test does, with the OpenTelemetry SDK or
// hookexec's own settings (collector_test.go shows both protocols with the SDK). It does not
// decode the collector's output beyond OTLP's JSON mapping.
package otelcoltest
