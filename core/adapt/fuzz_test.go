package adapt

import (
	"testing"

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
