package notify

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hookexec/core/event"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fastjson"
)

// now is 05:06:07.089 in UTC+1; every message must carry it as UTC with milliseconds.
var now = time.Date(2025, 3, 4, 5, 6, 7, 89_000_321, time.FixedZone("CET", 3600))

const ts = `"timestamp":"2025-03-04T04:06:07.089Z"`

func TestMethod(t *testing.T) {
	tests := []struct {
		fired  string
		method string
		ok     bool
	}{
		// autohand's kebab names
		{"pre-tool", "autohand.hook.preTool", true},
		{"post-tool", "autohand.hook.postTool", true},
		{"file-modified", "autohand.hook.fileModified", true},
		{"pre-prompt", "autohand.hook.prePrompt", true},
		{"stop", "autohand.hook.stop", true},
		{"post-response", "autohand.hook.postResponse", true},
		{"session-start", "autohand.hook.sessionStart", true},
		{"session-end", "autohand.hook.sessionEnd", true},
		{"session-error", "autohand.hook.sessionError", true},
		{"subagent-stop", "autohand.hook.subagentStop", true},
		{"permission-request", "autohand.hook.permissionRequest", true},
		{"notification", "autohand.hook.notification", true},
		// canonical names
		{"PreToolUse", "autohand.hook.preTool", true},
		{"PostToolUse", "autohand.hook.postTool", true},
		{"FileModified", "autohand.hook.fileModified", true},
		{"UserPromptSubmit", "autohand.hook.prePrompt", true},
		{"Stop", "autohand.hook.stop", true},
		{"SessionStart", "autohand.hook.sessionStart", true},
		{"SessionEnd", "autohand.hook.sessionEnd", true},
		{"SessionError", "autohand.hook.sessionError", true},
		{"SubagentStop", "autohand.hook.subagentStop", true},
		{"PermissionRequest", "autohand.hook.permissionRequest", true},
		{"Notification", "autohand.hook.notification", true},
		// other dialects' aliases
		{"BeforeTool", "autohand.hook.preTool", true},
		{"AfterTool", "autohand.hook.postTool", true},
		{"session_start", "autohand.hook.sessionStart", true},
		{"session_end", "autohand.hook.sessionEnd", true},
		{"on_error", "autohand.hook.sessionError", true},
		// no autohand notification
		{"PreCompact", "", false},
		{"PreCompress", "", false},
		{"PostToolUseFailure", "", false},
		{"PreIteration", "", false},
		{"on_task_complete", "", false},
		{"PreExecutionStart", "", false},
		{"pretooluse", "", false},
		{"preTool", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.fired, func(t *testing.T) {
			m, ok := Method(tt.fired)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.method, m)
		})
	}
}

// TestTable guards the data table: every entry names an event the event package knows, and
// every method is reachable from its kebab name.
func TestTable(t *testing.T) {
	for _, s := range specs {
		require.True(t, event.Lookup(s.event).Known, s.event)
		m, ok := Method(s.event)
		require.True(t, ok, s.event)
		require.Equal(t, methodPrefix+s.method, m)
	}
}

