package trust

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProjectLevel(t *testing.T) {
	for _, tc := range []struct {
		source, project, home string
		want                  bool
	}{
		{"/p/.claude/settings.json", "/p", "/h", true},
		{"/p/.iteratr.hooks.yml", "/p", "/h", true},
		{"/h/.claude/settings.json", "/p", "/h", false},
		{"/h/proj/.claude/settings.json", "/h/proj", "/h", true}, // a project under home
		{"/h/.claude/settings.json", "/h", "/h", false},          // opened in home: the user's own
		{"/h/.claude/settings.json", "/", "/h", false},
		{"/etc/hooks.json", "/", "/h", true},
		{"/pp/x.json", "/p", "/h", false},
		{"<inline>", "/p", "/h", false},
		{"/p/../q/x.json", "/p", "/h", false},
	} {
		assert.Equal(t, tc.want, ProjectLevel(tc.source, tc.project, tc.home), "%+v", tc)
	}
}

// TestAnalysePins: what an approval pins for the common shapes: exact files where the
// command names them, trees where it cannot.
func TestAnalysePins(t *testing.T) {
	proj := t.TempDir()
	home := t.TempDir()
	for _, f := range []string{".claude/hooks/guard.py", "scripts/check.sh", "tool", "lint.toml", "hooks/x.py", "sub/keep"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(proj, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(proj, f), []byte("x"), 0o755))
	}
	type want = []string // keys; a tree's ends in "/"
	for _, tc := range []struct {
		command string
		args    []string
		env     []string
		dir     string
		path    string
		want    want
	}{
		{command: ".claude/hooks/guard.py", want: want{".claude/hooks/guard.py"}},
		{command: "bash scripts/check.sh", want: want{"scripts/check.sh"}},
		{command: `python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py`, want: want{".claude/hooks/guard.py"}},
		{command: `python3 ${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.py --x`, want: want{".claude/hooks/guard.py"}},
		{command: "./tool && ./scripts/check.sh | tee out.log", want: want{"out.log", "scripts/check.sh", "tool"}},
		{command: "tool", want: nil}, // bare program name: PATH, not the project
		{command: "tool", path: "/usr/bin:bin", want: want{"bin/tool"}},
		{command: "ruff --config=lint.toml x.py", want: want{"lint.toml", "x.py"}},
		{command: "sh -c 'cd sub; bash ../scripts/check.sh'", want: want{"./"}}, // .. through a possible symlink
		{command: "sh -c './tool'", want: want{"tool"}},
		{command: "./tool > scripts/check.sh 2>&1", want: want{"tool"}}, // a redirection target is written, not run
		{command: "sh < scripts/check.sh", want: want{"scripts/check.sh"}},
		{command: "bash scripts/new.sh", want: want{"scripts/new.sh"}}, // missing now, may arrive later
		{command: "python3 missing.py", want: want{"missing.py"}},
		{command: "black <<tool_input.file_path>>", want: nil},
		{command: `black "$FILE_PATH"`, want: nil},
		{command: "bash ~/x.sh /etc/passwd", want: nil},
		{command: "cd sub && ./x.sh", want: want{"sub/x.sh", "x.sh"}},
		{command: `cd "$CLAUDE_PROJECT_DIR" && ./tool`, want: want{"tool"}},
		{command: `cd "$SOMEWHERE" && ./tool`, want: want{"./"}},
		{command: "sh hooks/*.sh", want: want{"hooks/"}},
		{command: "python3 -m pkg", want: want{"./"}},
		{command: "python3 sub/", want: want{"sub/"}},
		{command: "node .", want: want{"./"}},
		{command: `sh "$(git rev-parse --show-toplevel)/x.sh"`, want: want{"./"}},
		{command: "( ./tool )", want: want{"./"}}, // subshell: cannot be read exactly
		{command: `sh "$D/x.sh"`, env: []string{"D=scripts"}, want: want{"scripts/", "scripts/x.sh"}[:1]},
		{command: "node -e 0", env: []string{"NODE_OPTIONS=--require ./pre.js"}, want: want{"0", "pre.js"}},
		{command: "bash -c true", env: []string{"BASH_ENV=.envrc"}, want: want{".envrc", "true"}},
		{args: []string{"python3", "hooks/x.py", "tool"}, want: want{"hooks/x.py", "tool"}},
		{args: []string{"sh", "-c", "cd sub && ./x.sh"}, want: want{"sub/x.sh", "x.sh"}},
		// attack round: spellings of running a project file not tried above
		{command: "source scripts/check.sh", want: want{"scripts/check.sh"}},
		{command: ". ./scripts/check.sh", want: want{"scripts/check.sh"}},
		{command: `./too\l`, want: want{"tool"}},
		{command: "./'tool'", want: want{"tool"}},
		{command: `s\h scripts/check.sh`, want: want{"scripts/check.sh"}},
		{command: "cat scripts/check.sh | sh", want: want{"scripts/check.sh"}},
		{command: "bash <(cat scripts/check.sh)", want: want{"./"}},
		{command: "eval ./tool", want: want{"tool"}},
		{command: "nohup ./tool", want: want{"tool"}},
	} {
		dir := tc.dir
		if dir == "" {
			dir = proj
		}
		a := Analyse(Command{Shell: tc.command, Args: tc.args, Env: tc.env, Dir: dir, Project: proj, Home: home, Path: tc.path})
		var got want
		for _, p := range a.Pins {
			got = append(got, p.Key)
			assert.Equal(t, p.Tree, strings.HasSuffix(p.Key, "/"), p.Key)
		}
		assert.Equal(t, tc.want, got, "%q %q %q", tc.command, tc.args, tc.env)
	}
}

