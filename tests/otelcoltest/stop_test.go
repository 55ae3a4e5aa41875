package otelcoltest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/tests/otelcoltest"
)

// TestStopAndRestart: a stopped collector refuses connections and keeps what it received; a
// restarted one receives on the same ports, and what both runs received is read.
func TestStopAndRestart(t *testing.T) {
	c := otelcoltest.Start(t)
	for _, p := range protocols {
		_, err := export(spanExporter(t, p, c.Addr(p), 5*time.Second), "before "+string(p))
		require.NoError(t, err, p)
	}
	grpcAddr, httpAddr := c.GRPC, c.HTTP
	c.Stop(t)
	assertRefused(t, c.GRPC)
	assertRefused(t, c.HTTP)
	for _, p := range protocols {
		_, err := export(spanExporter(t, p, c.Addr(p), 5*time.Second), "while down "+string(p))
		assert.Error(t, err, p)
	}
	assert.ElementsMatch(t, []string{"before grpc", "before http/protobuf"}, names(c.Spans(t)), "read after Stop")

	c.Restart(t)
	assert.Equal(t, grpcAddr, c.GRPC)
	assert.Equal(t, httpAddr, c.HTTP)
	for _, p := range protocols {
		_, err := export(spanExporter(t, p, c.Addr(p), 5*time.Second), "after "+string(p))
		require.NoError(t, err, p)
	}
	spans := c.WaitSpans(t, func(s []otelcoltest.Span) bool { return len(s) >= 4 })
	assert.ElementsMatch(t, []string{"before grpc", "before http/protobuf", "after grpc", "after http/protobuf"}, names(spans))
}

// TestStopAtOnce: a collector stopped as soon as it is ready stops without an error, though
// it installs its SIGTERM handler only after saying it is ready (found by starting and
// stopping five in a row: "exited with signal: terminated").
func TestStopAtOnce(t *testing.T) {
	for range 5 {
		c := otelcoltest.Start(t)
		c.Stop(t)
	}
}
