package telemetry

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func TestResolveOnOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    *Options
		env  func(string) string
		on   bool
	}{
		{"off by default", nil, env(), false},
		{"HOOKEXEC_TELEMETRY=1", nil, env("HOOKEXEC_TELEMETRY", "1"), true},
		{"HOOKEXEC_TELEMETRY=true", nil, env("HOOKEXEC_TELEMETRY", "TRUE"), true},
		{"HOOKEXEC_TELEMETRY=0", nil, env("HOOKEXEC_TELEMETRY", "0"), false},
		{"the option turns it on", &Options{Enabled: yes()}, env(), true},
		{"the option wins over the environment", &Options{Enabled: no()}, env("HOOKEXEC_TELEMETRY", "1"), false},
		{"OTEL_SDK_DISABLED wins over everything", &Options{Enabled: yes()}, env("OTEL_SDK_DISABLED", "true"), false},
		{"every exporter none is off", nil, env("HOOKEXEC_TELEMETRY", "1", "OTEL_TRACES_EXPORTER", "none", "OTEL_METRICS_EXPORTER", "none", "OTEL_LOGS_EXPORTER", "none"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Resolve(tc.o, tc.env)
			require.NoError(t, err)
			assert.Equal(t, tc.on, c != nil)
		})
	}
}

func TestResolveSettings(t *testing.T) {
	c, err := Resolve(nil, env("HOOKEXEC_TELEMETRY", "1"))
	require.NoError(t, err)
	assert.Equal(t, Signal{Protocol: ProtoHTTP, URL: "http://localhost:4318/v1/traces", Insecure: true, Timeout: 10 * time.Second}, c.Traces)
	assert.Equal(t, "http://localhost:4318/v1/logs", c.Logs.URL)
	assert.Equal(t, "hookexec", c.Service)
	assert.Equal(t, time.Minute, c.MetricInterval)
	assert.False(t, c.Content)

	c, err = Resolve(nil, env("HOOKEXEC_TELEMETRY", "1", "HOOKEXEC_TELEMETRY_CONTENT", "1",
		"OTEL_EXPORTER_OTLP_ENDPOINT", "https://otel.example:4318/", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "https://m.example/custom",
		"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "grpc", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://127.0.0.1:4317",
		"OTEL_TRACES_EXPORTER", "otlp", "OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%20b,x=1", "OTEL_EXPORTER_OTLP_TIMEOUT", "2500",
		"OTEL_EXPORTER_OTLP_COMPRESSION", "gzip", "OTEL_METRIC_EXPORT_INTERVAL", "100",
		"OTEL_SERVICE_NAME", "ci", "OTEL_RESOURCE_ATTRIBUTES", "service.name=ignored,deployment.environment=prod,team=a"))
	require.NoError(t, err)
	assert.True(t, c.Content)
	assert.Equal(t, "https://otel.example:4318/v1/traces", c.Traces.URL, "the base gets the signal's path")
	assert.False(t, c.Traces.Insecure)
	assert.Equal(t, "https://m.example/custom", c.Metrics.URL, "a per-signal endpoint is the whole URL")
	assert.Equal(t, Signal{Protocol: ProtoGRPC, URL: "http://127.0.0.1:4317", Insecure: true, Timeout: 2500 * time.Millisecond,
		Compression: "gzip", Headers: map[string]string{"api-key": "a b", "x": "1"}}, c.Logs)
	assert.Equal(t, "ci", c.Service, "OTEL_SERVICE_NAME wins over service.name in the resource attributes")
	assert.Equal(t, []attribute.KeyValue{attribute.String("deployment.environment", "prod"), attribute.String("team", "a")}, c.Resource)
	assert.Equal(t, 100*time.Millisecond, c.MetricInterval)

	// The option's fields win over the variables, per-signal ones included.
	c, err = Resolve(&Options{Enabled: yes(), Endpoint: "127.0.0.1:4317", Protocol: "grpc", ServiceName: "svc", LogContent: no(),
		Headers: map[string]string{"k": "v"}},
		env("HOOKEXEC_TELEMETRY_CONTENT", "1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://else:1", "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
			"OTEL_EXPORTER_OTLP_INSECURE", "true", "OTEL_SERVICE_NAME", "env", "OTEL_METRICS_EXPORTER", "none"))
	require.NoError(t, err)
	assert.Equal(t, Signal{Protocol: ProtoGRPC, URL: "127.0.0.1:4317", Insecure: true, Timeout: 10 * time.Second, Headers: map[string]string{"k": "v"}}, c.Traces)
	assert.True(t, c.Metrics.Off)
	assert.Equal(t, "svc", c.Service)
	assert.False(t, c.Content)
}

func TestResolveErrors(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"HOOKEXEC_TELEMETRY", "yes"}, "HOOKEXEC_TELEMETRY=yes"},
		{[]string{"OTEL_TRACES_EXPORTER", "console"}, "OTEL_TRACES_EXPORTER=console"},
		{[]string{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"}, `protocol "http/json"`},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"}, "not an http(s) URL"},
		{[]string{"OTEL_EXPORTER_OTLP_HEADERS", "novalue"}, "OTEL_EXPORTER_OTLP_HEADERS"},
		{[]string{"OTEL_EXPORTER_OTLP_TIMEOUT", "-1"}, "OTEL_EXPORTER_OTLP_TIMEOUT=-1"},
		{[]string{"OTEL_EXPORTER_OTLP_COMPRESSION", "zstd"}, "zstd"},
		{[]string{"OTEL_RESOURCE_ATTRIBUTES", "a"}, "OTEL_RESOURCE_ATTRIBUTES"},
	} {
		_, err := Resolve(nil, env(append([]string{"HOOKEXEC_TELEMETRY", "1"}, tc.env...)...))
		require.Error(t, err, tc.env)
		assert.ErrorIs(t, err, ErrInvalid)
		assert.Contains(t, err.Error(), tc.want)
	}
	assert.Error(t, (&Options{Protocol: "http"}).Validate())
	assert.Error(t, (&Options{Endpoint: "no-scheme:4318"}).Validate(), "http/protobuf wants a URL")
	assert.NoError(t, (&Options{Endpoint: "127.0.0.1:4317", Protocol: "grpc"}).Validate())
	assert.NoError(t, (*Options)(nil).Validate())
}
