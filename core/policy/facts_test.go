package policy

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree makes a project with real symbolic links next to an outside directory:
//
//	base/proj/{file, sub/, in -> sub, out -> ../outside, dangle -> ../outside/new,
//	           loop -> loop, abs -> base/outside, up -> ..}
//	base/outside/
//	base/link-proj -> proj
func tree(t *testing.T) (base, proj string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	proj = filepath.Join(base, "proj")
	require.NoError(t, os.MkdirAll(filepath.Join(proj, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "outside"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "file"), []byte("x"), 0o644))
	for name, target := range map[string]string{
		"in": "sub", "out": "../outside", "dangle": "../outside/new", "loop": "loop",
		"abs": filepath.Join(base, "outside"), "up": "..",
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(proj, name)))
	}
	require.NoError(t, os.Symlink("proj", filepath.Join(base, "link-proj")))
	return base, proj
}

func TestInsideProject(t *testing.T) {
	base, proj := tree(t)
	for _, tc := range []struct {
		path   string
		inside bool
		lands  string // where Resolve says it lands, relative to base ("" to skip)
	}{
		{"file", true, "proj/file"},
		{"./sub/../file", true, "proj/file"},
		{"new-file", true, "proj/new-file"},
		{"sub/new/deeper/f", true, "proj/sub/new/deeper/f"},
		{"in/new", true, "proj/sub/new"},
		{"out/new", false, "outside/new"},    // a new file in a linked directory: where it lands
		{"out", false, "outside"},            // a link inside pointing out
		{"dangle", false, "outside/new"},     // a dangling link: a write creates its target
		{"abs/x", false, "outside/x"},        // an absolute link
		{"up/outside/x", false, "outside/x"}, // a link to the parent
		{"in/../file", true, "proj/file"},    // .. after a link applies to its target's parent
		{"out/../proj/file", true, "proj/file"},
		{"../outside/x", false, "outside/x"},
		{"..", false, ""},
		{".", true, "proj"},
		{filepath.Join(base, "link-proj", "file"), true, "proj/file"}, // the project through a link
		{filepath.Join(base, "link-proj", "out", "x"), false, "outside/x"},
		{"/etc/passwd", false, ""},
		{"file/below-a-file", true, "proj/file/below-a-file"},
		{"../proj2/x", false, "proj2/x"}, // a sibling whose name starts like the project's
		{"~/x", true, "proj/~/x"},        // not expanded: the tool's path, not a shell word
	} {
		t.Run(tc.path, func(t *testing.T) {
			f := NewFacts(proj, proj, "")
			got, err := f.InsideProject(tc.path)
			require.NoError(t, err)
			assert.Equal(t, tc.inside, got)
			if tc.lands != "" {
				r, err := f.Resolve(tc.path)
				require.NoError(t, err)
				assert.Equal(t, filepath.Join(base, tc.lands), r)
			}
		})
	}
	t.Run("loop", func(t *testing.T) {
		_, err := NewFacts(proj, proj, "").InsideProject("loop/x")
		assert.ErrorContains(t, err, "too many levels of symbolic links")
	})
	t.Run("project dir given through a link", func(t *testing.T) {
		f := NewFacts(filepath.Join(base, "link-proj"), filepath.Join(base, "link-proj"), "")
		in, err := f.InsideProject(filepath.Join(proj, "file"))
		require.NoError(t, err)
		assert.True(t, in)
		root, err := f.ProjectRoot()
		require.NoError(t, err)
		assert.Equal(t, proj, root)
	})
	t.Run("relative to the cwd", func(t *testing.T) {
		f := NewFacts(proj, filepath.Join(proj, "sub"), "")
		r, err := f.Resolve("../file")
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(proj, "file"), r)
	})
	t.Run("no project", func(t *testing.T) {
		_, err := NewFacts("", proj, "").InsideProject("file")
		assert.ErrorIs(t, err, ErrNoProject)
	})
	t.Run("relative with no base", func(t *testing.T) {
		_, err := (&Facts{}).Resolve("file")
		assert.ErrorContains(t, err, "relative path")
	})
}

