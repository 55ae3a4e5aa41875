package telemetry

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

// Environment variables of hookexec's own; the OTEL_* ones are OpenTelemetry's.
const (
	// EnvEnable turns telemetry on ("1" or "true") for engines whose options do not say.
	EnvEnable = "HOOKEXEC_TELEMETRY"
	// EnvContent adds content (payloads, reasons, commands) to spans and logs ("1" or
	// "true"), as Claude Code's OTEL_LOG_TOOL_DETAILS does for tools.
	EnvContent = "HOOKEXEC_TELEMETRY_CONTENT"
)

// ErrInvalid wraps every error of Resolve: a setting that cannot be used.
var ErrInvalid = errors.New("hookexec: telemetry")

// Options is the "telemetry" object of the engine's options JSON. Every field is optional;
// a setting given here wins over the environment's.
type Options struct {
	// Enabled turns telemetry on or off; nil means $HOOKEXEC_TELEMETRY decides (off when
	// unset). OTEL_SDK_DISABLED=true turns it off whatever this says.
	Enabled *bool `json:"enabled"`
	// Endpoint is the OTLP endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT means it: a base URL
	// to which http/protobuf adds /v1/traces, /v1/metrics and /v1/logs; for grpc the
	// collector's URL or host:port. "" means the variables, else the protocol's default
	// (http://localhost:4318, localhost:4317).
	Endpoint string `json:"endpoint"`
	// Protocol is "grpc" or "http/protobuf"; "" means OTEL_EXPORTER_OTLP_PROTOCOL (and the
	// per-signal ones), else http/protobuf.
	Protocol string `json:"protocol"`
	// ServiceName is the resource's service.name; "" means OTEL_SERVICE_NAME, else
	// service.name in OTEL_RESOURCE_ATTRIBUTES, else "hookexec".
	ServiceName string `json:"service_name"`
	// Headers are sent with every export (an API key); nil means OTEL_EXPORTER_OTLP_HEADERS.
	Headers map[string]string `json:"headers"`
	// LogContent adds payloads, reasons, commands and hook errors to spans and logs; nil
	// means $HOOKEXEC_TELEMETRY_CONTENT (off when unset). The environment is never exported.
	LogContent *bool `json:"log_content"`
}

// Config is a resolved telemetry setting: what a pipeline exports, and where.
type Config struct {
	Service  string
	Resource []attribute.KeyValue // OTEL_RESOURCE_ATTRIBUTES, service.name excluded
	Traces   Signal
	Metrics  Signal
	Logs     Signal
	// MetricInterval is how often metrics are exported (OTEL_METRIC_EXPORT_INTERVAL).
	MetricInterval time.Duration
	// BatchDelay is how long spans and logs wait to be batched (OTEL_BSP_SCHEDULE_DELAY,
	// OTEL_BLRP_SCHEDULE_DELAY).
	SpanDelay, LogDelay time.Duration
	// Content: payloads, reasons, commands and hook errors are exported. Not part of the
	// pipeline: engines sharing one pipeline may differ in it.
	Content bool `json:"-"`
}

// Signal is where one signal (traces, metrics or logs) goes.
type Signal struct {
	Off      bool // OTEL_<SIGNAL>_EXPORTER=none
	Protocol string
	// URL is the full URL for http/protobuf (path included); for grpc the endpoint as
	// given (a URL or host:port).
	URL         string
	Insecure    bool // grpc without TLS (an http:// URL, or OTEL_EXPORTER_OTLP_INSECURE=true)
	Headers     map[string]string
	Timeout     time.Duration
	Compression string // "gzip" or ""
}

// Protocols hookexec exports with. http/json is OpenTelemetry's third; the Go SDK has no
// exporter for it.
const (
	ProtoGRPC = "grpc"
	ProtoHTTP = "http/protobuf"
)

var signals = [...]struct{ name, env, path string }{
	{"traces", "TRACES", "/v1/traces"}, {"metrics", "METRICS", "/v1/metrics"}, {"logs", "LOGS", "/v1/logs"},
}

