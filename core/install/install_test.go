package install

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/native"
)

const dispatcher = "/opt/hookexec/bin/hookexec hook --agent claude"

// Realistic layouts: the shapes people's settings files have, with the keys Claude Code
// keeps beside hooks, tabs, one-line objects, Unicode, no trailing newline.
var (
	userSettings    = "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(git status)\"]},\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"~/.claude/guard.sh\", \"timeout\": 10}\n        ]\n      },\n      {\"matcher\": \"Write|Edit\", \"hooks\": [{\"type\": \"prompt\", \"prompt\": \"Is this edit safe? $ARGUMENTS\"}]}\n    ],\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo done ✓\"}]}]\n  },\n  \"statusLine\": {\"type\": \"command\", \"command\": \"date\"}\n}\n"
	projectSettings = "{\n\t\"hooks\": {\n\t\t\"PostToolUse\": [\n\t\t\t{\n\t\t\t\t\"matcher\": \"Write\",\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{ \"type\": \"command\", \"command\": \"gofmt -l <<tool_input.file_path>>\" }\n\t\t\t\t]\n\t\t\t}\n\t\t],\n\t\t\"SessionStart\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"cat NOTES.md\" } ] } ]\n\t},\n\t\"env\": { \"FOO\": \"1\" }\n}"
	localSettings   = `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"./check-prompt.sh","timeout":3}]}],"Stop":[{"hooks":[{"type":"agent","prompt":"did it finish?"}]}]},"outputStyle":"terse"}`
)

type layout struct{ project, home string }

func newLayout(t *testing.T) layout { return layoutOf(t, claudeFiles) }

func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// snapshot is every file under the layout, by path.
func snapshot(t *testing.T, l layout) map[string]string {
	out := map[string]string{}
	for _, dir := range []string{l.project, l.home} {
		require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				out[p] = read(t, p)
			}
			return err
		}))
	}
	return out
}

var claude = func() *native.Agent { a, _ := native.Lookup("claude"); return a }()

func installAll(t *testing.T, l layout) []Change { return installBoth(t, claude, l) }

// A project whose .claude directory (or a settings file) links outside the project cannot
// make install write there.
func TestInstallRefusesSymlinkOutsideScope(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, project, outside string)
	}{
		{"settings file links out", func(t *testing.T, project, outside string) {
			require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
			require.NoError(t, os.Symlink(filepath.Join(outside, "settings.json"), filepath.Join(project, ".claude", "settings.json")))
		}},
		{".claude links out", func(t *testing.T, project, outside string) {
			require.NoError(t, os.MkdirAll(project, 0o755))
			require.NoError(t, os.Symlink(outside, filepath.Join(project, ".claude")))
		}},
		{"backup is a dangling link out", func(t *testing.T, project, outside string) {
			write(t, filepath.Join(project, ".claude", "settings.json"), read(t, filepath.Join(outside, "settings.json")))
			require.NoError(t, os.Symlink(filepath.Join(outside, "planted.json"), filepath.Join(project, ".claude", ".settings.json.hookexec-backup")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			project, outside := filepath.Join(root, "proj"), filepath.Join(root, "victim")
			write(t, filepath.Join(outside, "settings.json"), userSettings)
			tc.plant(t, project, outside)
			before := read(t, filepath.Join(outside, "settings.json"))
			_, err := Install(claude, native.Project, project, dispatcher)
			require.ErrorIs(t, err, ErrOutside)
			assert.Equal(t, before, read(t, filepath.Join(outside, "settings.json")))
			assert.NoFileExists(t, filepath.Join(outside, "planted.json"))
			assert.NoFileExists(t, filepath.Join(outside, "hookexec-hooks.json"))
		})
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	l := newLayout(t)
	st, err := Status(claude, native.User, l.home)
	require.NoError(t, err)
	require.Len(t, st, 1)
	assert.False(t, st[0].Installed)
	assert.Equal(t, 3, st[0].Native)
	installAll(t, l)
	st, err = Status(claude, native.User, l.home)
	require.NoError(t, err)
	assert.True(t, st[0].Installed)
	assert.Equal(t, []string{"PreToolUse", "Stop"}, st[0].Events)
	assert.Equal(t, 2, st[0].Managed)
	assert.Equal(t, 1, st[0].Native)
}

// TestInstallKeepsCodexMCPHooks: Codex calls its own MCP servers, so a matcher group with an
// mcp_tool hook stays with Codex (live, dispatch mode: mcp_tool_deny_blocks ran the command
// when the group moved to the dispatcher, which has no MCP servers).
func TestInstallKeepsCodexMCPHooks(t *testing.T) {
	t.Parallel()
	codex, err := native.Lookup("codex")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".codex"), 0o755))
	hooks := `{"hooks": {"PreToolUse": [
	  {"matcher": "Bash", "hooks": [{"type": "mcp_tool", "server": "live", "tool": "answer", "input": {"text": "${tool_input.command}"}}]},
	  {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".codex", "hooks.json"), []byte(hooks), 0o644))
	changes, err := Install(codex, native.Project, dir, dispatcher)
	require.NoError(t, err)
	require.Len(t, changes, 1)
	assert.Equal(t, 1, changes[0].Moved)
	assert.Equal(t, 1, changes[0].Kept, "the mcp_tool group stays with Codex")
	got := read(t, filepath.Join(dir, ".codex", "hooks.json"))
	assert.Contains(t, got, `"type": "mcp_tool"`)
	assert.NotContains(t, got, "guard.sh")
}