// A directory the resolution cannot enter is an error, not a guess.
func TestInsideProjectUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	_, proj := tree(t)
	locked := filepath.Join(proj, "locked")
	require.NoError(t, os.Mkdir(locked, 0o755))
	require.NoError(t, os.Symlink("/", filepath.Join(locked, "root")))
	require.NoError(t, os.Chmod(locked, 0))
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	_, err := NewFacts(proj, proj, "").InsideProject("locked/root/etc")
	assert.ErrorContains(t, err, "permission denied")
}

func TestIsSymlink(t *testing.T) {
	_, proj := tree(t)
	f := NewFacts(proj, proj, "")
	for path, want := range map[string]bool{
		"out": true, "dangle": true, "loop": true, "in": true, "file": false, "sub": false,
		"missing": false, "in/": false, "file/x": false, filepath.Join(proj, "abs"): true,
	} {
		got, err := f.IsSymlink(path)
		require.NoError(t, err, path)
		assert.Equal(t, want, got, path)
	}
}

// git runs the real git in dir.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = gitEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func TestGitFacts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	repo := filepath.Join(base, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "pkg"), 0o755))
	git(t, repo, "init", "-q")

	check := func(t *testing.T, dir string, wantDirty bool) {
		t.Helper()
		f := NewFacts(dir, dir, "")
		b, err := f.GitBranch()
		require.NoError(t, err)
		assert.Equal(t, git(t, dir, "branch", "--show-current"), b, "the branch git names")
		d, err := f.GitDirty(ctx)
		require.NoError(t, err)
		assert.Equal(t, wantDirty, d)
	}
	t.Run("unborn branch, empty tree", func(t *testing.T) { check(t, repo, false) })
	require.NoError(t, os.WriteFile(filepath.Join(repo, "pkg", "a"), []byte("1"), 0o644))
	t.Run("untracked file", func(t *testing.T) { check(t, repo, true) })
	t.Run("from a package below the top-level", func(t *testing.T) { check(t, filepath.Join(repo, "pkg"), true) })
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "one")
	t.Run("clean", func(t *testing.T) { check(t, repo, false) })
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("ignored\n"), 0o644))
	git(t, repo, "add", ".gitignore")
	git(t, repo, "commit", "-q", "-m", "two")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "ignored"), []byte("1"), 0o644))
	t.Run("ignored file", func(t *testing.T) { check(t, repo, false) })
	require.NoError(t, os.WriteFile(filepath.Join(repo, "pkg", "a"), []byte("2"), 0o644))
	t.Run("modified", func(t *testing.T) { check(t, repo, true) })
	git(t, repo, "checkout", "-q", "-b", "feature/x")
	t.Run("branch with a slash", func(t *testing.T) { check(t, repo, true) })
	git(t, repo, "checkout", "-q", "--", "pkg/a")
	wt := filepath.Join(base, "wt")
	git(t, repo, "worktree", "add", "-q", "-b", "other", wt)
	t.Run("linked worktree", func(t *testing.T) { check(t, wt, false) })
	git(t, repo, "checkout", "-q", "--detach")
	t.Run("detached", func(t *testing.T) { check(t, repo, false) })

	t.Run("not a repository", func(t *testing.T) {
		plain := filepath.Join(base, "plain")
		require.NoError(t, os.Mkdir(plain, 0o755))
		f := NewFacts(plain, plain, "")
		b, err := f.GitBranch()
		assert.NoError(t, err)
		assert.Equal(t, "", b)
		d, err := f.GitDirty(ctx)
		assert.NoError(t, err)
		assert.False(t, d)
	})
	t.Run("the repository's fsmonitor is not run", func(t *testing.T) {
		mark := filepath.Join(base, "ran")
		git(t, repo, "config", "core.fsmonitor", "touch "+mark)
		t.Cleanup(func() { git(t, repo, "config", "--unset", "core.fsmonitor") })
		_, err := NewFacts(repo, repo, "").GitDirty(ctx)
		require.NoError(t, err)
		assert.NoFileExists(t, mark)
	})
	t.Run("a canceled fire", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := NewFacts(repo, repo, "").GitDirty(cctx)
		assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	})
	t.Run("git missing in a repository", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := NewFacts(repo, repo, "").GitDirty(ctx)
		assert.Error(t, err)
	})
}