// Resolve decides from the options and the environment (getenv: the engine's, which in
// the daemon is the calling agent's) whether telemetry is on, and how. A nil Config with
// a nil error means off. An error names the setting that cannot be used.
func Resolve(o *Options, getenv func(string) string) (*Config, error) {
	if o == nil {
		o = &Options{}
	}
	disabled, err := flag(getenv, "OTEL_SDK_DISABLED")
	if err != nil || disabled {
		return nil, err
	}
	on := o.Enabled != nil && *o.Enabled
	if o.Enabled == nil {
		if on, err = flag(getenv, EnvEnable); err != nil {
			return nil, err
		}
	}
	if !on {
		return nil, nil
	}
	c := &Config{}
	if o.LogContent != nil {
		c.Content = *o.LogContent
	} else if c.Content, err = flag(getenv, EnvContent); err != nil {
		return nil, err
	}
	if c.Resource, c.Service, err = resourceAttrs(getenv("OTEL_RESOURCE_ATTRIBUTES")); err != nil {
		return nil, err
	}
	c.Service = first(o.ServiceName, getenv("OTEL_SERVICE_NAME"), c.Service, "hookexec")
	if c.MetricInterval, err = millis(getenv, "OTEL_METRIC_EXPORT_INTERVAL", 60*time.Second); err != nil {
		return nil, err
	}
	if c.SpanDelay, err = millis(getenv, "OTEL_BSP_SCHEDULE_DELAY", 5*time.Second); err != nil {
		return nil, err
	}
	if c.LogDelay, err = millis(getenv, "OTEL_BLRP_SCHEDULE_DELAY", time.Second); err != nil {
		return nil, err
	}
	out := [...]*Signal{&c.Traces, &c.Metrics, &c.Logs}
	for i, s := range signals {
		if *out[i], err = resolveSignal(o, getenv, s.name, s.env, s.path); err != nil {
			return nil, err
		}
	}
	if c.Traces.Off && c.Metrics.Off && c.Logs.Off {
		return nil, nil
	}
	return c, nil
}

