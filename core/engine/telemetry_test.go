package engine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/observe"
	"github.com/hookexec/hookexec/core/telemetry"
)

func TestObserveFailClosedBlocks(t *testing.T) {
	rec := &recorder{}
	e, _ := open(t, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
		{"type":"command","command":"exit 1","onFailure":"block"},
		{"type":"command","command":"echo no >&2; exit 2"},
		{"type":"command","command":"exit 3"}]}]}}`, func(o *Options) {
		o.Profile = "claude"
		o.Sinks = []observe.Sink{rec}
	})
	res := fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`)
	require.True(t, res.Blocked)
	require.Len(t, rec.fires, 1)
	h := rec.fires[0].Hooks
	require.Len(t, h, 3)
	assert.True(t, h[0].FailClosed, "failed, and blocks because onFailure is block")
	assert.False(t, h[1].FailClosed, "a deliberate block is not a failure")
	assert.False(t, h[2].FailClosed, "a failure that does not block")
}

func TestObservePersistentRestart(t *testing.T) {
	rec := &recorder{}
	e, _ := open(t, "", func(o *Options) {
		o.Config = json.RawMessage(persistentCfg(t, o.ProjectDir, nil))
		o.Sinks = []observe.Sink{rec}
	})
	for _, cmd := range []string{"ls", "ls", "X_CRASH", "ls", "ls"} {
		fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"`+cmd+`"}}`)
	}
	require.Len(t, rec.fires, 5)
	var warm, restarted []bool
	for _, f := range rec.fires {
		require.Len(t, f.Hooks, 1)
		assert.True(t, f.Hooks[0].Persistent)
		warm, restarted = append(warm, f.Hooks[0].Warm), append(restarted, f.Hooks[0].Restarted)
	}
	assert.Equal(t, []bool{false, true, true, false, true}, warm, "cold at the first fire and after the crash")
	assert.Equal(t, []bool{false, false, false, true, false}, restarted, "the fire after the crash starts a new process")
}

func TestTelemetryOption(t *testing.T) {
	o, err := ParseOptions([]byte(`{"telemetry":{"enabled":true,"endpoint":"127.0.0.1:4317","protocol":"grpc","service_name":"svc","headers":{"k":"v"},"log_content":false}}`))
	require.NoError(t, err)
	require.NotNil(t, o.Telemetry)
	assert.Equal(t, "grpc", o.Telemetry.Protocol)
	for _, bad := range []string{`{"telemetry":{"protocol":"http"}}`, `{"telemetry":{"endpoint":"localhost:4318"}}`, `{"telemetry":{"enabeld":true}}`} {
		_, err := ParseOptions([]byte(bad))
		assert.ErrorIs(t, err, ErrInvalid, bad)
	}
	_, err = Open(Options{ProjectDir: t.TempDir(), Telemetry: &telemetry.Options{Protocol: "zipkin"}})
	assert.ErrorIs(t, err, ErrInvalid)
}

func TestTelemetryOnlyWhenAsked(t *testing.T) {
	refused := "http://127.0.0.1:1" // nothing listens: exports fail, invisibly
	for _, tc := range []struct {
		name    string
		env     map[string]string
		opt     *telemetry.Options
		sinks   int
		warning string
	}{
		{"off by default", nil, nil, 0, ""},
		{"HOOKEXEC_TELEMETRY=1", map[string]string{"HOOKEXEC_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": refused}, nil, 1, ""},
		{"the option", nil, &telemetry.Options{Enabled: ptr(true), Endpoint: refused}, 1, ""},
		{"the option turns the environment's off", map[string]string{"HOOKEXEC_TELEMETRY": "1"}, &telemetry.Options{Enabled: ptr(false)}, 0, ""},
		{"OTEL_SDK_DISABLED", map[string]string{"HOOKEXEC_TELEMETRY": "1", "OTEL_SDK_DISABLED": "true"}, nil, 0, ""},
		{"a variable that cannot be used is a warning", map[string]string{"HOOKEXEC_TELEMETRY": "1", "OTEL_TRACES_EXPORTER": "console"}, nil, 0, "OTEL_TRACES_EXPORTER=console"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := open(t, pre("Bash", "exit 0"), func(o *Options) { o.Env, o.Telemetry = tc.env, tc.opt })
			assert.Len(t, e.sinks, tc.sinks)
			res := fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`)
			assert.Empty(t, res.Warnings)
			ws, err := e.Check()
			require.NoError(t, err)
			var got string
			for _, w := range ws {
				if w.Source == TelemetryEnv {
					got = w.Message
				}
			}
			if tc.warning == "" {
				assert.Empty(t, got)
			} else {
				assert.Contains(t, got, tc.warning)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestFireEnvIsTheCallsOwn(t *testing.T) {
	rec := &recorder{}
	e, _ := open(t, pre("Bash", `echo "tp=$TRACEPARENT"`), func(o *Options) {
		o.Env = map[string]string{"TRACEPARENT": "engine"}
		o.Sinks = []observe.Sink{rec}
	})
	payload := []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`)
	r, err := e.FireEnv("PreToolUse", payload, []string{"TRACEPARENT=call-1", "TRACESTATE=v=1"})
	require.NoError(t, err)
	require.Len(t, r.Hooks, 1)
	assert.Equal(t, "tp=call-1\n", r.Hooks[0].Stdout, "the call's env wins over the options'")
	r = fireT(t, e, "PreToolUse", string(payload))
	assert.Equal(t, "tp=engine\n", r.Hooks[0].Stdout, "and is the call's only")
	require.Len(t, rec.fires, 2)
	assert.Equal(t, "call-1", rec.fires[0].TraceParent)
	assert.Equal(t, "v=1", rec.fires[0].TraceState)
	assert.Equal(t, "engine", rec.fires[1].TraceParent)
}