func TestMessage(t *testing.T) {
	tests := []struct {
		name    string
		fired   string
		payload string
		params  string // without the trailing timestamp
	}{
		{
			name:  "pre-tool autohand",
			fired: "pre-tool",
			payload: `{"session_id":"abc123","cwd":"/w","hook_event_name":"pre-tool","tool_name":"write_file",
				"tool_input":{"path":"src/index.ts","content":"..."},"tool_use_id":"call_123",
				"tool_response":null,"tool_success":null,"file_path":null,"duration":null,"error":null}`,
			params: `"toolId":"call_123","toolName":"write_file","args":{"path":"src/index.ts","content":"..."},`,
		},
		{
			name:  "PreToolUse claude",
			fired: "PreToolUse",
			payload: `{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"PreToolUse",
				"tool_name":"Bash","tool_input":{"command":"npm test","description":"Run tests"},"tool_use_id":"toolu_01"}`,
			params: `"toolId":"toolu_01","toolName":"Bash","args":{"command":"npm test","description":"Run tests"},`,
		},
		{
			name:    "BeforeTool camelCase beats snake_case",
			fired:   "BeforeTool",
			payload: `{"tool_args":{"x":1},"toolName":"camel","tool_name":"snake","toolCallId":"c1","args":{"path":"a.go"}}`,
			params:  `"toolId":"c1","toolName":"camel","args":{"path":"a.go"},`,
		},
		{
			name:  "post-tool autohand",
			fired: "post-tool",
			payload: `{"tool_name":"run_command","tool_input":{"command":"ls"},"tool_use_id":"call_9",
				"tool_response":"a.go\nb.go\n","tool_success":true,"duration":1234,"file_path":null}`,
			params: `"toolId":"call_9","toolName":"run_command","success":true,"duration":1234,"output":"a.go\nb.go\n",`,
		},
		{
			name:  "PostToolUse claude",
			fired: "PostToolUse",
			payload: `{"hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/w/a.go"},
				"tool_response":{"filePath":"/w/a.go","success":true},"tool_use_id":"toolu_02"}`,
			params: `"toolId":"toolu_02","toolName":"Write","output":{"filePath":"/w/a.go","success":true},`,
		},
		{
			name:    "file-modified autohand",
			fired:   "file-modified",
			payload: `{"tool_name":"write_file","file_path":"src/a.ts","change_type":"modify","tool_use_id":"call_5"}`,
			params:  `"filePath":"src/a.ts","changeType":"modify","toolId":"call_5",`,
		},
		{
			name:    "FileModified nested tool_input.file_path",
			fired:   "FileModified",
			payload: `{"file_path":null,"tool_input":{"file_path":"/w/b.go","content":"x"},"change_type":"create","tool_id":"t7"}`,
			params:  `"filePath":"/w/b.go","changeType":"create","toolId":"t7",`,
		},
		{
			name:    "FileModified nested tool_input.path",
			fired:   "FileModified",
			payload: `{"tool_input":{"path":"lib/c.go"},"changeType":"delete"}`,
			params:  `"filePath":"lib/c.go","changeType":"delete",`,
		},
		{
			name:    "pre-prompt autohand",
			fired:   "pre-prompt",
			payload: `{"instruction":"fix the bug in @src/a.ts","mentioned_files":["src/a.ts"],"tokens_used":null}`,
			params:  `"instruction":"fix the bug in @src/a.ts","mentionedFiles":["src/a.ts"],`,
		},
		{
			name:    "UserPromptSubmit claude",
			fired:   "UserPromptSubmit",
			payload: `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"add tests"}`,
			params:  `"instruction":"add tests",`,
		},
		{
			name:    "stop autohand",
			fired:   "stop",
			payload: `{"tokens_used":1520,"tool_calls_count":3,"turn_tool_calls":9,"turn_duration":4200,"duration":null}`,
			params:  `"tokensUsed":1520,"toolCallsCount":3,"duration":4200,`,
		},
		{
			name:    "post-response keeps its method",
			fired:   "post-response",
			payload: `{"tokens_used":10,"turn_tool_calls":2,"duration":1.50}`,
			params:  `"tokensUsed":10,"toolCallsCount":2,"duration":1.50,`,
		},
		{
			name:    "Stop claude has none of the params",
			fired:   "Stop",
			payload: `{"session_id":"s1","hook_event_name":"Stop","stop_hook_active":false}`,
			params:  ``,
		},
		{
			name:    "session-start autohand",
			fired:   "session-start",
			payload: `{"session_type":"resume","session_end_reason":null}`,
			params:  `"sessionType":"resume",`,
		},
		{
			name:    "SessionStart claude",
			fired:   "SessionStart",
			payload: `{"hook_event_name":"SessionStart","source":"startup"}`,
			params:  `"sessionType":"startup",`,
		},
		{
			name:    "session-end autohand",
			fired:   "session-end",
			payload: `{"session_end_reason":"quit","duration":60000}`,
			params:  `"reason":"quit","duration":60000,`,
		},
		{
			name:    "SessionEnd claude",
			fired:   "SessionEnd",
			payload: `{"hook_event_name":"SessionEnd","reason":"clear"}`,
			params:  `"reason":"clear",`,
		},
		{
			name:    "session-error autohand, numeric code stays a number",
			fired:   "session-error",
			payload: `{"error":"rate limited","error_code":429}`,
			params:  `"error":"rate limited","code":429,`,
		},
		{
			name:    "on_error camelCase with context",
			fired:   "on_error",
			payload: `{"error":"boom","code":"E_API","context":{"model":"m1","retries":[1,2]}}`,
			params:  `"error":"boom","code":"E_API","context":{"model":"m1","retries":[1,2]},`,
		},
		{
			name:  "subagent-stop autohand",
			fired: "subagent-stop",
			payload: `{"subagent_id":"sa-1","subagent_name":"reviewer","subagent_type":"code-review",
				"subagent_success":false,"subagent_duration":900,"subagent_error":"timeout","duration":null,"error":null}`,
			params: `"subagentId":"sa-1","subagentName":"reviewer","subagentType":"code-review","success":false,"duration":900,"error":"timeout",`,
		},
		{
			name:    "SubagentStop claude",
			fired:   "SubagentStop",
			payload: `{"hook_event_name":"SubagentStop","agent_id":"a1","agent_type":"Explore","stop_hook_active":false}`,
			params:  `"subagentId":"a1","subagentType":"Explore",`,
		},
		{
			name:    "permission-request autohand",
			fired:   "permission-request",
			payload: `{"tool_name":"run_command","tool_input":{"command":"rm -rf build"},"permission_type":"command","file_path":null}`,
			params:  `"tool":"run_command","command":"rm -rf build","args":{"command":"rm -rf build"},`,
		},
		{
			name:    "PermissionRequest claude",
			fired:   "PermissionRequest",
			payload: `{"hook_event_name":"PermissionRequest","tool_name":"Write","tool_input":{"file_path":"/w/a.go","content":"x"}}`,
			params:  `"tool":"Write","path":"/w/a.go","args":{"file_path":"/w/a.go","content":"x"},`,
		},
		{
			name:    "notification autohand",
			fired:   "notification",
			payload: `{"notification_type":"info","notification_message":"Task done"}`,
			params:  `"notificationType":"info","message":"Task done",`,
		},
		{
			name:    "Notification claude",
			fired:   "Notification",
			payload: `{"hook_event_name":"Notification","message":"Claude needs your permission","notification_type":"permission_prompt"}`,
			params:  `"notificationType":"permission_prompt","message":"Claude needs your permission",`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method, ok := Method(tt.fired)
			require.True(t, ok)
			msg, ok := Message(tt.fired, fastjson.MustParse(tt.payload), now)
			require.True(t, ok)
			want := `{"jsonrpc":"2.0","method":"` + method + `","params":{` + tt.params + ts + `}}`
			require.Equal(t, want, string(msg))
			require.True(t, json.Valid(msg))
		})
	}
}

