package install

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/native"
)

const geminiDispatcher = "/opt/hookexec/bin/hookexec hook --agent gemini"

// Gemini CLI's settings as people write them: the keys it keeps beside hooks, hook
// settings inside the hooks object (disabled, enabled), timeouts in milliseconds, named
// hooks, a sequential group.
var (
	geminiUser    = "{\n  \"general\": {\"vimMode\": true},\n  \"hooksConfig\": {\"enabled\": true},\n  \"hooks\": {\n    \"disabled\": [\"old-guard\"],\n    \"BeforeTool\": [\n      {\n        \"matcher\": \"run_shell_command\",\n        \"sequential\": true,\n        \"hooks\": [\n          {\"name\": \"guard\", \"type\": \"command\", \"command\": \"~/.gemini/guard.sh\", \"timeout\": 10000}\n        ]\n      }\n    ],\n    \"AfterAgent\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo done ✓\"}]}]\n  },\n  \"ui\": {\"theme\": \"GitHub\"}\n}\n"
	geminiProject = "{\n\t\"hooks\": {\n\t\t\"AfterTool\": [ { \"matcher\": \"write_file\", \"hooks\": [ { \"type\": \"command\", \"command\": \"gofmt -l x.go\", \"timeout\": 2500 } ] } ],\n\t\t\"enabled\": true\n\t}\n}"
)

var gemini = func() *native.Agent { a, _ := native.Lookup("gemini"); return a }()

func newGeminiLayout(t *testing.T) layout {
	root := t.TempDir()
	l := layout{project: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	write(t, filepath.Join(l.home, ".gemini", "settings.json"), geminiUser)
	write(t, filepath.Join(l.project, ".gemini", "settings.json"), geminiProject)
	return l
}

func installGemini(t *testing.T, l layout) []Change {
	t.Helper()
	u, err := Install(gemini, native.User, l.home, geminiDispatcher)
	require.NoError(t, err)
	p, err := Install(gemini, native.Project, l.project, geminiDispatcher)
	require.NoError(t, err)
	return append(u, p...)
}

func TestGeminiInstallUninstallRoundTrip(t *testing.T) {
	t.Parallel()
	l := newGeminiLayout(t)
	before := snapshot(t, l)
	changes := installGemini(t, l)
	require.Len(t, changes, 2)
	assert.Equal(t, "installed", changes[0].Action)
	assert.Equal(t, []string{"BeforeTool", "AfterAgent"}, changes[0].Events)
	assert.Equal(t, 2, changes[0].Moved)
	assert.Equal(t, []string{"AfterTool"}, changes[1].Events)

	us := read(t, filepath.Join(l.home, ".gemini", "settings.json"))
	assert.True(t, strings.HasPrefix(us, "{\n  \"general\": {\"vimMode\": true},\n  \"hooksConfig\": {\"enabled\": true},\n  \"hooks\": {"), us)
	assert.True(t, strings.HasSuffix(us, "  \"ui\": {\"theme\": \"GitHub\"}\n}\n"), us)
	assert.Contains(t, us, `"disabled": [`, "the hook settings in the hooks object stay with Gemini CLI")
	assert.Contains(t, us, `"old-guard"`)
	assert.Contains(t, us, `"timeout": 15000`, "the longest moved timeout (10 s) plus the margin, in milliseconds")
	assert.Contains(t, us, `"timeout": 65000`, "a hook without timeout has Gemini CLI's 60 s")
	assert.NotContains(t, us, "guard.sh")
	um := read(t, filepath.Join(l.home, ".gemini", "hookexec-hooks.json"))
	assert.Contains(t, um, "{\"name\": \"guard\", \"type\": \"command\", \"command\": \"~/.gemini/guard.sh\", \"timeout\": 10000}")
	assert.NotContains(t, um, "old-guard", "settings are not hooks: the managed file holds hooks only")
	ps := read(t, filepath.Join(l.project, ".gemini", "settings.json"))
	assert.Contains(t, ps, `"timeout": 7500`, "2.5 s plus the margin")
	assert.Contains(t, ps, `"enabled": true`)

	mid := snapshot(t, l)
	for _, c := range installGemini(t, l) {
		assert.Equal(t, "already installed", c.Action, c.File.Settings)
	}
	assert.Equal(t, mid, snapshot(t, l), "a second install changes nothing")

	st, err := Status(gemini, native.User, l.home)
	require.NoError(t, err)
	assert.True(t, st[0].Installed)
	assert.Equal(t, []string{"BeforeTool", "AfterAgent"}, st[0].Events)
	assert.Equal(t, 2, st[0].Managed)

	for _, scope := range []struct {
		s   native.Scope
		dir string
	}{{native.User, l.home}, {native.Project, l.project}} {
		cs, err := Uninstall(gemini, scope.s, scope.dir)
		require.NoError(t, err)
		for _, c := range cs {
			assert.Equal(t, "restored", c.Action, c.File.Settings)
		}
	}
	assert.Equal(t, before, snapshot(t, l), "uninstall puts back every file byte for byte")
}

// The gemini dialect reads the managed files' hooks as it read them in the settings, and
// the settings still disable what they disabled.
func TestGeminiInstalledHooksAreTheSameHooks(t *testing.T) {
	t.Parallel()
	l := newGeminiLayout(t)
	hooks := func(o engine.Options) []string {
		e, err := engine.Open(o)
		require.NoError(t, err)
		defer e.Close()
		rep, err := e.Config()
		require.NoError(t, err)
		var out []string
		for _, h := range rep.Hooks {
			if h.Enabled {
				out = append(out, strings.Join([]string{h.Event, h.Matcher, h.Command, h.Exec, string(rune('0' + h.TimeoutMs/500%10))}, "|"))
			}
		}
		return out
	}
	base := engine.Options{Profile: "gemini", ProjectDir: l.project, Home: l.home}
	before := hooks(base)
	require.Len(t, before, 3)
	installGemini(t, l)
	managed := base
	managed.Sources, managed.AgentRuns = gemini.Sources(l.project, l.home), gemini.Settings(l.project, l.home)
	assert.ElementsMatch(t, before, hooks(managed))
}

// A change since install (a hook added to the managed file) is merged back, the hook
// settings kept.
func TestGeminiUninstallMerges(t *testing.T) {
	t.Parallel()
	l := newGeminiLayout(t)
	_, err := Install(gemini, native.User, l.home, geminiDispatcher)
	require.NoError(t, err)
	settings := filepath.Join(l.home, ".gemini", "settings.json")
	managed := filepath.Join(l.home, ".gemini", "hookexec-hooks.json")
	write(t, managed, strings.Replace(read(t, managed), `"AfterAgent": [`, `"AfterAgent": [{"hooks": [{"type": "command", "command": "echo added"}]}, `, 1))
	cs, err := Uninstall(gemini, native.User, l.home)
	require.NoError(t, err)
	assert.Equal(t, "merged", cs[0].Action)
	got := read(t, settings)
	assert.Contains(t, got, "echo added")
	assert.Contains(t, got, "guard.sh")
	assert.Contains(t, got, `"old-guard"`)
	assert.NotContains(t, got, Marker("gemini"))
}
