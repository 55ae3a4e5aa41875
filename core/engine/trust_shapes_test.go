package engine

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trustShape is a command an approval must cover: the project's files, the hook, and a
// change to the project after the approval that changes what the hook runs.
type trustShape struct {
	name   string
	files  map[string]string // project-relative path → content ("->target" makes a symlink)
	hook   map[string]any    // the hook entry; "name" and "type" are added
	change func(t *testing.T, dir string)
	needs  string // a program the shape needs on PATH
}

func echoScript(word string) string { return "echo " + word + "\n" }

func writeProjectFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	if target, ok := strings.CutPrefix(content, "->"); ok {
		require.NoError(t, os.Symlink(target, p))
		return
	}
	require.NoError(t, os.WriteFile(p, []byte(content), 0o755))
}

func rewrite(rel, content string) func(*testing.T, string) {
	return func(t *testing.T, dir string) { writeProjectFile(t, dir, rel, content) }
}

// trustShapes are the review's shapes of commands whose approval missed what ran.
func trustShapes() []trustShape {
	return []trustShape{
		{name: "git rev-parse --show-toplevel",
			files:  map[string]string{"x.sh": echoScript("approved")},
			hook:   map[string]any{"command": `sh "$(git rev-parse --show-toplevel)/x.sh"`},
			change: rewrite("x.sh", echoScript("changed"))},
		{name: "$(pwd)",
			files:  map[string]string{"x.sh": echoScript("approved")},
			hook:   map[string]any{"command": `sh "$(pwd)/x.sh"`},
			change: rewrite("x.sh", echoScript("changed"))},
		{name: "${VAR:-.}",
			files:  map[string]string{"x.sh": echoScript("approved")},
			hook:   map[string]any{"command": `sh "${UNSET_IN_TEST:-.}/x.sh"`},
			change: rewrite("x.sh", echoScript("changed"))},
		{name: "python3 -m pkg", needs: "python3",
			files:  map[string]string{"pkg/__init__.py": "", "pkg/__main__.py": "print('approved')\n"},
			hook:   map[string]any{"command": `python3 -m pkg`},
			change: rewrite("pkg/__main__.py", "print('changed')\n")},
		{name: "python3 -m pkg, pkg created later", needs: "python3",
			files:  map[string]string{"keep.txt": "x"},
			hook:   map[string]any{"command": `python3 -m pkg 2>/dev/null || echo none`},
			change: rewrite("pkg.py", "print('changed')\n")},
		{name: "script on stdin",
			files:  map[string]string{"x.sh": echoScript("approved")},
			hook:   map[string]any{"command": `sh < x.sh`},
			change: rewrite("x.sh", echoScript("changed"))},
		{name: "exec-form sh -c",
			files:  map[string]string{"sub/x.sh": echoScript("approved")},
			hook:   map[string]any{"args": []string{"sh", "-c", "cd sub && ./x.sh"}},
			change: rewrite("sub/x.sh", echoScript("changed"))},
		{name: "variable from the hook's env",
			files:  map[string]string{"scripts/x.sh": echoScript("approved")},
			hook:   map[string]any{"command": `sh "$D/x.sh"`, "env": map[string]string{"D": "scripts"}},
			change: rewrite("scripts/x.sh", echoScript("changed"))},
		{name: "PATH assigned before the command",
			files:  map[string]string{"bin/tool": "#!/bin/sh\n" + echoScript("approved")},
			hook:   map[string]any{"command": `PATH=./bin:$PATH tool`},
			change: rewrite("bin/tool", "#!/bin/sh\n"+echoScript("changed"))},
		{name: "PYTHONPATH from the hook's env", needs: "python3",
			files:  map[string]string{"lib/m.py": "print('approved')\n"},
			hook:   map[string]any{"command": `python3 -c 'import m'`, "env": map[string]string{"PYTHONPATH": "lib"}},
			change: rewrite("lib/m.py", "print('changed')\n")},
		{name: "NODE_OPTIONS from the hook's env", needs: "node",
			files:  map[string]string{"pre.js": "console.log('approved')\n"},
			hook:   map[string]any{"command": `node -e 0`, "env": map[string]string{"NODE_OPTIONS": "--require ./pre.js"}},
			change: rewrite("pre.js", "console.log('changed')\n")},
		{name: "cd dir && ./x",
			files:  map[string]string{"sub/x.sh": echoScript("approved")},
			hook:   map[string]any{"command": `cd sub && ./x.sh`},
			change: rewrite("sub/x.sh", echoScript("changed"))},
		{name: "python3 dir/", needs: "python3",
			files:  map[string]string{"app/__main__.py": "print('approved')\n"},
			hook:   map[string]any{"command": `python3 app/`},
			change: rewrite("app/__main__.py", "print('changed')\n")},
		{name: "node dir/", needs: "node",
			files:  map[string]string{"app/index.js": "console.log('approved')\n"},
			hook:   map[string]any{"command": `node app/`},
			change: rewrite("app/index.js", "console.log('changed')\n")},
		{name: "glob, a file added",
			files:  map[string]string{"hooks/a.sh": echoScript("a")},
			hook:   map[string]any{"command": `for f in hooks/*.sh; do sh "$f"; done`},
			change: rewrite("hooks/b.sh", echoScript("b"))},
		{name: "braces",
			files: map[string]string{"parts/a.txt": echoScript("a"), "parts/b.txt": echoScript("b")},
			hook:  map[string]any{"command": `bash -c 'cat parts/{a,b}.txt | sh'`}, needs: "bash",
			change: rewrite("parts/b.txt", echoScript("changed"))},
		{name: "symlinked directory with ..",
			files:  map[string]string{"x.sh": echoScript("lexical"), "real/x.sh": echoScript("approved"), "real/inner/keep": "", "l": "->real/inner"},
			hook:   map[string]any{"command": `sh l/../x.sh`},
			change: rewrite("real/x.sh", echoScript("changed"))},
		{name: "bare script name created after approval",
			files:  map[string]string{"keep.txt": "x"},
			hook:   map[string]any{"command": `sh check.sh 2>/dev/null || echo none`},
			change: rewrite("check.sh", echoScript("changed"))},
		{name: "process substitution", needs: "bash",
			files:  map[string]string{"x.sh": echoScript("approved")},
			hook:   map[string]any{"command": `bash -c 'bash <(cat x.sh)'`},
			change: rewrite("x.sh", echoScript("changed"))},
		{name: "script computed from a file",
			files:  map[string]string{"cmd.txt": "echo approved"},
			hook:   map[string]any{"command": `sh -c "$(cat cmd.txt)"`},
			change: rewrite("cmd.txt", "echo changed")},
		{name: "symlink retargeted",
			files: map[string]string{"a/x.sh": echoScript("approved"), "b/x.sh": echoScript("changed"), "cur": "->a"},
			hook:  map[string]any{"command": `sh cur/x.sh`},
			change: func(t *testing.T, dir string) {
				require.NoError(t, os.Remove(filepath.Join(dir, "cur")))
				require.NoError(t, os.Symlink("b", filepath.Join(dir, "cur")))
			}},
	}
}

