package payload

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRender(t *testing.T) {
	doc, err := Parse([]byte(`{"tool_name":"Bash","tool_args":{"file_path":"/a b","n":3,"ok":true,"nil":null,"o":{"x":[1,"y"]}},
		"files":["f0","f1"],"tool_response":"out","session_id":"s1"}`))
	require.NoError(t, err)
	defer doc.Release()
	tests := []struct{ expr, want string }{
		{"tool_name", "Bash"},
		{"tool_args.file_path", "/a b"},
		{"tool_input.file_path", "/a b"}, // tool_input ≡ tool_args
		{"tool_args.n", "3"},
		{"tool_args.ok", "true"},
		{"tool_args.nil", ""},
		{"tool_args.o", `{"x":[1,"y"]}`},
		{"tool_args.o.x[1]", "y"},
		{"files[1]", "f1"},
		{"files[9]", ""},
		{"result", "out"}, // result ≡ tool_response
		{"session", "s1"},
		{"missing.deep", ""},
		{"tool_name.x", ""},
	}
	for _, tt := range tests {
		p, err := Compile(tt.expr)
		require.NoError(t, err, tt.expr)
		require.Equal(t, tt.want, doc.Render(p), tt.expr)
	}
	for _, bad := range []string{"", "a..b", "a[x]", "a[1"} {
		_, err := Compile(bad)
		require.Error(t, err, bad)
	}
}

func TestParseErrors(t *testing.T) {
	_, err := Parse([]byte(`[1]`))
	require.ErrorIs(t, err, ErrNotObject)
	_, err = Parse([]byte(`{"a":`))
	require.ErrorContains(t, err, "invalid JSON")
	doc, err := Parse(nil)
	require.NoError(t, err)
	doc.Release()
}

func TestStdinEnvelope(t *testing.T) {
	doc, err := Parse([]byte("{\n  \"tool_name\": \"Bash\",\n  \"tool_args\": {\"command\": \"ls\"},\n  \"session_id\": \"host\"}"))
	require.NoError(t, err)
	defer doc.Release()
	out := doc.Stdin(Claude, Frame{Event: "PreToolUse", SessionID: "engine", Cwd: "/p\"q", TranscriptPath: "/t"})
	require.Equal(t, byte('\n'), out[len(out)-1])
	require.NotContains(t, string(out[:len(out)-1]), "\n", "one line")
	var m map[string]any
	require.NoError(t, json.Unmarshal(out, &m))
	require.Equal(t, "host", m["session_id"], "the payload's own field wins")
	require.Equal(t, "PreToolUse", m["hook_event_name"])
	require.Equal(t, "/p\"q", m["cwd"])
	require.Equal(t, map[string]any{"command": "ls"}, m["tool_input"], "tool_args mirrored as tool_input")

	out = doc.Stdin(AutoAgent, Frame{Event: "PreExecutionStart", SessionID: "s", Cwd: "/w", Time: time.UnixMilli(1700000000123)})
	m = nil
	require.NoError(t, json.Unmarshal(out, &m))
	require.Equal(t, "PreExecutionStart", m["eventName"])
	require.Equal(t, "s", m["sessionId"])
	require.Equal(t, "/w", m["workspace"])
	require.Equal(t, float64(1700000000123), m["timestamp"], "a number, as AutoAgent's Date.now()")
	require.NotContains(t, m, "tool_input")
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\", "nl\n\r\t", "\x01\x1f", "ünï😀"} {
		var got string
		require.NoError(t, json.Unmarshal(AppendJSONString(nil, s), &got))
		require.Equal(t, s, got)
	}
}

// Reading a string makes fastjson re-quote it Go-style (\x1b) in MarshalTo; stdin must stay
// valid JSON however the payload was read before (ANSI colours in tool output are common).
func TestStdinValidAfterReads(t *testing.T) {
	doc, err := Parse([]byte(`{"tool_name":"a\u001bb\u000bc","tool_response":"\u001b[31mred\u001b[0m\n","x":{"y":"q\u0001\ud83d\ude00"}}`))
	require.NoError(t, err)
	defer doc.Release()
	for _, expr := range []string{"tool_name", "tool_response", "x.y", "x"} {
		p, err := Compile(expr)
		require.NoError(t, err)
		_ = doc.Render(p)
	}
	out := doc.Stdin(Claude, Frame{})
	var m map[string]any
	require.NoError(t, json.Unmarshal(out, &m), string(out))
	require.Equal(t, "a\x1bb\vc", m["tool_name"])
	require.Equal(t, "\x1b[31mred\x1b[0m\n", m["tool_response"])
	require.Equal(t, map[string]any{"y": "q\x01😀"}, m["x"])
}
