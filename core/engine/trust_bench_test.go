package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A project hook whose script is 64 KiB, fired with trust "all" (the baseline: no check)
// and with trust "project" once approved (a stat of the script per fire). The script is
// older than the hasher's racy window, as an approved script normally is; the difference
// between the two is what trust adds to a fire.

func benchTrustEngine(b *testing.B, mode string) *Engine {
	return benchTrustEngineOf(b, mode, "/bin/sh .claude/hooks/ok.sh", 0)
}

// benchTrustEngineOf is benchTrustEngine with another command and extra small files in
// the project (a command that computes its paths pins the whole project).
func benchTrustEngineOf(b *testing.B, mode, command string, extra int) *Engine {
	dir, home := b.TempDir(), b.TempDir()
	script := "#!/bin/sh\n" + strings.Repeat("# padding so hashing has something to read\n", 1500) + "exit 0\n"
	files := map[string]string{
		".claude/hooks/ok.sh":   script,
		".claude/settings.json": `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"command":` + strconv.Quote(command) + `,"name":"ok"}]}]}}`,
	}
	for i := range extra {
		files[fmt.Sprintf("src/d%d/f%d.txt", i%10, i)] = strconv.Itoa(i)
	}
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(2100 * time.Millisecond) // past the racy window: the stat cache may answer
	e, err := Open(Options{Profile: "claude", ProjectDir: dir, Home: home, Trust: mode})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	if mode == "project" {
		if _, err := e.Approve("ok"); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

func benchTrustFire(b *testing.B, mode string) {
	e := benchTrustEngine(b, mode)
	b.ReportAllocs()
	for b.Loop() {
		r, err := e.Fire("PreToolUse", []byte(`{"tool_name":"Bash"}`))
		if err != nil || len(r.Hooks) != 1 {
			b.Fatal(err, r)
		}
	}
}

func BenchmarkTrustFireModeAll(b *testing.B)             { benchTrustFire(b, "all") }
func BenchmarkTrustFireModeProjectApproved(b *testing.B) { benchTrustFire(b, "project") }

// The trust step alone (admit), without running the hook.
func BenchmarkTrustAdmitApproved(b *testing.B) { benchAdmit(b, benchTrustEngine(b, "project")) }

// The same for a command that pins the whole project, of 100 and 1000 files besides the
// hook's own.
func BenchmarkTrustAdmitProjectTree100(b *testing.B) {
	benchAdmit(b, benchTrustEngineOf(b, "project", `/bin/sh "$(pwd)/.claude/hooks/ok.sh"`, 100))
}

func BenchmarkTrustAdmitProjectTree1000(b *testing.B) {
	benchAdmit(b, benchTrustEngineOf(b, "project", `/bin/sh "$(pwd)/.claude/hooks/ok.sh"`, 1000))
}

func benchAdmit(b *testing.B, e *Engine) {
	p := e.plan.Load()
	sel := p.byEvent["PreToolUse"]
	b.ReportAllocs()
	for b.Loop() {
		if run, _ := e.admit(p.trust, sel); len(run) != 1 {
			b.Fatal("not admitted")
		}
	}
}
