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

const qwenDispatcher = "/opt/hookexec/bin/hookexec hook --agent qwen"

// Qwen Code's settings: Claude Code's shape, its own keys beside hooks, a timeout in the
// old milliseconds (>= 1000), its TodoCreated event.
var (
	qwenUser    = "{\n  \"model\": {\"name\": \"qwen3-coder-plus\"},\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"run_shell_command\",\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"~/.qwen/guard.sh\", \"timeout\": 10}\n        ]\n      }\n    ],\n    \"TodoCreated\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo todo ✓\", \"timeout\": 20000}]}]\n  }\n}\n"
	qwenProject = "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"./check.sh\"}]}]},\"ui\":{\"theme\":\"Qwen Dark\"}}"
)

var qwen = func() *native.Agent { a, _ := native.Lookup("qwen"); return a }()

func newQwenLayout(t *testing.T) layout {
	root := t.TempDir()
	l := layout{project: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	write(t, filepath.Join(l.home, ".qwen", "settings.json"), qwenUser)
	write(t, filepath.Join(l.project, ".qwen", "settings.json"), qwenProject)
	return l
}

func installQwen(t *testing.T, l layout) []Change {
	t.Helper()
	u, err := Install(qwen, native.User, l.home, qwenDispatcher)
	require.NoError(t, err)
	p, err := Install(qwen, native.Project, l.project, qwenDispatcher)
	require.NoError(t, err)
	return append(u, p...)
}

func TestQwenInstallUninstallRoundTrip(t *testing.T) {
	t.Parallel()
	l := newQwenLayout(t)
	before := snapshot(t, l)
	changes := installQwen(t, l)
	require.Len(t, changes, 2)
	assert.Equal(t, "installed", changes[0].Action)
	assert.Equal(t, []string{"PreToolUse", "TodoCreated"}, changes[0].Events)
	assert.Equal(t, []string{"Stop"}, changes[1].Events)
	us := read(t, filepath.Join(l.home, ".qwen", "settings.json"))
	assert.True(t, strings.HasPrefix(us, "{\n  \"model\": {\"name\": \"qwen3-coder-plus\"},\n  \"hooks\": {"), us)
	assert.Contains(t, us, `"timeout": 15`, "10 s plus the margin, in seconds")
	assert.Contains(t, us, `"timeout": 25`, "20000 is the old milliseconds: 20 s, plus the margin")
	assert.NotContains(t, us, "guard.sh")
	ps := read(t, filepath.Join(l.project, ".qwen", "settings.json"))
	assert.Contains(t, ps, `"timeout": 65`, "Qwen Code's 60 s default plus the margin")
	assert.True(t, strings.HasSuffix(ps, `"ui":{"theme":"Qwen Dark"}}`), ps)

	mid := snapshot(t, l)
	for _, c := range installQwen(t, l) {
		assert.Equal(t, "already installed", c.Action, c.File.Settings)
	}
	assert.Equal(t, mid, snapshot(t, l), "a second install changes nothing")

	for _, scope := range []struct {
		s   native.Scope
		dir string
	}{{native.User, l.home}, {native.Project, l.project}} {
		cs, err := Uninstall(qwen, scope.s, scope.dir)
		require.NoError(t, err)
		for _, c := range cs {
			assert.Equal(t, "restored", c.Action, c.File.Settings)
		}
	}
	assert.Equal(t, before, snapshot(t, l), "uninstall puts back every file byte for byte")
}

func TestQwenInstalledHooksAreTheSameHooks(t *testing.T) {
	t.Parallel()
	l := newQwenLayout(t)
	hooks := func(o engine.Options) []string {
		e, err := engine.Open(o)
		require.NoError(t, err)
		defer e.Close()
		rep, err := e.Config()
		require.NoError(t, err)
		var out []string
		for _, h := range rep.Hooks {
			if h.Enabled {
				out = append(out, strings.Join([]string{h.Event, h.Matcher, h.Command, h.Exec, string(rune('0' + h.TimeoutMs/1000%10))}, "|"))
			}
		}
		return out
	}
	base := engine.Options{Profile: "qwen", ProjectDir: l.project, Home: l.home}
	before := hooks(base)
	require.Len(t, before, 3)
	installQwen(t, l)
	managed := base
	managed.Sources, managed.AgentRuns = qwen.Sources(l.project, l.home), qwen.Settings(l.project, l.home)
	assert.ElementsMatch(t, before, hooks(managed))
}
