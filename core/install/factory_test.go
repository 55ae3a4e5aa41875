package install

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/native"
)

// enabledHooks lists the hooks an engine with o runs (event, matcher, command, exec form,
// timeout in seconds).
func enabledHooks(t *testing.T, o engine.Options) []string {
	return hooksOf(t, o, func(h engine.HookInfo) bool { return h.Enabled }, 1000)
}

// Factory Droid, one .factory folder with both files: hooks.json (its events at the root)
// gets the dispatcher for its events, every other key of it kept byte for byte;
// settings.json's events that hooks.json lists stay where they are (Droid never runs them);
// the engine then runs exactly the hooks Droid ran before; uninstall restores both files.
func TestFactoryInstallHooksJSON(t *testing.T) {
	t.Parallel()
	a, err := native.Lookup("factory")
	require.NoError(t, err)
	home, project := t.TempDir(), t.TempDir()
	d := filepath.Join(project, ".factory")
	hooksJSON := filepath.Join(d, "hooks.json")
	settings := filepath.Join(d, "settings.json")
	const hooksText = `{
  "hooksDisabled":   false,
  "PreToolUse": [
    {"matcher": "Execute", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 10}]}
  ],
    "showHookOutput" : true ,
  "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}]
}
`
	const settingsText = `{"cloudSessionSync":false,"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"./shadowed.sh"}]}],"PostToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"./lint.sh","timeout":3}]}]}}`
	write(t, hooksJSON, hooksText)
	write(t, settings, settingsText)
	base := engine.Options{Profile: "factory", ProjectDir: project, Home: home}
	before := enabledHooks(t, base)
	require.ElementsMatch(t, []string{"PreToolUse|Execute|./guard.sh|direct|0", "Stop||./stop.sh|direct|0", "PostToolUse|Edit|./lint.sh|direct|3"}, before,
		"Droid's reading: hooks.json's PreToolUse replaces settings.json's")

	changes, err := Install(a, native.Project, project, "/opt/hookexec-hook --agent factory")
	require.NoError(t, err)
	require.Len(t, changes, 2)
	assert.Equal(t, "installed", changes[0].Action)
	assert.Equal(t, []string{"PreToolUse", "Stop"}, changes[0].Events)
	assert.Equal(t, "installed", changes[1].Action)
	assert.Equal(t, []string{"PostToolUse"}, changes[1].Events, "the shadowed PreToolUse of settings.json gets no dispatcher")
	h := read(t, hooksJSON)
	assert.Contains(t, h, `/opt/hookexec-hook --agent factory --scope project`)
	for _, kept := range []string{`"hooksDisabled":   false,`, `    "showHookOutput" : true ,`} {
		assert.Contains(t, h, kept, "another key of hooks.json keeps its text")
	}
	assert.NotContains(t, h, "./guard.sh")
	assert.Contains(t, read(t, filepath.Join(d, "hookexec-hooks.hooks.json")), "./guard.sh")
	s := read(t, settings)
	assert.Contains(t, s, "./shadowed.sh", "left with Droid, which never runs it")
	assert.NotContains(t, s, "./lint.sh")
	assert.Contains(t, s, `"cloudSessionSync":false`)

	managed := base
	managed.Sources, managed.AgentRuns = a.Sources(project, home), a.SettingsOutside("project", project, home)
	assert.ElementsMatch(t, before, enabledHooks(t, managed), "the dispatcher runs the hooks Droid ran")
	managed.AgentRuns = a.SettingsOutside("user", project, home)
	assert.Empty(t, enabledHooks(t, managed), "the user's entry runs none of the project's hooks")

	again, err := Install(a, native.Project, project, "/opt/hookexec-hook --agent factory")
	require.NoError(t, err)
	for _, c := range again {
		assert.Equal(t, "already installed", c.Action)
	}
	undo, err := Uninstall(a, native.Project, project)
	require.NoError(t, err)
	for _, c := range undo {
		assert.Equal(t, "restored", c.Action, c.File.Settings)
	}
	assert.Equal(t, hooksText, read(t, hooksJSON), "byte for byte")
	assert.Equal(t, settingsText, read(t, settings), "byte for byte")
	for _, gone := range []string{"hookexec-hooks.hooks.json", "hookexec-hooks.json", ".hooks.json.hookexec-backup", ".settings.json.hookexec-backup"} {
		assert.NoFileExists(t, filepath.Join(d, gone))
	}
}

// The user's settings.json alone, and the legacy hooks/hooks.json.
func TestFactoryInstall(t *testing.T) {
	t.Parallel()
	a, err := native.Lookup("factory")
	require.NoError(t, err)
	home := t.TempDir()
	settings := filepath.Join(home, ".factory", "settings.json")
	write(t, settings, `{"cloudSessionSync":false,"hooks":{"PreToolUse":[{"matcher":"Execute","hooks":[{"type":"command","command":"./guard.sh","timeout":10}]}]}}`)
	changes, err := Install(a, native.User, home, "/opt/hookexec/bin/hookexec hook --agent factory")
	require.NoError(t, err)
	require.Len(t, changes, 2)
	assert.Equal(t, "no settings", changes[0].Action, "no hooks.json")
	assert.Equal(t, "installed", changes[1].Action)
	s := read(t, settings)
	assert.Contains(t, s, "hook --agent factory --scope user")
	assert.Contains(t, s, `"timeout": 15`, "10 s plus the margin")
	assert.Contains(t, s, `"cloudSessionSync":false`)
	assert.Contains(t, read(t, filepath.Join(home, ".factory", "hookexec-hooks.json")), "./guard.sh")

	// The legacy hooks/hooks.json, which Droid reads where there is no hooks.json, is
	// moved the same way.
	other := t.TempDir()
	legacy := filepath.Join(other, ".factory", "hooks", "hooks.json")
	write(t, filepath.Join(other, ".factory", "settings.json"), `{"hooks":{}}`)
	write(t, legacy, `{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}`)
	changes, err = Install(a, native.Project, other, "hookexec hook --agent factory")
	require.NoError(t, err)
	assert.Equal(t, "installed", changes[0].Action)
	assert.Contains(t, read(t, legacy), "hookexec hook --agent factory --scope project")
	assert.Contains(t, read(t, filepath.Join(other, ".factory", "hookexec-hooks.legacy-hooks.json")), `"command":"x"`)
	assert.Equal(t, `{"hooks":{}}`, read(t, filepath.Join(other, ".factory", "settings.json")), "no hooks there")
	_, err = os.Stat(filepath.Join(other, ".factory", "hooks.json"))
	assert.True(t, os.IsNotExist(err))
	_, err = Uninstall(a, native.Project, other)
	require.NoError(t, err)
	assert.Equal(t, `{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}`, read(t, legacy))
}
