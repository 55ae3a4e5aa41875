package otelcoltest

import (
	"fmt"
	"time"
)

// LogRecord is a log record as the collector received it.
type LogRecord struct {
	Time, ObservedTime time.Time
	SeverityNumber     int // 1–24: 1 TRACE, 5 DEBUG, 9 INFO, 13 WARN, 17 ERROR, 21 FATAL
	SeverityText       string
	EventName          string
	Body               any // decoded as attribute values are
	Attributes         map[string]any
	TraceID, SpanID    string // the span it was emitted in; "" for none
	Flags              uint32
	Resource           map[string]any
	Scope              Scope
}

type wireLogs struct {
	ResourceLogs []struct {
		Resource  wireResource `json:"resource"`
		ScopeLogs []struct {
			Scope      wireScope `json:"scope"`
			LogRecords []struct {
				TimeUnixNano         jsonInt        `json:"timeUnixNano"`
				ObservedTimeUnixNano jsonInt        `json:"observedTimeUnixNano"`
				SeverityNumber       int            `json:"severityNumber"`
				SeverityText         string         `json:"severityText"`
				EventName            string         `json:"eventName"`
				Body                 wireAnyValue   `json:"body"`
				Attributes           []wireKeyValue `json:"attributes"`
				TraceID              string         `json:"traceId"`
				SpanID               string         `json:"spanId"`
				Flags                uint32         `json:"flags"`
			} `json:"logRecords"`
		} `json:"scopeLogs"`
	} `json:"resourceLogs"`
}

func decodeLogs(req wireLogs) ([]LogRecord, error) {
	var out []LogRecord
	for _, rl := range req.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			o, err := newOrigin(rl.Resource, sl.Scope)
			if err != nil {
				return nil, err
			}
			for _, wl := range sl.LogRecords {
				attrs, err := attributes(wl.Attributes)
				if err != nil {
					return nil, fmt.Errorf("log record: %w", err)
				}
				body, err := wl.Body.value()
				if err != nil {
					return nil, fmt.Errorf("log record body: %w", err)
				}
				out = append(out, LogRecord{
					Time: unixNano(wl.TimeUnixNano), ObservedTime: unixNano(wl.ObservedTimeUnixNano),
					SeverityNumber: wl.SeverityNumber, SeverityText: wl.SeverityText, EventName: wl.EventName,
					Body: body, Attributes: attrs, TraceID: wl.TraceID, SpanID: wl.SpanID, Flags: wl.Flags,
					Resource: o.resource, Scope: o.scope,
				})
			}
		}
	}
	return out, nil
}
