package dispatch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkDispatchNoMatch is the daemon's own work for a call no hook matches (the
// settings as install leaves them, the environment of this process), once the files have
// settled: the freshness check, the engine lookup, the fire and the native answer.
func BenchmarkDispatchNoMatch(b *testing.B) {
	root := b.TempDir()
	project, home := filepath.Join(root, "p"), filepath.Join(root, "h")
	for _, d := range []string{filepath.Join(project, ".claude"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	files := map[string]string{
		"settings.json":       `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/usr/bin/hookexec-hook --agent claude"}]}]}}`,
		"hookexec-hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(project, ".claude", name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(settleTime) // what a daemon sees between edits
	d := New()
	defer d.Close()
	req := Request{Agent: "claude", Project: project, Home: home, Env: os.Environ(),
		Payload: json.RawMessage(`{"hook_event_name":"PreToolUse","session_id":"s","cwd":"` + project + `","tool_name":"Read","tool_input":{"file_path":"x"}}`)}
	if _, err := d.Dispatch(req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Dispatch(req); err != nil {
			b.Fatal(err)
		}
	}
}