func TestHasherCachesByStatIdentity(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.sh")
	require.NoError(t, os.WriteFile(p, []byte("one"), 0o644))
	var h Hasher
	a, err := h.Hash(p)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(a, "sha256:"))
	// Just written: racily clean, so hashed again every time.
	_, _ = h.Hash(p)
	assert.EqualValues(t, 2, h.Count())

	// An old file is cached; same content rewritten (ctime moves) is hashed again.
	old := filepath.Join(dir, "old.sh")
	require.NoError(t, os.WriteFile(old, []byte("two"), 0o644))
	back := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(old, back, back))
	setCtimePast(t, &h, old)
	n := h.Count()
	s1, _ := h.Hash(old)
	s2, _ := h.Hash(old)
	assert.Equal(t, s1, s2)
	assert.Equal(t, n, h.Count(), "an unchanged old file is not read again")

	require.NoError(t, os.WriteFile(old, []byte("TWO"), 0o644))
	require.NoError(t, os.Chtimes(old, back, back)) // mtime put back; ctime cannot be
	s3, _ := h.Hash(old)
	assert.NotEqual(t, s1, s3)

	missing, err := h.Hash(filepath.Join(dir, "nope"))
	require.NoError(t, err)
	assert.Equal(t, Absent, missing)
	notDir, err := h.Hash(filepath.Join(p, "below"))
	require.NoError(t, err)
	assert.Equal(t, Absent, notDir)
}

// setCtimePast hashes path once with a cache entry as if it had been hashed long after its
// last change (ctime cannot be set from a test).
func setCtimePast(t *testing.T, h *Hasher, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	id, ok := identity(fi)
	if !ok {
		t.Skip("no stat identity on this platform")
	}
	sum, err := hashFile(path)
	require.NoError(t, err)
	h.mu.Lock()
	h.cache = map[string]cached{path: {id: id, sum: sum}}
	h.mu.Unlock()
}

func TestCheckReasons(t *testing.T) {
	h := Hook{ID: "guard", Source: ".claude/settings.json", Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: "python3 .claude/hooks/guard.py"}
	files := map[string]string{".claude/hooks/guard.py": "sha256:aa"}
	ok := Approval{Hook: h, Fingerprint: h.Fingerprint(), Files: files}

	assert.Equal(t, Verdict{Reason: "new hook"}, Check(h, files, nil))
	v := Check(h, files, []Approval{ok})
	assert.True(t, v.Approved)

	v = Check(h, map[string]string{".claude/hooks/guard.py": "sha256:bb"}, []Approval{ok})
	assert.Equal(t, "script .claude/hooks/guard.py changed", v.Reason)
	v = Check(h, map[string]string{".claude/hooks/guard.py": Absent}, []Approval{ok})
	assert.Equal(t, "script .claude/hooks/guard.py removed", v.Reason)
	v = Check(h, map[string]string{".claude/hooks/guard.py": "sha256:aa", "x.sh": "sha256:cc"}, []Approval{ok})
	assert.Equal(t, "script x.sh added", v.Reason)

	edited := h
	edited.Command = "python3 .claude/hooks/guard.py --lax"
	assert.Equal(t, "command changed", Check(edited, files, []Approval{ok}).Reason)
	edited.ID = "4f3a2b1c0d" // a hash id changes with the command; the matcher still ties it
	assert.Equal(t, "command changed", Check(edited, files, []Approval{ok}).Reason)
	rematched := h
	rematched.Matcher = "Bash|Edit"
	assert.Equal(t, "matcher changed", Check(rematched, files, []Approval{ok}).Reason)
	renamed := h
	renamed.ID = "other"
	assert.True(t, Check(renamed, files, []Approval{ok}).Approved, "the id is not part of what runs")
	moved := h
	moved.Source = ".claude/settings.local.json"
	assert.Equal(t, "new hook", Check(moved, files, []Approval{ok}).Reason)
}