// TestTrustApprovalCoversWhatRuns: for every shape, a change to the project after the
// approval that changes what the hook runs (checked by running it without enforcement)
// is noticed at the next fire, without a reload, or the approval was refused.
func TestTrustApprovalCoversWhatRuns(t *testing.T) {
	for _, sh := range trustShapes() {
		t.Run(sh.name, func(t *testing.T) {
			if sh.needs != "" {
				if _, err := exec.LookPath(sh.needs); err != nil {
					t.Skip(sh.needs + " not on PATH")
				}
			}
			dir, home := t.TempDir(), t.TempDir()
			git := exec.Command("git", "init", "-q", dir)
			require.NoError(t, git.Run())
			for rel, content := range sh.files {
				writeProjectFile(t, dir, rel, content)
			}
			hk := map[string]any{"type": "command", "name": "guard"}
			for k, v := range sh.hook {
				hk[k] = v
			}
			b, err := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{hk}}}}})
			require.NoError(t, err)
			writeProjectFile(t, dir, ".claude/settings.json", string(b))
			open := func(mode string) *Engine {
				e, err := Open(Options{Profile: "claude", ProjectDir: dir, Home: home, Trust: mode})
				require.NoError(t, err)
				t.Cleanup(func() { _ = e.Close() })
				return e
			}
			ran := func(e *Engine) string {
				r := fireT(t, e, "Stop", `{}`)
				if len(r.Hooks) == 0 {
					return ""
				}
				return r.Hooks[0].Stdout + r.Hooks[0].Stderr
			}
			before := ran(open("all"))
			e := open("project")
			if _, err := e.Approve("guard"); err != nil {
				t.Logf("approval refused: %v", err)
				return // refused: nothing runs unapproved
			}
			r := fireT(t, e, "Stop", `{}`)
			require.Empty(t, r.AwaitingApproval, "approved")
			require.Len(t, r.Hooks, 1)
			assert.Equal(t, before, r.Hooks[0].Stdout+r.Hooks[0].Stderr)

			sh.change(t, dir)
			after := ran(open("all"))
			require.NotEqual(t, before, after, "the change changes what the hook runs (test setup)")
			r = fireT(t, e, "Stop", `{}`)
			assert.Empty(t, r.Hooks, "the changed hook does not run")
			if assert.Len(t, r.AwaitingApproval, 1, "the change revokes the approval") {
				t.Logf("revoked: %s", r.AwaitingApproval[0].Reason)
			}
		})
	}
}
