package telemetry

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc/grpclog"
)

// The OTLP exporters, built from a resolved Config. Every setting is passed as an option:
// the exporters would otherwise read OTEL_EXPORTER_OTLP_* from this process's environment,
// which in the daemon is cleared and is not the calling agent's.
// (go.opentelemetry.io/contrib/exporters/autoexport is not used for the same reason, and
// because its console exporter writes to stdout, which belongs to the agent.)

func otlpExporters(c *Config) (exporters, error) {
	ctx := context.Background()
	var ex exporters
	var err error
	if !c.Traces.Off {
		if ex.spans, err = spanExporter(ctx, c.Traces); err != nil {
			return ex, err
		}
	}
	if !c.Metrics.Off {
		var m sdkmetric.Exporter
		if m, err = metricExporter(ctx, c.Metrics); err != nil {
			return ex, err
		}
		ex.metrics = sdkmetric.NewPeriodicReader(m, sdkmetric.WithInterval(c.MetricInterval), sdkmetric.WithTimeout(c.Metrics.Timeout))
	}
	if !c.Logs.Off {
		if ex.logs, err = logExporter(ctx, c.Logs); err != nil {
			return ex, err
		}
	}
	return ex, nil
}

// optionSet is one exporter package's option constructors: the three signals' grpc and
// http packages each have their own Option type, with the same functions.
type optionSet[O any] struct {
	url, endpoint  func(string) O
	timeout        func(time.Duration) O
	headers        func(map[string]string) O
	insecure, gzip func() O
}

// options are the exporter options for s. For http the URL is the signal's whole URL; for
// grpc a URL (its scheme says TLS or not) or host:port.
func options[O any](s Signal, f optionSet[O]) []O {
	o := []O{f.timeout(s.Timeout), f.headers(s.Headers)}
	if s.Protocol == ProtoHTTP || strings.Contains(s.URL, "://") {
		o = append(o, f.url(s.URL))
	} else {
		o = append(o, f.endpoint(s.URL))
	}
	if s.Insecure && s.Protocol == ProtoGRPC {
		o = append(o, f.insecure())
	}
	if s.Compression != "" {
		o = append(o, f.gzip())
	}
	return o
}

// The option sets of the six exporter packages.
var (
	otlptracegrpcSet = optionSet[otlptracegrpc.Option]{url: otlptracegrpc.WithEndpointURL, endpoint: otlptracegrpc.WithEndpoint,
		timeout: otlptracegrpc.WithTimeout, headers: otlptracegrpc.WithHeaders, insecure: otlptracegrpc.WithInsecure, gzip: func() otlptracegrpc.Option { return otlptracegrpc.WithCompressor("gzip") }}
	otlptracehttpSet = optionSet[otlptracehttp.Option]{url: otlptracehttp.WithEndpointURL, endpoint: otlptracehttp.WithEndpoint,
		timeout: otlptracehttp.WithTimeout, headers: otlptracehttp.WithHeaders, insecure: otlptracehttp.WithInsecure, gzip: func() otlptracehttp.Option { return otlptracehttp.WithCompression(otlptracehttp.GzipCompression) }}
	otlpmetricgrpcSet = optionSet[otlpmetricgrpc.Option]{url: otlpmetricgrpc.WithEndpointURL, endpoint: otlpmetricgrpc.WithEndpoint,
		timeout: otlpmetricgrpc.WithTimeout, headers: otlpmetricgrpc.WithHeaders, insecure: otlpmetricgrpc.WithInsecure, gzip: func() otlpmetricgrpc.Option { return otlpmetricgrpc.WithCompressor("gzip") }}
	otlpmetrichttpSet = optionSet[otlpmetrichttp.Option]{url: otlpmetrichttp.WithEndpointURL, endpoint: otlpmetrichttp.WithEndpoint,
		timeout: otlpmetrichttp.WithTimeout, headers: otlpmetrichttp.WithHeaders, insecure: otlpmetrichttp.WithInsecure, gzip: func() otlpmetrichttp.Option { return otlpmetrichttp.WithCompression(otlpmetrichttp.GzipCompression) }}
	otlploggrpcSet = optionSet[otlploggrpc.Option]{url: otlploggrpc.WithEndpointURL, endpoint: otlploggrpc.WithEndpoint,
		timeout: otlploggrpc.WithTimeout, headers: otlploggrpc.WithHeaders, insecure: otlploggrpc.WithInsecure, gzip: func() otlploggrpc.Option { return otlploggrpc.WithCompressor("gzip") }}
	otlploghttpSet = optionSet[otlploghttp.Option]{url: otlploghttp.WithEndpointURL, endpoint: otlploghttp.WithEndpoint,
		timeout: otlploghttp.WithTimeout, headers: otlploghttp.WithHeaders, insecure: otlploghttp.WithInsecure, gzip: func() otlploghttp.Option { return otlploghttp.WithCompression(otlploghttp.GzipCompression) }}
)

func spanExporter(ctx context.Context, s Signal) (sdktrace.SpanExporter, error) {
	if s.Protocol == ProtoGRPC {
		return otlptracegrpc.New(ctx, options(s, otlptracegrpcSet)...)
	}
	return otlptracehttp.New(ctx, options(s, otlptracehttpSet)...)
}

func metricExporter(ctx context.Context, s Signal) (sdkmetric.Exporter, error) {
	if s.Protocol == ProtoGRPC {
		return otlpmetricgrpc.New(ctx, options(s, otlpmetricgrpcSet)...)
	}
	return otlpmetrichttp.New(ctx, options(s, otlpmetrichttpSet)...)
}

func logExporter(ctx context.Context, s Signal) (sdklog.Exporter, error) {
	if s.Protocol == ProtoGRPC {
		return otlploggrpc.New(ctx, options(s, otlploggrpcSet)...)
	}
	return otlploghttp.New(ctx, options(s, otlploghttpSet)...)
}

// exportErrors counts what the SDK reported through its error handler: failed exports,
// mostly. They are never shown to the agent (house rule: the library does not write to
// the host's stderr), only counted.
var exportErrors atomic.Int64

// ExportErrors is the number of errors the OpenTelemetry SDK reported in this process
// (exports that failed: a collector down, slow or refusing).
func ExportErrors() int64 { return exportErrors.Load() }

var silenceOnce sync.Once

// silence routes the SDK's and gRPC's diagnostics away from stderr, which belongs to the
// host (an agent reads a hook's stderr): errors are counted, logs discarded. These are
// process-wide settings of the otel and grpc packages, made once, when the first pipeline
// starts.
func silence() {
	silenceOnce.Do(func() {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) { exportErrors.Add(1) }))
		otel.SetLogger(logr.Discard())
		grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, io.Discard))
	})
}
