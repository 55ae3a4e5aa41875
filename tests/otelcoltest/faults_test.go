package otelcoltest_test

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hookexec/hookexec/tests/otelcoltest"
)

var protocols = []otelcoltest.Protocol{otelcoltest.GRPC, otelcoltest.HTTP}

// spanExporter is an SDK span exporter for addr that does not retry and gives up after
// timeout, so one export is one attempt.
func spanExporter(t *testing.T, p otelcoltest.Protocol, addr otelcoltest.Addr, timeout time.Duration) sdktrace.SpanExporter {
	t.Helper()
	var (
		exp sdktrace.SpanExporter
		err error
	)
	ctx := context.Background()
	if p == otelcoltest.GRPC {
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(addr.URL()), otlptracegrpc.WithTimeout(timeout),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
	} else {
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(addr.URL()+"/v1/traces"), otlptracehttp.WithTimeout(timeout),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	}
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = exp.Shutdown(ctx)
	})
	return exp
}

// export sends one span named name and says how long the export took.
func export(exp sdktrace.SpanExporter, name string) (time.Duration, error) {
	span := tracetest.SpanStub{Name: name, StartTime: time.Now(), EndTime: time.Now()}.Snapshot()
	start := time.Now()
	err := exp.ExportSpans(context.Background(), []sdktrace.ReadOnlySpan{span})
	return time.Since(start), err
}

func names(spans []otelcoltest.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func assertRefused(t *testing.T, addr otelcoltest.Addr) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", string(addr), time.Second)
	if err == nil {
		conn.Close()
	}
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "a connection to %s", addr)
}

// TestRefused: nothing listens at Refused's address.
func TestRefused(t *testing.T) {
	addr := otelcoltest.Refused(t)
	assertRefused(t, addr)
	for _, p := range protocols {
		took, err := export(spanExporter(t, p, addr, 5*time.Second), "refused")
		assert.Error(t, err, p)
		assert.Less(t, took, 5*time.Second, "%s: a refused connection fails before the timeout", p)
	}
}

// TestBlackhole: an export to the black hole waits for the exporter's whole timeout, over a
// connection the black hole accepted.
func TestBlackhole(t *testing.T) {
	const timeout = 300 * time.Millisecond
	for _, p := range protocols {
		t.Run(string(p), func(t *testing.T) {
			b := otelcoltest.StartBlackhole(t)
			took, err := export(spanExporter(t, p, b.Addr, timeout), "into the void")
			require.Error(t, err)
			assert.GreaterOrEqual(t, took, timeout-10*time.Millisecond, "it waited for an answer")
			assert.Less(t, took, timeout+5*time.Second)
			assert.GreaterOrEqual(t, b.Conns(), 1, "the exporter connected")
		})
	}
}

// TestRefusing: every export is answered with a retryable refusal the SDK reports: gRPC
// UNAVAILABLE, HTTP 503.
func TestRefusing(t *testing.T) {
	for _, p := range protocols {
		t.Run(string(p), func(t *testing.T) {
			r := otelcoltest.StartRefusing(t)
			_, err := export(spanExporter(t, p, r.Addr, 5*time.Second), "refused")
			require.Error(t, err)
			if p == otelcoltest.GRPC {
				assert.Equal(t, codes.Unavailable, status.Code(err), "%v", err)
			} else {
				assert.ErrorContains(t, err, "retry-able request failure", "the SDK read the 503 as a retryable refusal")
			}
			assert.Equal(t, 1, r.Requests(), "one export, one attempt (retries off)")
		})
	}
}

// TestSlow: through the slow proxy an export reaches the real collector, and its answer comes
// at least the delay late.
func TestSlow(t *testing.T) {
	const delay = 400 * time.Millisecond
	c := otelcoltest.Start(t)
	for _, p := range protocols {
		t.Run(string(p), func(t *testing.T) {
			s := otelcoltest.StartSlow(t, c.Addr(p), delay)
			took, err := export(spanExporter(t, p, s.Addr, 10*time.Second), "slow "+string(p))
			require.NoError(t, err)
			assert.GreaterOrEqual(t, took, delay, "the answer was held")
			assert.Equal(t, 1, s.Conns())
			c.WaitSpans(t, func(spans []otelcoltest.Span) bool { return len(otelcoltest.SpanNamed(spans, "slow "+string(p))) == 1 })
		})
	}
}