func resolveSignal(o *Options, getenv func(string) string, name, env, path string) (Signal, error) {
	var s Signal
	exp := strings.TrimSpace(getenv("OTEL_" + env + "_EXPORTER"))
	s.Off = true
	for _, e := range strings.Split(first(exp, "otlp"), ",") {
		switch strings.TrimSpace(e) {
		case "otlp":
			s.Off = false
		case "none", "":
		default:
			return s, fmt.Errorf("%w: OTEL_%s_EXPORTER=%s: hookexec exports otlp or none (a console exporter would write to the agent's output)", ErrInvalid, env, exp)
		}
	}
	if s.Off {
		return s, nil
	}
	s.Protocol = first(o.Protocol, getenv("OTEL_EXPORTER_OTLP_"+env+"_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), ProtoHTTP)
	if s.Protocol != ProtoGRPC && s.Protocol != ProtoHTTP {
		return s, fmt.Errorf("%w: protocol %q for %s: want %q or %q", ErrInvalid, s.Protocol, name, ProtoGRPC, ProtoHTTP)
	}
	// The option and the generic variable are a base; the per-signal variable is the
	// signal's whole URL, as OpenTelemetry's specification has it.
	base, whole := first(o.Endpoint, getenv("OTEL_EXPORTER_OTLP_ENDPOINT")), getenv("OTEL_EXPORTER_OTLP_"+env+"_ENDPOINT")
	if o.Endpoint != "" {
		whole = ""
	}
	var err error
	if s.URL, s.Insecure, err = endpoint(s.Protocol, base, whole, path); err != nil {
		return s, fmt.Errorf("%w: endpoint for %s: %v", ErrInvalid, name, err)
	}
	if insecure, err := flag(getenv, first(nonEmpty(getenv, "OTEL_EXPORTER_OTLP_"+env+"_INSECURE"), "OTEL_EXPORTER_OTLP_INSECURE")); err != nil {
		return s, err
	} else if insecure {
		s.Insecure = true
	}
	s.Headers = o.Headers
	if s.Headers == nil {
		h := first(getenv("OTEL_EXPORTER_OTLP_"+env+"_HEADERS"), getenv("OTEL_EXPORTER_OTLP_HEADERS"))
		if s.Headers, err = headers(h); err != nil {
			return s, err
		}
	}
	if s.Timeout, err = millis(getenv, first(nonEmpty(getenv, "OTEL_EXPORTER_OTLP_"+env+"_TIMEOUT"), "OTEL_EXPORTER_OTLP_TIMEOUT"), 10*time.Second); err != nil {
		return s, err
	}
	switch c := first(getenv("OTEL_EXPORTER_OTLP_"+env+"_COMPRESSION"), getenv("OTEL_EXPORTER_OTLP_COMPRESSION")); c {
	case "gzip":
		s.Compression = c
	case "", "none":
	default:
		return s, fmt.Errorf("%w: OTEL_EXPORTER_OTLP_COMPRESSION=%s: want gzip or none", ErrInvalid, c)
	}
	return s, nil
}

// endpoint is the signal's URL and whether grpc goes without TLS.
func endpoint(proto, base, whole, path string) (string, bool, error) {
	raw := first(whole, base)
	if proto == ProtoGRPC {
		if raw == "" {
			return "localhost:4317", true, nil
		}
		if !strings.Contains(raw, "://") {
			return raw, false, nil // host:port; TLS unless OTEL_EXPORTER_OTLP_INSECURE
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return "", false, fmt.Errorf("%q is not an http(s) URL or host:port", raw)
		}
		return raw, u.Scheme == "http", nil
	}
	if raw == "" {
		base, raw = "http://localhost:4318", ""
	}
	if whole == "" {
		raw = strings.TrimRight(base, "/") + path
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false, fmt.Errorf("%q is not an http(s) URL", raw)
	}
	return raw, u.Scheme == "http", nil
}

// flag reads a boolean variable: "1"/"true" on, "0"/"false"/unset off.
func flag(getenv func(string) string, name string) (bool, error) {
	switch v := strings.ToLower(strings.TrimSpace(getenv(name))); v {
	case "1", "true":
		return true, nil
	case "", "0", "false":
		return false, nil
	default:
		return false, fmt.Errorf("%w: %s=%s: want true or false", ErrInvalid, name, v)
	}
}

// millis reads a duration in milliseconds; def when unset.
func millis(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%w: %s=%s: want a positive number of milliseconds", ErrInvalid, name, v)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// headers parses W3C baggage-style "k=v,k2=v2" with percent-encoded values.
func headers(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if !ok || k == "" || err != nil {
			return nil, fmt.Errorf("%w: OTEL_EXPORTER_OTLP_HEADERS: %q is not key=value", ErrInvalid, kv)
		}
		out[k] = dv
	}
	return out, nil
}

// resourceAttrs parses OTEL_RESOURCE_ATTRIBUTES; service.name comes back on its own.
func resourceAttrs(s string) ([]attribute.KeyValue, string, error) {
	m, err := headers(s)
	if err != nil {
		return nil, "", fmt.Errorf("%w: OTEL_RESOURCE_ATTRIBUTES: want key=value,...", ErrInvalid)
	}
	service := m["service.name"]
	delete(m, "service.name")
	out := make([]attribute.KeyValue, 0, len(m))
	for k, v := range m {
		out = append(out, attribute.String(k, v))
	}
	set := attribute.NewSet(out...)
	return set.ToSlice(), service, nil // sorted: one pipeline per setting
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// nonEmpty is name when its variable is set, else "".
func nonEmpty(getenv func(string) string, name string) string {
	if getenv(name) != "" {
		return name
	}
	return ""
}

// Validate checks the option's own fields (not the environment's), so that a host's typo
// fails its Open.
func (o *Options) Validate() error {
	if o == nil {
		return nil
	}
	if o.Protocol != "" && o.Protocol != ProtoGRPC && o.Protocol != ProtoHTTP {
		return fmt.Errorf("%w: protocol %q: want %q or %q", ErrInvalid, o.Protocol, ProtoGRPC, ProtoHTTP)
	}
	if o.Endpoint != "" {
		proto := first(o.Protocol, ProtoHTTP)
		if _, _, err := endpoint(proto, o.Endpoint, "", "/"); err != nil {
			return fmt.Errorf("%w: endpoint: %v", ErrInvalid, err)
		}
	}
	return nil
}
