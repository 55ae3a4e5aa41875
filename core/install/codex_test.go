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

const codexDispatcher = "/opt/hookexec/bin/hookexec hook --agent codex"

// Codex's hooks.json (Claude Code's shape, Codex's handler keys) and a config.toml with a
// [hooks] table of its own, which install leaves alone and reports.
var (
	codexUserHooks = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"~/.codex/guard.sh\", \"timeout\": 10, \"commandWindows\": \"guard.cmd\"}\n        ]\n      }\n    ],\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo done ✓\"}]}]\n  }\n}\n"
	codexUserTOML  = "model = \"gpt-5-codex\"\n\n[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = \"command\"\ncommand = \"echo from toml\"\n"
	codexProject   = `{"hooks":{"PostToolUse":[{"matcher":"apply_patch","hooks":[{"type":"command","command":"gofmt -l .","timeout":30}]}]}}`
)

var codex = func() *native.Agent { a, _ := native.Lookup("codex"); return a }()

func newCodexLayout(t *testing.T) layout {
	root := t.TempDir()
	l := layout{project: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	write(t, filepath.Join(l.home, ".codex", "hooks.json"), codexUserHooks)
	write(t, filepath.Join(l.home, ".codex", "config.toml"), codexUserTOML)
	write(t, filepath.Join(l.project, ".codex", "hooks.json"), codexProject)
	return l
}

func installCodex(t *testing.T, l layout) []Change {
	t.Helper()
	u, err := Install(codex, native.User, l.home, codexDispatcher)
	require.NoError(t, err)
	p, err := Install(codex, native.Project, l.project, codexDispatcher)
	require.NoError(t, err)
	return append(u, p...)
}

func TestCodexInstallUninstallRoundTrip(t *testing.T) {
	t.Parallel()
	l := newCodexLayout(t)
	before := snapshot(t, l)
	changes := installCodex(t, l)
	require.Len(t, changes, 3)
	assert.Equal(t, "installed", changes[0].Action)
	assert.Equal(t, []string{"PreToolUse", "Stop"}, changes[0].Events)
	assert.Equal(t, filepath.Join(l.home, ".codex", "config.toml"), changes[1].File.Settings)
	assert.Equal(t, NotMoved, changes[1].Action, "config.toml's [hooks] is reported, not rewritten")
	assert.Equal(t, []string{"PostToolUse"}, changes[2].Events)
	assert.Equal(t, codexUserTOML, read(t, filepath.Join(l.home, ".codex", "config.toml")))
	uh := read(t, filepath.Join(l.home, ".codex", "hooks.json"))
	assert.Contains(t, uh, `"timeout": 15`, "10 s plus the margin")
	assert.Contains(t, uh, `"timeout": 605`, "Codex's 600 s default plus the margin")
	assert.NotContains(t, uh, "guard.sh")
	assert.Contains(t, read(t, filepath.Join(l.home, ".codex", "hookexec-hooks.json")), `"commandWindows": "guard.cmd"`)

	mid := snapshot(t, l)
	for _, c := range installCodex(t, l) {
		assert.Contains(t, []string{"already installed", NotMoved}, c.Action, c.File.Settings)
	}
	assert.Equal(t, mid, snapshot(t, l), "a second install changes nothing")

	for _, scope := range []struct {
		s   native.Scope
		dir string
	}{{native.User, l.home}, {native.Project, l.project}} {
		cs, err := Uninstall(codex, scope.s, scope.dir)
		require.NoError(t, err)
		for _, c := range cs {
			assert.Equal(t, "restored", c.Action, c.File.Settings)
		}
	}
	assert.Equal(t, before, snapshot(t, l), "uninstall puts back every file byte for byte")
}

func TestCodexInstalledHooksAreTheSameHooks(t *testing.T) {
	t.Parallel()
	l := newCodexLayout(t)
	hooks := func(o engine.Options) []string {
		e, err := engine.Open(o)
		require.NoError(t, err)
		defer e.Close()
		rep, err := e.Config()
		require.NoError(t, err)
		var out []string
		for _, h := range rep.Hooks {
			if h.Enabled && !strings.Contains(h.Command, "from toml") {
				out = append(out, strings.Join([]string{h.Event, h.Matcher, h.Command, h.Exec, string(rune('0' + h.TimeoutMs/1000%10))}, "|"))
			}
		}
		return out
	}
	base := engine.Options{Profile: "codex", ProjectDir: l.project, Home: l.home}
	before := hooks(base)
	require.Len(t, before, 3)
	installCodex(t, l)
	managed := base
	managed.Sources, managed.AgentRuns = codex.Sources(l.project, l.home), codex.Settings(l.project, l.home)
	assert.ElementsMatch(t, before, hooks(managed))
}
