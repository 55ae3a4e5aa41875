package engine

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/hookexec/hookexec/core/run"
)

// The fire benchmarks sit beside their baselines: spawning /bin/true through os/exec and
// through core/run. `make bench` shows them in one run; the difference is hookexec's cost.

func benchEngine(b *testing.B, cfg string) *Engine {
	dir := b.TempDir()
	e, err := Open(Options{ProjectDir: dir, Home: dir, Config: json.RawMessage(cfg)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e
}

const benchPayload = `{"tool_name":"bash_execute","tool_input":{"command":"ls -la","description":"list"},"session_id":"s"}`

func BenchmarkBaselineExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBaselineRunTrue(b *testing.B) {
	for b.Loop() {
		run.Run(context.Background(), run.Spec{Argv: []string{"/bin/true"}})
	}
}

func BenchmarkFireOneDirectHook(b *testing.B) {
	e := benchEngine(b, `{"hooks":{"PreToolUse":[{"matcher":"bash_execute","hooks":[{"command":"/bin/true <<tool_input.command>>"}]}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Fire("PreToolUse", []byte(benchPayload)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFireNoMatch(b *testing.B) {
	e := benchEngine(b, `{"hooks":{"PreToolUse":[{"matcher":"write_file|mcp__*","hooks":[{"command":"true"}]}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Fire("PreToolUse", []byte(benchPayload)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	e := benchEngine(b, `{"hooks":{"PreToolUse":[{"matcher":"write_file|mcp__*","hooks":[{"command":"true"}]},{"matcher":"^bash","hooks":[{"command":"true"}]}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Match("PreToolUse", "bash_execute"); err != nil {
			b.Fatal(err)
		}
	}
}
