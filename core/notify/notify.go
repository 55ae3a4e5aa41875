// Package notify renders a fired hook event as the JSON-RPC 2.0 notification autohand emits
// for it in RPC mode (IDE integration): {"jsonrpc":"2.0","method":"autohand.hook.preTool",
// "params":{...}}, with the params of autohand's "Notification Parameters" table filled from
// the fire's payload, whichever dialect's field names the host used.
//
// It does not deliver anything, assign ids, or decide which fires are announced; the engine
// calls it once per fire and hands the bytes to the host's listener. It does not check or
// convert value types either: a field is copied as the JSON the payload holds.
package notify

import (
	"strings"
	"sync"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
)

// methodPrefix starts every method name.
const methodPrefix = "autohand.hook."

// param is one notification parameter and the payload fields it is taken from, first present
// (and not null) wins. A candidate with dots is a nested lookup: "tool_input.file_path".
type param struct {
	name string
	from []string
}

func p(name string, from ...string) param { return param{name: name, from: from} }

// Candidates shared by several methods. Each list starts with the param's own (camelCase)
// name, then autohand's stdin name, then Claude Code's and other dialects' names.
var (
	toolID   = p("toolId", "toolId", "toolCallId", "tool_use_id", "tool_call_id", "tool_id")
	toolName = p("toolName", "toolName", "tool_name")
	toolArgs = p("args", "args", "tool_input", "tool_args")
	pathArg  = p("path", "path", "filePath", "file_path", "tool_input.file_path", "tool_input.path")
	stopSet  = []param{
		p("tokensUsed", "tokensUsed", "tokens_used"),
		p("toolCallsCount", "toolCallsCount", "tool_calls_count", "turn_tool_calls"),
		p("duration", "duration", "duration_ms", "turn_duration"),
	}
)

// specs is the whole mapping: which fires announce which method with which params, in the
// seed's order. event is a canonical name (covering all its aliases) or an alias whose method
// differs from its canonical event's (post-response keeps its own method, as autohand does).
var specs = []struct {
	event, method string
	params        []param
}{
	{"PreToolUse", "preTool", []param{toolID, toolName, toolArgs}},
	{"PostToolUse", "postTool", []param{toolID, toolName,
		p("success", "success", "tool_success"),
		p("duration", "duration", "duration_ms", "tool_duration"),
		p("output", "output", "tool_response", "tool_output", "result"),
	}},
	{"FileModified", "fileModified", []param{
		p("filePath", "filePath", "file_path", "path", "tool_input.file_path", "tool_input.path"),
		p("changeType", "changeType", "change_type"),
		toolID,
	}},
	{"UserPromptSubmit", "prePrompt", []param{
		p("instruction", "instruction", "prompt"),
		p("mentionedFiles", "mentionedFiles", "mentioned_files"),
	}},
	{"Stop", "stop", stopSet},
	{"post-response", "postResponse", stopSet},
	{"SessionStart", "sessionStart", []param{
		p("sessionType", "sessionType", "session_type", "source"),
	}},
	{"SessionEnd", "sessionEnd", []param{
		p("reason", "reason", "session_end_reason"),
		p("duration", "duration", "duration_ms", "session_duration"),
	}},
	{"SessionError", "sessionError", []param{
		p("error", "error", "error_message"),
		p("code", "code", "error_code"),
		p("context", "context", "error_context"),
	}},
	{"SubagentStop", "subagentStop", []param{
		p("subagentId", "subagentId", "subagent_id", "agent_id"),
		p("subagentName", "subagentName", "subagent_name", "agent_name"),
		p("subagentType", "subagentType", "subagent_type", "agent_type"),
		p("success", "success", "subagent_success"),
		p("duration", "duration", "subagent_duration", "duration_ms"),
		p("error", "error", "subagent_error"),
	}},
	{"PermissionRequest", "permissionRequest", []param{
		p("tool", "tool", "toolName", "tool_name"),
		pathArg,
		p("command", "command", "tool_input.command"),
		toolArgs,
	}},
	{"Notification", "notification", []param{
		p("notificationType", "notificationType", "notification_type"),
		p("message", "message", "notification_message"),
	}},
}

