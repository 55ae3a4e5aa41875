package engine

import (
	"encoding/json"
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

// The rm -rf benchmarks: docs/policy.md's rm -rf guard ("Deny rm -rf outside the project",
// as the page writes it) fired in the engine, beside a fire that matches no hook. `make
// bench` sets the same three against each other from Go and from Python
// (tests/bench/bench_fire.py); these are for the profile (go test -cpuprofile). Its rule reads
// the `commands` fact (the Bash parser); the two above match the command's text alone.

func benchRmrfEngine(b *testing.B, lang string) *Engine {
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

func benchRmrf(b *testing.B, lang, command, want string) {
	e := benchRmrfEngine(b, lang)
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

func BenchmarkFirePolicyRmrfNoMatch(b *testing.B) { benchRmrf(b, "none", "ls -la", "none") }
func BenchmarkFirePolicyRmrfCEL(b *testing.B)     { benchRmrf(b, "cel", "ls -la", "none") }
func BenchmarkFirePolicyRmrfRego(b *testing.B)    { benchRmrf(b, "rego", "ls -la", "none") }
func BenchmarkFirePolicyRmrfCELDeny(b *testing.B) {
	benchRmrf(b, "cel", "rm -rf /tmp/elsewhere", "deny")
}
func BenchmarkFirePolicyRmrfRegoDeny(b *testing.B) {
	benchRmrf(b, "rego", "rm -rf /tmp/elsewhere", "deny")
}
