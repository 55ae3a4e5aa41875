package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The policy benchmarks: docs/policy.md's rm -rf guard ("Deny rm -rf outside the project",
// as the page writes it) fired in the engine, beside a fire that matches no hook. `make
// bench` sets the same three against each other from Go and from Python
// (tests/bench/bench_fire.py); these are for the profile (go test -cpuprofile).

func benchPolicyEngine(b *testing.B, lang string) *Engine {
	g := docGuards(b)["rmrf"]
	group := map[string]json.RawMessage{"cel": g.cel, "rego": g.rego, "none": g.cel}[lang]
	var grp map[string]any
	if err := json.Unmarshal(group, &grp); err != nil {
		b.Fatal(err)
	}
	if lang == "none" {
		grp["matcher"] = "Write"
	}
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "guards"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "guards", "rmrf.rego"), []byte(g.module), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{grp}}})
	e, err := Open(Options{Profile: "claude", ProjectDir: dir, Home: dir, Config: cfg})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e
}

func benchPolicy(b *testing.B, lang, command, want string) {
	e := benchPolicyEngine(b, lang)
	payload, _ := json.Marshal(map[string]any{"session_id": "s", "tool_name": "Bash", "tool_input": map[string]string{"command": command}})
	r, err := e.Fire("PreToolUse", payload)
	if err != nil {
		b.Fatal(err)
	}
	if lang != "none" && (r.Decision != want || r.Hooks[0].Error != "") {
		b.Fatalf("%s: %s", command, r.JSON())
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Fire("PreToolUse", payload); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFirePolicyNoMatch(b *testing.B) { benchPolicy(b, "none", "ls -la", "none") }
func BenchmarkFirePolicyCEL(b *testing.B)     { benchPolicy(b, "cel", "ls -la", "none") }
func BenchmarkFirePolicyRego(b *testing.B)    { benchPolicy(b, "rego", "ls -la", "none") }
func BenchmarkFirePolicyCELDeny(b *testing.B) { benchPolicy(b, "cel", "rm -rf /tmp/elsewhere", "deny") }
func BenchmarkFirePolicyRegoDeny(b *testing.B) {
	benchPolicy(b, "rego", "rm -rf /tmp/elsewhere", "deny")
}

// BenchmarkFirePolicyCELString is a CEL rule over the payload's text alone (no fact): what
// the evaluator and the handler cost without the shell parser that the rm -rf rule's
// `commands` runs.
func BenchmarkFirePolicyCELString(b *testing.B) {
	dir := b.TempDir()
	e, err := Open(Options{Profile: "claude", ProjectDir: dir, Home: dir, Config: json.RawMessage(
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"policy","cel":"tool_input.command.contains('rm -rf')"}]}]}}`)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	payload := []byte(`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"ls -la"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Fire("PreToolUse", payload); err != nil {
			b.Fatal(err)
		}
	}
}
