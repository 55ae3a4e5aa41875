package trust

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The fuzzed commands are built from these pieces (never from raw bytes: they run), so
// every one of them only prints what the project's scripts say.
var (
	fuzzTargets = []string{
		"x.sh", "./x.sh", "d/x.sh", `"$CLAUDE_PROJECT_DIR"/d/x.sh`, `"$(pwd)/d/x.sh"`,
		"d/*.sh", "d/{x,y}.sh", "l/../x.sh", `"$D"/x.sh`, `"${U:-.}/d/x.sh"`, "check.sh",
		"d/d/x.sh", "$(git rev-parse --show-toplevel 2>/dev/null || pwd)/x.sh", "d/../d/y.sh",
	}
	fuzzRunners  = []string{"sh %s", "cat %s | sh", "sh < %s", ". %s", "for f in %s; do sh \"$f\"; done", "sh -c 'sh %s'"}
	fuzzPrefixes = []string{"", "cd d && ", `cd "$CLAUDE_PROJECT_DIR" && `, "true; ", "cd d; cd d && ", "D=d/d; "}
	// fuzzChanges are the changes made after the approval: a path under the project and
	// what happens to it.
	fuzzPaths = []string{"x.sh", "d/x.sh", "d/y.sh", "d/z.sh", "d/d/x.sh", "d/d/y.sh", "check.sh", "d/check.sh",
		"real/x.sh", "l", "d", "d/d", "sub/x.sh", ".claude/x.sh", "z.sh"}
)

const fuzzLayout = "x.sh=echo top\nd/x.sh=echo d-x\nd/y.sh=echo d-y\nd/d/x.sh=echo dd-x\nreal/x.sh=echo real\nreal/inner/keep=\nl=->real/inner\nsub/keep="

// FuzzAnalyse: for any command built from the pieces above and any change under the
// project after the approval, either the change does not change what the command prints
// (it runs nothing changed), or the pins' hashes notice it, or the approval is refused.
// The oracle is the command itself, run for real before and after the change.
func FuzzAnalyse(f *testing.F) {
	for _, s := range [][5]uint8{{0, 0, 0, 0, 0}, {5, 1, 1, 2, 1}, {7, 0, 0, 8, 0}, {10, 0, 0, 6, 0}, {8, 2, 5, 4, 0},
		{13, 3, 2, 3, 2}, {1, 4, 1, 1, 1}, {11, 0, 0, 12, 0}, {2, 5, 3, 2, 1}} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, target, runner, prefix, path, op uint8) {
		dir := t.TempDir()
		require.NoError(t, exec.Command("git", "init", "-q", dir).Run())
		for _, line := range strings.Split(fuzzLayout, "\n") {
			rel, content, _ := strings.Cut(line, "=")
			fuzzWrite(t, dir, rel, content)
		}
		command := fuzzPrefixes[int(prefix)%len(fuzzPrefixes)] +
			strings.ReplaceAll(fuzzRunners[int(runner)%len(fuzzRunners)], "%s", fuzzTargets[int(target)%len(fuzzTargets)]) +
			" 2>/dev/null; echo end"
		env := []string{"D=d"}
		c := Command{Shell: command, Env: env, Dir: dir, Project: dir, Home: t.TempDir(), Path: os.Getenv("PATH")}
		before := fuzzRun(t, c)

		var h Hasher
		a := Analyse(c)
		approved, err := h.HashAll(a.Pins)
		if err != nil {
			return // refused
		}
		rel := fuzzPaths[int(path)%len(fuzzPaths)]
		p := filepath.Join(dir, rel)
		switch op % 3 {
		case 0: // write (or create) a script
			if fi, err := os.Lstat(p); err == nil && (fi.IsDir() || fi.Mode()&os.ModeSymlink != 0) {
				require.NoError(t, os.RemoveAll(p))
			}
			fuzzWrite(t, dir, rel, "echo changed "+rel)
		case 1: // remove it
			require.NoError(t, os.RemoveAll(p))
		case 2: // replace it with a symlink to another directory's copy
			require.NoError(t, os.RemoveAll(p))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.Symlink(filepath.Join(dir, "real"), p))
		}
		after := fuzzRun(t, c)
		if before == after {
			return // nothing that runs changed
		}
		now, err := h.HashAll(a.Pins)
		if err != nil {
			return // the next fire refuses
		}
		require.NotEmpty(t, FilesChanged(approved, now),
			"command %q: %s (op %d) changed what runs (%q → %q) but no pin noticed; pins %+v", command, rel, op%3, before, after, a.Pins)
	})
}

func fuzzWrite(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	if target, ok := strings.CutPrefix(content, "->"); ok {
		require.NoError(t, os.Symlink(target, p))
		return
	}
	require.NoError(t, os.WriteFile(p, []byte(content+"\n"), 0o755))
}

// fuzzRun runs the command as the engine would (sh -c in its directory, with the
// project variable and its env) and returns what it printed.
func fuzzRun(t *testing.T, c Command) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard only
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", c.Shell)
	cmd.Dir = c.Dir
	cmd.Env = append(append(os.Environ(), "CLAUDE_PROJECT_DIR="+c.Project), c.Env...)
	out, _ := cmd.CombinedOutput()
	return string(out)
}
