package payload

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TopString finds a top-level string member in payloads no parser reads (truncated, too
// deep, broken after the member), and agrees with Parse where Parse reads them.
func TestTopString(t *testing.T) {
	deep := `{"tool_input":` + nest(MaxDepth+5, "1") + `,"hook_event_name":"PreToolUse"}`
	tests := []struct{ text, want string }{
		{`{"hook_event_name":"PreToolUse","tool_input":{"x":`, "PreToolUse"},
		{deep, "PreToolUse"},
		{`{"tool_input":{"hook_event_name":"Stop"},"hook_event_name" : "Pre\u0054oolUse"}`, "PreToolUse"},
		{`{"a":"hook_event_name","b":["hook_event_name",":"],"hook_event_name":"X","hook_event_name":"Y"}`, "X"},
		{`{"a":"\"hook_event_name\":\"Stop\"","hook_event_name":"Y"}`, "Y"},
		{`{"hook_event_name":1}`, ""},
		{`{"hook_event_name":"PreTool`, ""},
		{`[{"hook_event_name":"Stop"}]`, ""},
		{``, ""},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, TopString([]byte(tt.text), "hook_event_name"), tt.text)
		if doc, err := Parse([]byte(tt.text)); err == nil {
			require.Equal(t, doc.String("hook_event_name"), tt.want, tt.text)
			doc.Release()
		}
	}
}
