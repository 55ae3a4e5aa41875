package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hashing a 64 KiB script on every check against answering from the stat cache: the cost a
// fire pays for an approved hook whose script did not change.

func benchScript(b *testing.B) string {
	p := filepath.Join(b.TempDir(), "guard.sh")
	if err := os.WriteFile(p, []byte(strings.Repeat("echo padding\n", 5000)), 0o755); err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkHashRead(b *testing.B) {
	p := benchScript(b)
	for b.Loop() {
		if _, err := hashFile(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHashStatCached(b *testing.B) {
	p := benchScript(b)
	var h Hasher
	fi, _ := os.Stat(p)
	id, ok := identity(fi)
	if !ok {
		b.Skip("no stat identity here")
	}
	sum, _ := hashFile(p)
	h.cache = map[string]cached{p: {id: id, sum: sum}} // as if hashed long after its last change
	for b.Loop() {
		if _, err := h.Hash(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAnalyse(b *testing.B) {
	proj := b.TempDir()
	for b.Loop() {
		Analyse(Command{Shell: `python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py --strict && bash scripts/check.sh | tee out.log`,
			Dir: proj, Project: proj, Home: "/home/u", Path: "/usr/bin:/bin"})
	}
}
