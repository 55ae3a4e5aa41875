package serve

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/tests/otelcoltest"
)

// The npm package's engines are the server's: its "telemetry" option (TelemetryOptions,
// converted to the wire's names) goes through open's params to the engine, and the spans
// reach the real collector; a bad one is the server's invalid-params error.
func TestServeTelemetryOption(t *testing.T) {
	c := otelcoltest.Start(t)
	dir := t.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- New(inR, outW, Options{}).Serve(); outW.Close() }()
	sc := bufio.NewScanner(outR)
	call := func(id int, method string, params map[string]any) Message {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		_, err := inW.Write(append(b, '\n'))
		require.NoError(t, err)
		require.True(t, sc.Scan(), "serve ended early")
		var m Message
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		return m
	}
	open := map[string]any{"profile": "claude", "project_dir": dir, "home": filepath.Join(dir, "nohome"), "sources": []string{},
		"env": map[string]string{"TRACEPARENT": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		"config": map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
			map[string]any{"type": "command", "command": "exit 0"}}}}}}}
	open["telemetry"] = map[string]any{"enabled": true, "protocol": "zipkin"}
	m := call(0, "open", open)
	require.NotNil(t, m.Error)
	assert.Equal(t, CodeInvalidParams, m.Error.Code)

	open["telemetry"] = map[string]any{"enabled": true, "endpoint": c.HTTP.URL(), "protocol": "http/protobuf", "service_name": "hookexec-serve"}
	m = call(1, "open", open)
	require.Nil(t, m.Error)
	m = call(2, "fire", map[string]any{"engine": 1, "event": "PreToolUse", "payload": map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}}})
	require.Nil(t, m.Error)
	m = call(3, "close", map[string]any{"engine": 1})
	require.Nil(t, m.Error)
	inW.Close()
	require.NoError(t, <-done)

	spans := c.WaitSpans(t, func(s []otelcoltest.Span) bool { return len(otelcoltest.SpanNamed(s, "fire PreToolUse")) == 1 })
	fire := otelcoltest.SpanNamed(spans, "fire PreToolUse")[0]
	assert.Equal(t, "00f067aa0ba902b7", fire.ParentSpanID)
	assert.Equal(t, "hookexec-serve", fire.Resource["service.name"])
}
