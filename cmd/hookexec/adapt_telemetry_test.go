package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/tests/otelcoltest"
)

// TestAdaptExportsItsFire: `hookexec adapt`, run as a converted hook with telemetry on in the
// agent's environment (HOOKEXEC_TELEMETRY=1, as the dispatcher passes it to its hooks),
// reaches the real collector as its fire span and its hook's span, under the agent's
// TRACEPARENT. Its engine kills hooks 1 ms into Close; before the flush had a bound of its
// own (engine.Options.SinkCloseTimeout) the process exited with nothing exported.
func TestAdaptExportsItsFire(t *testing.T) {
	t.Parallel()
	c := otelcoltest.Start(t)
	s := newScenario(t)
	s.env = append(c.Env(otelcoltest.GRPC), "HOOKEXEC_TELEMETRY=1", "OTEL_SERVICE_NAME=hookexec-adapt-test",
		"TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	payload := `{"hook_event_name":"PreToolUse","session_id":"adapt-s1","turn_id":"t1","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":"` + s.project + `"}`
	out := s.runIn(payload, "adapt", "--from", "claude", "--to", "codex", `echo 'no rm' >&2; exit 2`)
	require.Contains(t, out.stdout+out.stderr, "no rm", "the guard's deny: %+v", out)
	spans := c.WaitSpans(t, func(s []otelcoltest.Span) bool { return len(otelcoltest.SpanNamed(s, "fire PreToolUse")) > 0 })
	fire := otelcoltest.SpanNamed(spans, "fire PreToolUse")[0]
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", fire.TraceID, "the agent's trace")
	assert.Equal(t, "00f067aa0ba902b7", fire.ParentSpanID, "the agent's span as parent")
	assert.Equal(t, "deny", fire.Attributes["hookexec.decision"])
	assert.Equal(t, "adapt-s1", fire.Attributes["gen_ai.conversation.id"])
	hooks := 0
	for _, h := range spans {
		if strings.HasPrefix(h.Name, "execute_hook ") && h.ParentSpanID == fire.SpanID {
			hooks++
		}
	}
	assert.Equal(t, 1, hooks, "the hook's span under the fire")
}
