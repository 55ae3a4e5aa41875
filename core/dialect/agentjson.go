package dialect

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Helpers of the dialects whose hooks see their agent's own payload (Dialect.Stdin) and
// answer in its own vocabulary (Dialect.Answer). Payloads are small; they go through
// maps, and encode sorts keys, so a hook's stdin is deterministic.

type object = map[string]any

// decode turns the host's payload into a map (an empty one for nil).
func decode(v *fastjson.Value) object {
	m := object{}
	if v != nil {
		_ = json.Unmarshal(payload.AppendJSON(nil, v), &m) // valid JSON from the payload parser
	}
	return m
}

// encode renders m as one line of JSON ending in "\n", as every stdin is.
func encode(m object) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m) // maps of JSON values always encode
	return b.Bytes()
}

// parseAnswer reads a hook's stdout as a JSON object; nil when it is not one.
func parseAnswer(stdout []byte) object {
	t := bytes.TrimSpace(stdout)
	if len(t) == 0 || t[0] != '{' {
		return nil
	}
	var m object
	if json.Unmarshal(t, &m) != nil {
		return nil
	}
	return m
}

func str(m object, key string) string {
	s, _ := m[key].(string)
	return s
}

func obj(m object, key string) object {
	o, _ := m[key].(object)
	if o == nil {
		return object{}
	}
	return o
}

// firstStr returns the first non-empty string among keys.
func firstStr(m object, keys ...string) string {
	for _, k := range keys {
		if s := str(m, k); s != "" {
			return s
		}
	}
	return ""
}

// jsonText renders a value as the JSON string some agents pass (Cursor's MCP tool_input,
// Copilot's toolArgs): a string stays itself, anything else is its JSON.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// spellTool spells the host's tool name the way agent does (Claude's "Bash" is Cursor's
// "Shell"); a tool the vocabulary does not know keeps its name.
func spellTool(agent, name string) string {
	canon := vocab.Tool(name)
	if canon == "" {
		canon = name
	}
	if s := vocab.Spell(agent, canon); s != "" {
		return s
	}
	return name
}

// canonicalTool is the canonical name of the host's tool (itself when not in the vocabulary).
func canonicalTool(name string) string {
	if c := vocab.Tool(name); c != "" {
		return c
	}
	return name
}

// mcpParts splits mcp__server__tool; ok is false for other names.
func mcpParts(name string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(name, "mcp__")
	if !found {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok && server != "" && tool != ""
}

// edits is a file tool's input as the old_string/new_string pairs Cursor and Windsurf
// report (one pair for Edit, each of MultiEdit's, the whole content for Write).
func edits(input object) []any {
	if list, ok := input["edits"].([]any); ok {
		return list
	}
	if _, ok := input["old_string"]; ok {
		return []any{object{"old_string": input["old_string"], "new_string": input["new_string"]}}
	}
	if c, ok := input["content"]; ok {
		return []any{object{"old_string": "", "new_string": c}}
	}
	return []any{}
}

// filePathOf is the file a tool input names.
func filePathOf(input object) string { return firstStr(input, "file_path", "path", "notebook_path") }

// millis is the fire's time as milliseconds since the epoch.
func millis(t time.Time) int64 { return t.UnixMilli() }

// isoTime is the fire's time as RFC 3339 with milliseconds.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// canonicalAnswer renders a canonical (Claude Code) JSON answer; nil for an empty one.
func canonicalAnswer(m object) []byte {
	if len(m) == 0 {
		return nil
	}
	return encode(m)
}

// decisionAnswer is the canonical answer for a decision (allow, deny, ask) with its reason.
func decisionAnswer(out object, decision, reason string) {
	if decision == "" {
		return
	}
	out["decision"] = decision
	if reason != "" {
		out["reason"] = reason
	}
}
