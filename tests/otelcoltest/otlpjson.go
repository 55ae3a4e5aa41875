package otelcoltest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// OTLP's JSON mapping, as the file exporter writes it: one export request per line, 64-bit
// integers as strings (numbers are accepted too), trace and span ids in hex, enums as numbers.

// jsonInt is a 64-bit integer written as a string or a number.
type jsonInt int64

func (n *jsonInt) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(string(b), 10, 64) // fixed64 fields above MaxInt64
		if uerr != nil {
			return fmt.Errorf("otelcoltest: %q is not an integer", b)
		}
		v = int64(u)
	}
	*n = jsonInt(v)
	return nil
}

// jsonFloat is a double written as a number or as "NaN", "Infinity" or "-Infinity".
type jsonFloat float64

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*f = jsonFloat(math.NaN())
	case `"Infinity"`:
		*f = jsonFloat(math.Inf(1))
	case `"-Infinity"`:
		*f = jsonFloat(math.Inf(-1))
	default:
		v, err := strconv.ParseFloat(string(bytes.Trim(b, `"`)), 64)
		if err != nil {
			return fmt.Errorf("otelcoltest: %s is not a number", b)
		}
		*f = jsonFloat(v)
	}
	return nil
}

func unixNano(n jsonInt) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(n)).UTC()
}

type wireKeyValue struct {
	Key   string       `json:"key"`
	Value wireAnyValue `json:"value"`
}

type wireAnyValue struct {
	StringValue *string    `json:"stringValue"`
	BoolValue   *bool      `json:"boolValue"`
	IntValue    *jsonInt   `json:"intValue"`
	DoubleValue *jsonFloat `json:"doubleValue"`
	BytesValue  *string    `json:"bytesValue"`
	ArrayValue  *struct {
		Values []wireAnyValue `json:"values"`
	} `json:"arrayValue"`
	KvlistValue *struct {
		Values []wireKeyValue `json:"values"`
	} `json:"kvlistValue"`
}

// value is v as a Go value: string, bool, int64, float64, []byte, []any, map[string]any, or
// nil for an empty value.
func (v wireAnyValue) value() (any, error) {
	switch {
	case v.StringValue != nil:
		return *v.StringValue, nil
	case v.BoolValue != nil:
		return *v.BoolValue, nil
	case v.IntValue != nil:
		return int64(*v.IntValue), nil
	case v.DoubleValue != nil:
		return float64(*v.DoubleValue), nil
	case v.BytesValue != nil:
		b, err := base64.StdEncoding.DecodeString(*v.BytesValue)
		if err != nil {
			return nil, fmt.Errorf("otelcoltest: bytesValue: %w", err)
		}
		return b, nil
	case v.ArrayValue != nil:
		out := make([]any, 0, len(v.ArrayValue.Values))
		for _, e := range v.ArrayValue.Values {
			ev, err := e.value()
			if err != nil {
				return nil, err
			}
			out = append(out, ev)
		}
		return out, nil
	case v.KvlistValue != nil:
		return attributes(v.KvlistValue.Values)
	}
	return nil, nil
}

func attributes(kvs []wireKeyValue) (map[string]any, error) {
	out := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v, err := kv.Value.value()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kv.Key, err)
		}
		out[kv.Key] = v
	}
	return out, nil
}

type wireResource struct {
	Attributes []wireKeyValue `json:"attributes"`
}

type wireScope struct {
	Name       string         `json:"name"`
	Version    string         `json:"version"`
	Attributes []wireKeyValue `json:"attributes"`
}

// Scope is the instrumentation scope a span, metric or log record was recorded under.
type Scope struct {
	Name       string
	Version    string
	Attributes map[string]any
}

// origin is what a resource and scope give each item under them.
type origin struct {
	resource map[string]any
	scope    Scope
}

func newOrigin(r wireResource, s wireScope) (origin, error) {
	ra, err := attributes(r.Attributes)
	if err != nil {
		return origin{}, fmt.Errorf("resource: %w", err)
	}
	sa, err := attributes(s.Attributes)
	if err != nil {
		return origin{}, fmt.Errorf("scope: %w", err)
	}
	return origin{resource: ra, scope: Scope{Name: s.Name, Version: s.Version, Attributes: sa}}, nil
}

// decodeLines decodes each line as an export request and flattens it with each.
func decodeLines[R any, T any](lines [][]byte, each func(R) ([]T, error)) ([]T, error) {
	var out []T
	for i, line := range lines {
		var req R
		if err := json.Unmarshal(line, &req); err != nil {
			return nil, fmt.Errorf("otelcoltest: line %d of the file exporter's output: %w: %s", i+1, err, line)
		}
		items, err := each(req)
		if err != nil {
			return nil, fmt.Errorf("otelcoltest: line %d of the file exporter's output: %w", i+1, err)
		}
		out = append(out, items...)
	}
	return out, nil
}