func TestCommandFacts(t *testing.T) {
	for _, tc := range []struct {
		line  string
		want  [][]string
		known bool
	}{
		{"", nil, true},
		{"ls -la", [][]string{{"ls", "-la"}}, true},
		{`rm -rf "a b" 'c'\ d`, [][]string{{"rm", "-rf", "a b", "c d"}}, true},
		{"cd x && git push origin main; echo $(date) | wc -l", [][]string{
			{"cd", "x"}, {"git", "push", "origin", "main"}, {"echo", "\x00"}, {"date"}, {"wc", "-l"}}, true},
		{"sudo rm -rf /", [][]string{{"sudo", "rm", "-rf", "/"}, {"rm", "-rf", "/"}}, true},
		{"bash -c 'rm -rf x'", [][]string{{"bash", "-c", "rm -rf x"}, {"rm", "-rf", "x"}}, true},
		{"/bin/rm x", [][]string{{"/bin/rm", "x"}, {"rm", "x"}}, true},
		{"{rm,-rf,x}", [][]string{{"rm", "-rf", "x"}}, true},
		{"if true; then rm x; fi", [][]string{{"true"}, {"rm", "x"}}, true},
		{"$CMD -rf x", nil, false},
		{"echo 'rm x' | sh", [][]string{{"echo", "rm x"}, {"sh"}}, false},
		{"rm 'unclosed", nil, false},
	} {
		t.Run(tc.line, func(t *testing.T) {
			f := NewFacts("/p", "/p", tc.line)
			assert.Equal(t, tc.want, f.Commands())
			assert.Equal(t, tc.known, f.CommandKnown())
		})
	}
}

func TestFactsFor(t *testing.T) {
	for payload, want := range map[string][2]string{
		`{"cwd":"/w","tool_input":{"command":"ls"}}`: {"/w", "ls"},
		`{"cwd":1,"tool_input":{"command":["ls"]}}`:  {"", ""},
		`not json`: {"", ""},
		`{"tool_input":{"command":"rm x"},"cwd":"/w2"}`: {"/w2", "rm x"},
	} {
		f := FactsFor("/p", []byte(payload))
		assert.Equal(t, "", f.Cwd, "read only when a fact needs it")
		r, err := f.Resolve("x")
		require.NoError(t, err)
		base := want[0]
		if base == "" {
			base = "/p"
		}
		assert.Equal(t, filepath.Join(base, "x"), r, payload)
		assert.Equal(t, want[1], f.Command, payload)
		if want[1] != "" {
			assert.Equal(t, want[1], strings.Join(f.Commands()[0], " "), payload)
		}
	}
}

// One Facts asked from many goroutines computes each fact once and gives each the same
// answer (run with -race).
func TestFactsConcurrent(t *testing.T) {
	_, proj := tree(t)
	f := NewFacts(proj, proj, "sudo rm -rf x && ls")
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, err := f.InsideProject([]string{"out/x", "file", "dangle", "in/y"}[i%4])
			assert.NoError(t, err)
			assert.Equal(t, i%2 == 1, in)
			assert.Len(t, f.Commands(), 3)
			assert.True(t, f.CommandKnown())
			_, err = f.GitBranch()
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
}

// BenchmarkFacts is what each fact costs on a fresh Facts (once per fire).
func BenchmarkFacts(b *testing.B) {
	base, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	proj := filepath.Join(base, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(proj, "up")); err != nil {
		b.Fatal(err)
	}
	for name, fact := range map[string]func(*Facts) error{
		"inside_project": func(f *Facts) error { _, err := f.InsideProject("up/proj/src/new.go"); return err },
		"git_branch":     func(f *Facts) error { _, err := f.GitBranch(); return err },
		"commands":       func(f *Facts) error { f.Commands(); return nil },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := fact(NewFacts(proj, proj, "cd build && sudo rm -rf /tmp/x")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
