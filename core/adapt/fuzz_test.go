package adapt

import (
	"encoding/json"
	"testing"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/vocab"
)

// FuzzPayload feeds arbitrary bytes as an agent's hook payload to adapt, the hook being
// "true". Properties: nothing panics; a payload adapt takes gives a native answer whose
// exit code is 0 or 2, or an error.
func FuzzPayload(f *testing.F) {
	for _, s := range []string{
		`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"mcp__a__b","tool_input":[]}`,
		`{"hook_event_name":"Stop","tool_name":1}`, `{"hook_event_name":""}`, `{bad`, ``, `[]`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, to := range []string{vocab.Gemini, vocab.Qwen} {
			ans, err := Run(Request{From: vocab.Claude, To: to, Command: "true", Payload: data, Project: dir, Home: dir})
			if err == nil && ans.ExitCode != 0 && ans.ExitCode != 2 {
				t.Fatalf("exit %d for %q", ans.ExitCode, data)
			}
		}
	})
}

// FuzzRead feeds arbitrary bytes as a Cursor, Copilot CLI or Windsurf payload to adapt's
// readers. Properties: nothing panics; a payload read is a JSON object whose
// hook_event_name is the canonical event the reader reports, and whose tool_name, when
// there is one, is the reported tool.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		// cursor.com/docs/agent/hooks
		`{"conversation_id":"c","generation_id":"g","hook_event_name":"beforeShellExecution","workspace_roots":["/p"],"command":"ls","cwd":"/p"}`,
		`{"hook_event_name":"afterFileEdit","file_path":"/p/a","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`,
		`{"hook_event_name":"preToolUse","tool_name":"MCP:search","tool_input":"{\"q\":1}"}`,
		// docs.github.com copilot cli-hooks-reference
		`{"timestamp":1704614600000,"cwd":"/p","toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}`,
		`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"edit","tool_input":{"path":"a"}}`,
		// docs.windsurf.com/windsurf/cascade/hooks
		`{"agent_action_name":"pre_mcp_tool_use","trajectory_id":"t","execution_id":"e","tool_info":{"mcp_server_name":"gh","mcp_tool_name":"issues","mcp_tool_arguments":{}}}`,
		`{"agent_action_name":"post_write_code","tool_info":{"file_path":"/p/a","edits":[]}}`,
		`{"hook_event_name":1}`, `{"tool_info":[]}`, `{bad`, ``, `null`,
	} {
		f.Add([]byte(s), "")
		f.Add([]byte(s), "preToolUse")
	}
	f.Fuzz(func(t *testing.T, data []byte, spelled string) {
		for _, to := range []string{vocab.Cursor, vocab.Copilot, vocab.Windsurf} {
			c, err := read(to, spelled, data)
			if err != nil {
				continue
			}
			var p map[string]any
			if err := json.Unmarshal(c.payload, &p); err != nil {
				t.Fatalf("%s: payload %q is not JSON: %v", to, c.payload, err)
			}
			if p["hook_event_name"] != c.event || !event.Lookup(c.event).Known {
				t.Fatalf("%s: event %q, payload %q", to, c.event, c.payload)
			}
			if tool, _ := p["tool_name"].(string); tool != c.tool {
				t.Fatalf("%s: tool %q, payload %q", to, c.tool, c.payload)
			}
		}
	})
}