func TestMessageUnknown(t *testing.T) {
	for _, fired := range []string{"PreCompact", "PreExecutionStart", "PostToolUseFailure", ""} {
		msg, ok := Message(fired, fastjson.MustParse(`{"tool_name":"x"}`), now)
		assert.False(t, ok, fired)
		assert.Nil(t, msg, fired)
	}
}

// TestMessageEmpty: with nothing to copy, every method still announces itself with a timestamp.
func TestMessageEmpty(t *testing.T) {
	payloads := map[string]*fastjson.Value{
		"nil":    nil,
		"{}":     fastjson.MustParse(`{}`),
		"array":  fastjson.MustParse(`[{"tool_name":"x"}]`),
		"string": fastjson.MustParse(`"tool_name"`),
		"nulls":  fastjson.MustParse(`{"tool_name":null,"toolName":null,"tool_input":null,"tool_use_id":null}`),
	}
	for name, payload := range payloads {
		for _, s := range specs {
			msg, ok := Message(s.event, payload, now)
			require.True(t, ok)
			want := `{"jsonrpc":"2.0","method":"autohand.hook.` + s.method + `","params":{` + ts + `}}`
			require.Equal(t, want, string(msg), "%s %s", name, s.event)
		}
	}
}

func TestMessageTimestamp(t *testing.T) {
	for _, tt := range []struct {
		now  time.Time
		want string
	}{
		{time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), "2025-01-02T03:04:05.000Z"},
		{time.Date(2025, 1, 2, 3, 4, 5, 999_999_999, time.UTC), "2025-01-02T03:04:05.999Z"},
		{time.Date(2025, 1, 1, 0, 30, 0, 5_000_000, time.FixedZone("", 3600)), "2024-12-31T23:30:00.005Z"},
	} {
		msg, ok := Message("Stop", nil, tt.now)
		require.True(t, ok)
		require.Equal(t, `{"jsonrpc":"2.0","method":"autohand.hook.stop","params":{"timestamp":"`+tt.want+`"}}`, string(msg))
	}
}

