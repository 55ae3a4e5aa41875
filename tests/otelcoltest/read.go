package otelcoltest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Spans is every span the collector has received so far, in the order it wrote them.
func (c *Collector) Spans(t testing.TB) []Span {
	t.Helper()
	return read(t, c, "traces", decodeSpans)
}

// Metrics is every metric stream the collector has received so far (a metric exported N times
// appears N times, each with that export's points).
func (c *Collector) Metrics(t testing.TB) []Metric {
	t.Helper()
	return read(t, c, "metrics", decodeMetrics)
}

// Logs is every log record the collector has received so far.
func (c *Collector) Logs(t testing.TB) []LogRecord {
	t.Helper()
	return read(t, c, "logs", decodeLogs)
}

// WaitSpans reads the spans until until holds, and returns them; it fails the test, listing
// what did arrive, after DefaultWait.
func (c *Collector) WaitSpans(t testing.TB, until func([]Span) bool) []Span {
	t.Helper()
	return wait(t, func() []Span { return c.Spans(t) }, until, "spans")
}

// WaitMetrics reads the metrics until until holds (see WaitSpans).
func (c *Collector) WaitMetrics(t testing.TB, until func([]Metric) bool) []Metric {
	t.Helper()
	return wait(t, func() []Metric { return c.Metrics(t) }, until, "metrics")
}

// WaitLogs reads the log records until until holds (see WaitSpans).
func (c *Collector) WaitLogs(t testing.TB, until func([]LogRecord) bool) []LogRecord {
	t.Helper()
	return wait(t, func() []LogRecord { return c.Logs(t) }, until, "log records")
}

func read[R any, T any](t testing.TB, c *Collector, signal string, each func(R) ([]T, error)) []T {
	t.Helper()
	lines, err := c.lines(signal)
	if err != nil {
		t.Fatalf("otelcoltest: reading the collector's %s: %v", signal, err)
	}
	items, err := decodeLines(lines, each)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func wait[T any](t testing.TB, get func() []T, until func([]T) bool, what string) []T {
	t.Helper()
	deadline := time.Now().Add(DefaultWait)
	for {
		items := get()
		if until(items) {
			return items
		}
		if time.Now().After(deadline) {
			t.Fatalf("otelcoltest: after %v the collector has %d %s, not what the test waits for:\n%s", DefaultWait, len(items), what, summary(items))
		}
		time.Sleep(pollEvery)
	}
}

// summary lists items for a failure message, the first 50 of them.
func summary[T any](items []T) string {
	var b strings.Builder
	for i, it := range items {
		if i == 50 {
			fmt.Fprintf(&b, "  … and %d more\n", len(items)-i)
			break
		}
		fmt.Fprintf(&b, "  %+v\n", it)
	}
	return b.String()
}
