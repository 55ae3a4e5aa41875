package trust

import (
	"os"
	"path/filepath"
	"strconv"
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

// A pinned tree (a command whose paths are computed at run time pins the project) of 100
// and 1000 small files, every file's hash answered from the stat cache: the cost a fire
// pays to check such an approval, against one pinned file (BenchmarkHashStatCached).
func benchTree(b *testing.B, n int) {
	root := b.TempDir()
	var h Hasher
	for i := range n {
		p := filepath.Join(root, "d"+strconv.Itoa(i%10), "f"+strconv.Itoa(i)+".sh")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("echo "+strconv.Itoa(i)+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		fi, _ := os.Stat(p)
		id, ok := identity(fi)
		if !ok {
			b.Skip("no stat identity here")
		}
		sum, _ := hashFile(p)
		if h.cache == nil {
			h.cache = map[string]cached{}
		}
		h.cache[p] = cached{id: id, sum: sum} // as if hashed long after the last change
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.HashTree(root); err != nil {
			b.Fatal(err)
		}
	}
	if h.Count() != 0 {
		b.Fatalf("%d files read: the stat cache did not answer", h.Count())
	}
}

func BenchmarkHashTree100(b *testing.B)  { benchTree(b, 100) }
func BenchmarkHashTree1000(b *testing.B) { benchTree(b, 1000) }