// compiled is one method ready to render: the message up to the first param, and each
// param's `"name":` with its candidates split into key paths.
type compiled struct {
	method string
	head   []byte
	params []compiledParam
}

type compiledParam struct {
	key  []byte
	from [][]string
}

const tsKey = `"timestamp":"`

// byFired maps every event name and alias that has a notification to its compiled method.
var byFired = func() map[string]*compiled {
	bySpec := make(map[string]*compiled, len(specs))
	for _, s := range specs {
		c := &compiled{method: methodPrefix + s.method}
		c.head = payload.AppendJSONBytes([]byte(`{"jsonrpc":"2.0","method":`), []byte(c.method))
		c.head = append(c.head, `,"params":{`...)
		for _, pr := range s.params {
			cp := compiledParam{key: append(payload.AppendJSONBytes(nil, []byte(pr.name)), ':')}
			for _, f := range pr.from {
				cp.from = append(cp.from, strings.Split(f, "."))
			}
			c.params = append(c.params, cp)
		}
		bySpec[s.event] = c
	}
	m := make(map[string]*compiled)
	for _, name := range event.Names() {
		if c, ok := bySpec[name]; ok { // an alias with its own method wins over its canonical event
			m[name] = c
		} else if c, ok := bySpec[event.Canonical(name)]; ok {
			m[name] = c
		}
	}
	return m
}()

// Method returns the JSON-RPC method for an event as fired, e.g. "pre-tool" or "PreToolUse" →
// "autohand.hook.preTool"; "post-response" → "autohand.hook.postResponse" (autohand's alias of
// stop, kept as fired); ok is false for events autohand has no notification for (e.g.
// PreCompact, PostToolUseFailure, AutoAgent's PreExecutionStart). Names are case-sensitive.
func Method(fired string) (method string, ok bool) {
	c := byFired[fired]
	if c == nil {
		return "", false
	}
	return c.method, true
}

// bufPool holds scratch buffers so that a fire costs one allocation of the message's size.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooled keeps a fire with a huge tool output from pinning its buffer in the pool.
const maxPooled = 64 << 10

// Message renders {"jsonrpc":"2.0","method":M,"params":{...}} for one fire (no "id": it is a
// notification). params carry the fields of the seed's "Notification Parameters" table for
// that method, in the table's order, each copied as JSON from the first payload field present
// among its candidates; a field the payload lacks (or holds as null) is left out, except
// "timestamp", which is always last and set to now in RFC 3339 with milliseconds, UTC.
// Output is compact, valid JSON (strings re-escaped, no HTML escaping). doc is the parsed
// payload; nil, or anything but an object, reads as the empty object. ok is false, and
// msg nil, when Method(fired) has no method.
//
// Reading a fastjson value unescapes its strings in place, so the payload must not be read
// by another goroutine during the call; distinct payloads may be rendered concurrently.
func Message(fired string, doc *fastjson.Value, now time.Time) (msg []byte, ok bool) {
	c := byFired[fired]
	if c == nil {
		return nil, false
	}
	bp := bufPool.Get().(*[]byte)
	buf := append((*bp)[:0], c.head...)
	for i := range c.params {
		pr := &c.params[i]
		if v := first(doc, pr.from); v != nil {
			buf = append(buf, pr.key...)
			buf = payload.AppendJSON(buf, v)
			buf = append(buf, ',')
		}
	}
	buf = append(buf, tsKey...)
	buf = now.UTC().AppendFormat(buf, "2006-01-02T15:04:05.000Z07:00")
	buf = append(buf, `"}}`...)
	msg = append(make([]byte, 0, len(buf)), buf...)
	if cap(buf) <= maxPooled {
		*bp = buf
		bufPool.Put(bp)
	}
	return msg, true
}

// first returns the value of the first candidate present and not null, or nil.
func first(doc *fastjson.Value, from [][]string) *fastjson.Value {
	if doc == nil {
		return nil
	}
	for _, path := range from {
		if v := doc.Get(path...); v != nil && v.Type() != fastjson.TypeNull {
			return v
		}
	}
	return nil
}
