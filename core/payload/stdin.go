package payload

import (
	"strconv"
	"time"

	"github.com/valyala/fastjson"
)

// Envelope is the set of fields a dialect puts around the host's payload on a hook's stdin.
type Envelope uint8

const (
	// Claude: session_id, transcript_path, cwd, hook_event_name + payload (Claude Code, cli-agent, mycode).
	Claude Envelope = iota
	// AutoAgent: eventName, sessionId, workspace, timestamp + payload.
	AutoAgent
	// Bare: the payload as the host sent it (autohand, iteratr).
	Bare
)

// Frame holds the values that fill an envelope.
type Frame struct {
	Event          string // the event as the hook's dialect spells it
	SessionID      string
	TranscriptPath string
	Cwd            string
	Time           time.Time // AutoAgent's timestamp: milliseconds since the epoch, as Date.now()
}

// Stdin renders the payload inside env as one line of compact JSON ending in "\n".
// Fields the payload already has win over the envelope's. When the payload names the tool
// input tool_args (cli-agent) and has no tool_input, tool_input is added as a copy so that
// Claude-style hooks reading .tool_input find it.
func (d *Doc) Stdin(env Envelope, f Frame) []byte {
	obj, _ := d.v.Object()
	buf := make([]byte, 0, 256)
	buf = append(buf, '{')
	n := 0
	field := func(k string, v []byte) {
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		buf = AppendJSONString(buf, k)
		buf = append(buf, ':')
		buf = append(buf, v...)
	}
	str := func(k, v string) {
		if obj.Get(k) == nil {
			field(k, AppendJSONString(nil, v))
		}
	}
	switch env {
	case Claude:
		str("session_id", f.SessionID)
		str("transcript_path", f.TranscriptPath)
		str("cwd", f.Cwd)
		str("hook_event_name", f.Event)
	case AutoAgent:
		str("eventName", f.Event)
		str("sessionId", f.SessionID)
		str("workspace", f.Cwd)
		if obj.Get("timestamp") == nil {
			field("timestamp", strconv.AppendInt(nil, f.Time.UnixMilli(), 10))
		}
	}
	obj.Visit(func(k []byte, v *fastjson.Value) {
		field(string(k), v.MarshalTo(nil))
	})
	if env == Claude && obj.Get("tool_input") == nil {
		if v := obj.Get("tool_args"); v != nil {
			field("tool_input", v.MarshalTo(nil))
		}
	}
	buf = append(buf, '}', '\n')
	return buf
}

// AppendJSONString appends s to dst as a JSON string literal. strconv.Quote is not JSON
// (it emits \x..), so escape by hand: control characters, quote and backslash.
func AppendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