func TestStoreRoundTripKeepsWhatItDoesNotKnow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "hookexec", "trust.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(`{"version":1,"note":"mine","projects":{"/other":{"approvals":[{"id":"x","fingerprint":"sha256:1"}],"pinned":true}}}`), 0o600))
	s := Store{Path: path}
	h := Hook{ID: "g", Source: "a.json", Event: "Stop", Type: "command", Command: "./g"}
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	require.NoError(t, s.Update("/p", func(a []Approval) []Approval {
		return append(a, Approval{Hook: h, Fingerprint: h.Fingerprint(), Files: map[string]string{"g": "sha256:ab"}, ApprovedAt: at})
	}))
	got, err := s.Approvals("/p")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, h, got[0].Hook)
	assert.Equal(t, at, got[0].ApprovedAt)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), "\n  \"note\": \"mine\"", "indented, unknown keys kept")
	assert.Contains(t, string(data), "\n          \"approved_at\"", "indented at every depth, for a person to read")
	assert.Contains(t, string(data), `"approved_at": "2026-11-23T09:00:00Z"`)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	other := doc["projects"].(map[string]any)["/other"].(map[string]any)
	assert.Equal(t, true, other["pinned"])
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".trust.json.*.tmp"))
	assert.Empty(t, left)

	// Revoking everything leaves the project out, and the others as they were.
	require.NoError(t, s.Update("/p", func([]Approval) []Approval { return nil }))
	got, err = s.Approvals("/p")
	require.NoError(t, err)
	assert.Empty(t, got)
	data, _ = os.ReadFile(path)
	assert.NotContains(t, string(data), `"/p"`)
	assert.Contains(t, string(data), `"/other"`)
}

func TestStoreUnreadableFailsAndIsNotOverwritten(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"corrupt": `{"projects": {`,
		"newer":   `{"version": 2, "projects": {}}`,
		"shape":   `{"projects": {"/p": {"approvals": "yes"}}}`,
	} {
		path := filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		s := Store{Path: path}
		_, err := s.Approvals("/p")
		require.ErrorIs(t, err, ErrStore, name)
		assert.Contains(t, err.Error(), path)
		err = s.Update("/p", func(a []Approval) []Approval { return append(a, Approval{}) })
		require.ErrorIs(t, err, ErrStore, name)
		data, _ := os.ReadFile(path)
		assert.Equal(t, content, string(data), "an unreadable store is left as it was")
	}
	missing, err := Store{Path: filepath.Join(dir, "none.json")}.Approvals("/p")
	require.NoError(t, err)
	assert.Empty(t, missing)

	if os.Geteuid() != 0 {
		path := filepath.Join(dir, "locked.json")
		require.NoError(t, os.WriteFile(path, []byte(`{}`), 0o000))
		_, err := Store{Path: path}.Approvals("/p")
		require.ErrorIs(t, err, ErrStore)
		assert.Contains(t, err.Error(), "permission denied")
	}
}

func TestStoreConcurrentUpdatesLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trust.json")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := Store{Path: path} // separate values, one file: the flock serialises them
			h := Hook{ID: string(rune('a' + i)), Source: "s", Event: "Stop"}
			assert.NoError(t, s.Update("/p", func(a []Approval) []Approval { return append(a, Approval{Hook: h}) }))
		}()
	}
	wg.Wait()
	got, err := Store{Path: path}.Approvals("/p")
	require.NoError(t, err)
	assert.Len(t, got, 16)
}

func TestDefaultPath(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/xdg"}
	get := func(k string) string { return env[k] }
	assert.Equal(t, "/opt/h/.config/hookexec/trust.json", DefaultPath("/opt/h", get))
	assert.Equal(t, "/xdg/hookexec/trust.json", DefaultPath("", get))
	env["XDG_CONFIG_HOME"] = "relative"
	assert.Equal(t, "/home/u/.config/hookexec/trust.json", DefaultPath("", get))
}

func TestParseMode(t *testing.T) {
	m, err := ParseMode("project")
	require.NoError(t, err)
	assert.Equal(t, Project, m)
	assert.Equal(t, "project", m.String())
	_, err = ParseMode("none")
	assert.ErrorContains(t, err, `unknown mode "none"`)
}
