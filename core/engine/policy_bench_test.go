package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// A policy guard's fire beside BenchmarkFireNoMatch: the same engine path with the guard
// evaluated in-process on a call it lets through (ls -la), in each language.

const benchGuardCall = `{"tool_name":"Bash","tool_input":{"command":"ls -la"},"session_id":"s"}`

func benchPolicy(b *testing.B, handler string) {
	e := benchEngine(b, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [`+handler+`]}]}}`)
	for b.Loop() {
		r, err := e.Fire("PreToolUse", []byte(benchGuardCall))
		if err != nil || r.Matched != 1 || r.Blocked || r.Hooks[0].Error != "" {
			b.Fatalf("%v %s", err, r.JSON())
		}
	}
}

func BenchmarkFirePolicyCEL(b *testing.B) {
	benchPolicy(b, `{"type": "policy", "cel": "tool_input.command.matches('\\\\brm\\\\s+-[a-zA-Z]*(rf|fr)\\\\b')", "reason": "no rm -rf"}`)
}

func BenchmarkFirePolicyRego(b *testing.B) {
	module := filepath.Join(b.TempDir(), "rmrf.rego")
	if err := os.WriteFile(module, []byte("package rmrf\n\ndeny if regex.match(`\\brm\\s+-[a-zA-Z]*(rf|fr)\\b`, input.tool_input.command)\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	benchPolicy(b, `{"type": "policy", "rego": "`+module+`", "query": "data.rmrf.deny", "reason": "no rm -rf"}`)
}
