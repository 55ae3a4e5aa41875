package otelcoltest

import (
	"fmt"
	"time"
)

// Span is a span as the collector received it.
type Span struct {
	TraceID      string // 32 lower-case hex digits
	SpanID       string // 16 lower-case hex digits
	ParentSpanID string // "" for a root span
	TraceState   string
	Flags        uint32
	Name         string
	Kind         int // OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer
	Start, End   time.Time
	Status       Status
	Attributes   map[string]any
	Events       []Event
	Links        []Link
	Resource     map[string]any // the attributes of its resource (service.name, …)
	Scope        Scope
}

// Status is a span's status: Code 0 unset, 1 ok, 2 error.
type Status struct {
	Code    int
	Message string
}

// Event is a span event.
type Event struct {
	Name       string
	Time       time.Time
	Attributes map[string]any
}

// Link is a span's link to another span.
type Link struct {
	TraceID, SpanID, TraceState string
	Attributes                  map[string]any
}

// SpanNamed is the spans named name, in order.
func SpanNamed(spans []Span, name string) []Span {
	var out []Span
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

type wireTraces struct {
	ResourceSpans []struct {
		Resource   wireResource `json:"resource"`
		ScopeSpans []struct {
			Scope wireScope  `json:"scope"`
			Spans []wireSpan `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type wireSpan struct {
	TraceID           string         `json:"traceId"`
	SpanID            string         `json:"spanId"`
	ParentSpanID      string         `json:"parentSpanId"`
	TraceState        string         `json:"traceState"`
	Flags             uint32         `json:"flags"`
	Name              string         `json:"name"`
	Kind              int            `json:"kind"`
	StartTimeUnixNano jsonInt        `json:"startTimeUnixNano"`
	EndTimeUnixNano   jsonInt        `json:"endTimeUnixNano"`
	Attributes        []wireKeyValue `json:"attributes"`
	Events            []struct {
		Name         string         `json:"name"`
		TimeUnixNano jsonInt        `json:"timeUnixNano"`
		Attributes   []wireKeyValue `json:"attributes"`
	} `json:"events"`
	Links []struct {
		TraceID    string         `json:"traceId"`
		SpanID     string         `json:"spanId"`
		TraceState string         `json:"traceState"`
		Attributes []wireKeyValue `json:"attributes"`
	} `json:"links"`
	Status struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"status"`
}

func decodeSpans(req wireTraces) ([]Span, error) {
	var out []Span
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			o, err := newOrigin(rs.Resource, ss.Scope)
			if err != nil {
				return nil, err
			}
			for _, ws := range ss.Spans {
				s, err := ws.span(o)
				if err != nil {
					return nil, fmt.Errorf("span %q: %w", ws.Name, err)
				}
				out = append(out, s)
			}
		}
	}
	return out, nil
}

func (ws wireSpan) span(o origin) (Span, error) {
	attrs, err := attributes(ws.Attributes)
	if err != nil {
		return Span{}, err
	}
	s := Span{
		TraceID: ws.TraceID, SpanID: ws.SpanID, ParentSpanID: ws.ParentSpanID, TraceState: ws.TraceState,
		Flags: ws.Flags, Name: ws.Name, Kind: ws.Kind,
		Start: unixNano(ws.StartTimeUnixNano), End: unixNano(ws.EndTimeUnixNano),
		Status:     Status{Code: ws.Status.Code, Message: ws.Status.Message},
		Attributes: attrs, Resource: o.resource, Scope: o.scope,
	}
	for _, e := range ws.Events {
		ea, err := attributes(e.Attributes)
		if err != nil {
			return Span{}, fmt.Errorf("event %q: %w", e.Name, err)
		}
		s.Events = append(s.Events, Event{Name: e.Name, Time: unixNano(e.TimeUnixNano), Attributes: ea})
	}
	for _, l := range ws.Links {
		la, err := attributes(l.Attributes)
		if err != nil {
			return Span{}, fmt.Errorf("link: %w", err)
		}
		s.Links = append(s.Links, Link{TraceID: l.TraceID, SpanID: l.SpanID, TraceState: l.TraceState, Attributes: la})
	}
	return s, nil
}
