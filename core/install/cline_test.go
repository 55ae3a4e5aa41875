package install

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/native"
)

// tree is every file under root with its mode and text ("name mode text").
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel+" "+st.Mode().String()+" "+string(data))
		return nil
	}))
	return out
}

// Cline: each hook file of the scope's hook directories moves into hookexec-hooks/ beside
// it, one dispatcher file per event takes its place, and the engine runs through the
// dispatcher exactly the hooks Cline ran; the user's entry runs none of the project's;
// uninstall puts every file back, bytes and mode.
func TestClineInstall(t *testing.T) {
	t.Parallel()
	a, err := native.Lookup("cline")
	require.NoError(t, err)
	home, project := t.TempDir(), t.TempDir()
	files := map[string]struct {
		text string
		mode os.FileMode
	}{
		".clinerules/hooks/PreToolUse":         {"#!/bin/sh\necho guard\n", 0o700},
		".clinerules/hooks/posttooluse.py":     {"print('{}')\n", 0o644},
		".clinerules/hooks/README.md":          {"not a hook\n", 0o644},
		".clinerules/hooks/PreToolUse.unknown": {"not a hook either\n", 0o755},
		".cline/hooks/PreToolUse.sh":           {"echo second\n", 0o755},
		".cline/hooks/TaskComplete":            {"echo done\n", 0o600},
	}
	for name, f := range files {
		path := filepath.Join(project, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(f.text), f.mode))
		require.NoError(t, os.Chmod(path, f.mode))
	}
	user := filepath.Join(home, "Documents", "Cline", "Hooks", "PreToolUse")
	write(t, user, "echo user\n")
	projectBefore, homeBefore := tree(t, project), tree(t, home)
	hooks := func(o engine.Options) []string {
		var out []string
		for _, h := range enabledHooks(t, o) {
			out = append(out, strings.ReplaceAll(strings.ReplaceAll(h, project, "$P"), home, "$H"))
		}
		return out
	}
	base := engine.Options{Profile: "cline", ProjectDir: project, Home: home}
	before := hooks(base)
	require.Len(t, before, 5)

	changes, err := Install(a, native.Project, project, "/opt/hookexec-hook --agent cline")
	require.NoError(t, err)
	require.Len(t, changes, 2)
	assert.Equal(t, Change{File: native.File{Settings: filepath.Join(project, ".clinerules/hooks"), Managed: filepath.Join(project, ".clinerules/hooks/hookexec-hooks"), Scope: native.Project},
		Action: "installed", Events: []string{"PostToolUse", "PreToolUse"}, Moved: 2}, changes[0])
	assert.Equal(t, []string{"TaskComplete"}, changes[1].Events, "PreToolUse's dispatcher is in the first directory")
	assert.Equal(t, 2, changes[1].Moved)
	dispatcher := read(t, filepath.Join(project, ".clinerules/hooks/PreToolUse"))
	assert.True(t, strings.HasPrefix(dispatcher, "#!/bin/sh\n"+string(ScriptMarker)))
	assert.Contains(t, dispatcher, "exec /opt/hookexec-hook --agent cline --scope project\n")
	assert.FileExists(t, filepath.Join(project, ".clinerules/hooks/README.md"), "not a hook: left")
	assert.FileExists(t, filepath.Join(project, ".clinerules/hooks/PreToolUse.unknown"), "not a hook: left")
	assert.NoFileExists(t, filepath.Join(project, ".cline/hooks/PreToolUse.sh"))
	_, err = Install(a, native.User, home, "/opt/hookexec-hook --agent cline")
	require.NoError(t, err)
	assert.Contains(t, read(t, user), "--scope user")

	// The agent now runs the dispatchers only; each scope's runs that scope's hooks.
	agentNow := hooks(base)
	assert.Len(t, agentNow, 4, "the dispatcher files: the project's PreToolUse, PostToolUse and TaskComplete, the user's PreToolUse")
	rep, err := engine.Open(base)
	require.NoError(t, err)
	cfg, err := rep.Config()
	require.NoError(t, err)
	for _, h := range cfg.Hooks {
		assert.True(t, isDispatcher(h.Source), "Cline runs nothing else: %s", h.Source)
	}
	require.NoError(t, rep.Close())
	all := base
	all.Sources, all.AgentRuns = a.Sources(project, home), a.SettingsOutside("", project, home)
	var moved []string
	for _, h := range hooks(all) {
		moved = append(moved, strings.Replace(h, "/hookexec-hooks/", "/", 1))
	}
	assert.ElementsMatch(t, before, moved, "the moved hooks are the hooks Cline ran, run the same way")
	scoped := all
	scoped.AgentRuns = a.SettingsOutside("project", project, home)
	assert.Len(t, hooks(scoped), 4, "the project's entry: the project's four hooks")
	scoped.AgentRuns = a.SettingsOutside("user", project, home)
	assert.Equal(t, []string{"PreToolUse||bash $H/Documents/Cline/Hooks/hookexec-hooks/PreToolUse|args|0"}, hooks(scoped))

	again, err := Install(a, native.Project, project, "/opt/hookexec-hook --agent cline")
	require.NoError(t, err)
	for _, c := range again {
		assert.Equal(t, "already installed", c.Action)
	}
	st, err := Status(a, native.Project, project)
	require.NoError(t, err)
	assert.True(t, st[0].Installed)
	assert.Equal(t, 2, st[0].Managed)
	assert.Zero(t, st[0].Native, "README.md and PreToolUse.unknown are not hooks Cline runs")

	for _, s := range []struct {
		s   native.Scope
		dir string
	}{{native.Project, project}, {native.User, home}} {
		cs, err := Uninstall(a, s.s, s.dir)
		require.NoError(t, err)
		assert.Equal(t, "restored", cs[0].Action)
	}
	assert.Equal(t, projectBefore, tree(t, project), "every file back, bytes and mode")
	assert.Equal(t, homeBefore, tree(t, home))
}

// A hook file whose name is taken again in the hook directory stays in hookexec-hooks on
// uninstall, and the error names it; nothing is overwritten.
func TestClineUninstallKeepsATakenName(t *testing.T) {
	t.Parallel()
	a, err := native.Lookup("cline")
	require.NoError(t, err)
	project := t.TempDir()
	hook := filepath.Join(project, ".clinerules/hooks/PreToolUse.sh")
	write(t, hook, "echo mine\n")
	_, err = Install(a, native.Project, project, "hookexec hook --agent cline")
	require.NoError(t, err)
	write(t, hook, "echo a new one\n")
	_, err = Uninstall(a, native.Project, project)
	assert.ErrorContains(t, err, "PreToolUse.sh")
	assert.Equal(t, "echo a new one\n", read(t, hook))
	assert.Equal(t, "echo mine\n", read(t, filepath.Join(project, ".clinerules/hooks/hookexec-hooks/PreToolUse.sh")))
	assert.NoFileExists(t, filepath.Join(project, ".clinerules/hooks/PreToolUse"), "the dispatcher is gone")
}