// TestMessageEscaping covers strings that need escaping, whether fastjson still holds them
// raw or something (a matcher, a template) has already read and unescaped them.
func TestMessageEscaping(t *testing.T) {
	const in = `{"tool_name":"q\"uote","tool_use_id":"\u001b[31mred\u001b[0m\u000b","tool_response":"<b>a & b</b>\\ \t\n\u2028é",
		"tool_input":{"k\"ey":"\u0000","nested":{"s":"\u007f"}}}`
	const want = `{"jsonrpc":"2.0","method":"autohand.hook.postTool","params":{` +
		`"toolId":"\u001b[31mred\u001b[0m\u000b","toolName":"q\"uote",` +
		`"output":"<b>a & b</b>\\ \t\n` + "\u2028é" + `",` + ts + `}}`
	for _, read := range []bool{false, true} {
		t.Run(fmt.Sprint("read=", read), func(t *testing.T) {
			v := fastjson.MustParse(in)
			if read {
				for _, k := range []string{"tool_name", "tool_use_id", "tool_response"} {
					_ = v.Get(k).GetStringBytes()
				}
			}
			msg, ok := Message("PostToolUse", v, now)
			require.True(t, ok)
			require.Equal(t, want, string(msg))

			msg, ok = Message("pre-tool", v, now)
			require.True(t, ok)
			require.Contains(t, string(msg), `"args":{"k\"ey":"\u0000","nested":{"s":"`+"\x7f"+`"}}`)
			var back struct {
				Params map[string]any `json:"params"`
			}
			require.NoError(t, json.Unmarshal(msg, &back))
			require.Equal(t, "\x1b[31mred\x1b[0m\v", back.Params["toolId"])
		})
	}
}

// TestMessageInvalidUTF8: bytes that are not UTF-8 become U+FFFD, so the message stays JSON.
// (Control characters are covered by TestMessageEscaping: fastjson's Arena.NewString itself
// stores them Go-quoted, so an arena cannot build them.)
func TestMessageInvalidUTF8(t *testing.T) {
	var a fastjson.Arena
	built := a.NewObject()
	built.Set("notification_message", a.NewStringBytes([]byte("bad \xff byte")))
	built.Set("notification_type", a.NewString("warn"))
	parsed := fastjson.MustParse("{\"notification_type\":\"warn\",\"message\":\"bad \xff byte\"}")
	for _, v := range []*fastjson.Value{built, parsed} {
		msg, ok := Message("notification", v, now)
		require.True(t, ok)
		require.Equal(t, `{"jsonrpc":"2.0","method":"autohand.hook.notification","params":{`+
			`"notificationType":"warn","message":"bad \ufffd byte",`+ts+`}}`, string(msg))
		require.True(t, json.Valid(msg))
	}
}

// TestMessageConcurrent renders distinct payloads at once: the pooled buffer is never shared
// and the returned message is the caller's to keep.
func TestMessageConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	msgs := make([][]byte, 32)
	for i := range msgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := fastjson.MustParse(fmt.Sprintf(`{"tool_use_id":"call_%d","tool_name":"t","tool_input":{"n":%d}}`, i, i))
			for range 50 {
				msgs[i], _ = Message("pre-tool", v, now)
			}
		}()
	}
	wg.Wait()
	for i, msg := range msgs {
		require.Equal(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"autohand.hook.preTool","params":{`+
			`"toolId":"call_%d","toolName":"t","args":{"n":%d},`+ts+`}}`, i, i), string(msg))
	}
}

func BenchmarkMessagePreTool(b *testing.B) {
	v := fastjson.MustParse(`{"session_id":"abc123","transcript_path":"/home/u/.claude/t.jsonl","cwd":"/w",
		"hook_event_name":"PreToolUse","tool_name":"Bash",
		"tool_input":{"command":"go test -race ./... 2>&1 | tail -n 50","description":"Run the tests","timeout":120000},
		"tool_use_id":"toolu_01ABCDEF"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Message("PreToolUse", v, now); !ok {
			b.Fatal("no message")
		}
	}
}
