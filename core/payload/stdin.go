package payload

import (
	"strconv"
	"time"
	"unicode/utf8"

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
	// Gemini: Claude's four fields plus timestamp, an ISO 8601 time in UTC with
	// milliseconds as JavaScript's toISOString writes it (Gemini CLI, Qwen Code).
	Gemini
)

// Frame holds the values that fill an envelope.
type Frame struct {
	Event          string // the event as the hook's dialect spells it
	SessionID      string
	TranscriptPath string
	Cwd            string
	Time           time.Time // AutoAgent's timestamp: milliseconds since the epoch, as Date.now()
	// ToolName, when set, replaces the payload's tool_name (the tool as the hook's agent
	// spells it).
	ToolName string
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
	// key starts a field; its value is appended to buf right after (no value is built
	// apart and copied: this runs for every fire that runs a hook).
	key := func(k []byte) {
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		buf = AppendJSONBytes(buf, k)
		buf = append(buf, ':')
	}
	str := func(k, v string) {
		if obj.Get(k) == nil {
			key([]byte(k))
			buf = AppendJSONString(buf, v)
		}
	}
	switch env {
	case Claude, Gemini:
		str("session_id", f.SessionID)
		str("transcript_path", f.TranscriptPath)
		str("cwd", f.Cwd)
		str("hook_event_name", f.Event)
		if env == Gemini {
			str("timestamp", f.Time.UTC().Format("2006-01-02T15:04:05.000Z"))
		}
	case AutoAgent:
		str("eventName", f.Event)
		str("sessionId", f.SessionID)
		str("workspace", f.Cwd)
		if obj.Get("timestamp") == nil {
			key([]byte("timestamp"))
			buf = strconv.AppendInt(buf, f.Time.UnixMilli(), 10)
		}
	}
	obj.Visit(func(k []byte, v *fastjson.Value) {
		key(k)
		if f.ToolName != "" && string(k) == "tool_name" {
			buf = AppendJSONString(buf, f.ToolName)
			return
		}
		buf = AppendJSON(buf, v)
	})
	if (env == Claude || env == Gemini) && obj.Get("tool_input") == nil {
		if v := obj.Get("tool_args"); v != nil {
			key([]byte("tool_input"))
			buf = AppendJSON(buf, v)
		}
	}
	buf = append(buf, '}', '\n')
	return buf
}

// AppendJSONString appends s to dst as a JSON string literal (strconv.Quote is not JSON).
func AppendJSONString(dst []byte, s string) []byte { return AppendJSONBytes(dst, []byte(s)) }

// AppendJSON appends v as compact JSON. Use it instead of v.MarshalTo: once a string of a
// document has been read (a template, an env var, a matcher subject), fastjson re-quotes it
// Go-style (\x1b, \v), which JSON parsers reject.
func AppendJSON(dst []byte, v *fastjson.Value) []byte {
	switch v.Type() {
	case fastjson.TypeString:
		return AppendJSONBytes(dst, v.GetStringBytes())
	case fastjson.TypeObject:
		o := v.GetObject()
		dst = append(dst, '{')
		n := 0
		o.Visit(func(k []byte, vv *fastjson.Value) {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = AppendJSONBytes(dst, k)
			dst = append(dst, ':')
			dst = AppendJSON(dst, vv)
		})
		return append(dst, '}')
	case fastjson.TypeArray:
		dst = append(dst, '[')
		for i, vv := range v.GetArray() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSON(dst, vv)
		}
		return append(dst, ']')
	default: // numbers keep their text; true, false, null
		return v.MarshalTo(dst)
	}
}

const hexDigits = "0123456789abcdef"

// AppendJSONBytes appends s as a JSON string: quote, backslash and control characters escaped,
// invalid UTF-8 replaced by U+FFFD, everything else (including <, >, &) as is.
func AppendJSONBytes(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
