package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A settings file with keys hookexec does not know, four-space indentation and a layout of
// its own: every edit must leave all of that as it was.
const userSettings = `{
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "./guard.sh", "name": "guard"},
                    {"type": "command", "command": "echo audit", "name": "audit"}
                ]
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "echo done", "name": "done"}]}]
    }
}
`

func editScenario(t *testing.T) *scenario {
	s := newScenario(t)
	s.write("project/.claude/settings.json", userSettings)
	s.script("project/guard.sh", guardScript)
	return s
}

func TestDisableEnableWriteSettingsLocal(t *testing.T) {
	t.Parallel()
	s := editScenario(t)
	out := s.run("--profile", "claude", "disable", "guard")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, "✓ Disabled guard (disabledHooks in .claude/settings.local.json)\n", out.stdout)
	assert.Equal(t, userSettings, s.read("project/.claude/settings.json"), "the defining file is untouched")
	golden(t, "edit_disable_local.json", s.read("project/.claude/settings.local.json"))

	// The guard no longer runs.
	out = s.run("--profile", "claude", "fire", "PreToolUse", "--payload", `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	assert.Equal(t, 0, out.code)

	out = s.run("--profile", "claude", "disable", "guard")
	assert.Equal(t, exitUsage, out.code)
	assert.Contains(t, out.stderr, "already off")

	out = s.run("--profile", "claude", "enable", "guard")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, "✓ Enabled guard (disabledHooks in .claude/settings.local.json)\n", out.stdout)
	out = s.run("--profile", "claude", "fire", "PreToolUse", "--payload", `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	assert.Equal(t, 2, out.code, "the guard runs again")
}

func TestEnableFlipsEnabledFalse(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{
  "hooks": {
    "Stop": [{"hooks": [{"command": "echo hi", "name": "hi", "enabled": false}]}]
  }
}
`)
	out := s.run("--profile", "claude", "enable", "hi")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, `Enabled hi ("enabled" in .claude/settings.json:3)`)
	assert.Equal(t, `{
  "hooks": {
    "Stop": [{"hooks": [{"command": "echo hi", "name": "hi", "enabled": true}]}]
  }
}
`, s.read("project/.claude/settings.json"))

	s.write("project/.claude/settings.json", `{"hooks": {"Stop": [{"command": "x", "name": "bad", "timeout": -1}]}}`)
	out = s.run("--profile", "claude", "enable", "bad")
	assert.Equal(t, 1, out.code)
	assert.Contains(t, out.stderr, "hook bad is off because: timeout -1 is not positive; enable cannot change that")
}

func TestAddAndRemove(t *testing.T) {
	t.Parallel()
	s := editScenario(t)
	out := s.run("--profile", "claude", "--source", ".claude/settings.json", "add", "PreToolUse", "--matcher", "Write|Edit", "--command", "black \"$FILE_PATH\"", "--name", "fmt", "--timeout", "20")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, "✓ Added fmt (PreToolUse) to .claude/settings.json\n", out.stdout)
	golden(t, "edit_add.json", s.read("project/.claude/settings.json"))

	out = s.run("--profile", "claude", "explain", "PreToolUse", "--payload", `{"tool_name":"Edit","tool_input":{"file_path":"a.py"}}`, "--json")
	require.Equal(t, 0, out.code)
	var x struct {
		Hooks []struct {
			ID   string `json:"id"`
			Runs bool   `json:"runs"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &x))
	require.Len(t, x.Hooks, 3)
	assert.Equal(t, "fmt", x.Hooks[2].ID)
	assert.True(t, x.Hooks[2].Runs, "the added hook is live")

	// Removing the only handler of a group drops the group; the last of an event drops the event.
	for _, id := range []string{"fmt", "done"} {
		out = s.run("--profile", "claude", "remove", id)
		require.Equal(t, 0, out.code, out.stderr)
		assert.Contains(t, out.stdout, "✓ Removed "+id+" from .claude/settings.json:")
	}
	out = s.run("--profile", "claude", "remove", "audit")
	require.Equal(t, 0, out.code, out.stderr)
	golden(t, "edit_removed.json", s.read("project/.claude/settings.json"))

	out = s.run("--profile", "claude", "remove", "nope")
	assert.Equal(t, exitUsage, out.code)
	assert.Contains(t, out.stderr, `no hook has id "nope" (ids: guard; see hookexec list)`)
}

func TestAddToNewLocalFile(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	out := s.run("--profile", "claude", "add", "Stop", "--command", "make check")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Regexp(t, `^✓ Added [0-9a-f]{10} \(Stop\) to .claude/settings.local.json\n$`, out.stdout)
	assert.Equal(t, `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "make check"
          }
        ]
      }
    ]
  }
}
`, s.read("project/.claude/settings.local.json"))
}

func TestToggleAll(t *testing.T) {
	t.Parallel()
	s := editScenario(t)
	out := s.run("--profile", "claude", "toggle-all", "off")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, "✓ All hooks off (disableAllHooks in .claude/settings.local.json)\n", out.stdout)
	list := s.run("--profile", "claude", "list")
	assert.Contains(t, list.stdout, "Mode: all hooks off")
	assert.Contains(t, list.stdout, "Total: 3 hooks (0 enabled, 3 disabled)")
	out = s.run("--profile", "claude", "toggle-all", "on")
	require.Equal(t, 0, out.code)
	assert.Equal(t, "{\n  \"disableAllHooks\": false\n}\n", s.read("project/.claude/settings.local.json"))
	out = s.run("toggle-all", "maybe")
	assert.Equal(t, exitUsage, out.code)
}

const autohandConfig = `{
  "theme": "dark",
  "hooks": {
    "enabled": true,
    "hooks": [
      {"event": "pre-tool", "command": "echo tool", "description": "Log tool usage"},
      {"event": "stop", "command": "echo stop", "enabled": false}
    ]
  }
}
`

func TestAutohandEdits(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("home/.autohand/config.json", autohandConfig)
	var list listJSON
	out := s.run("--profile", "autohand", "list", "--json")
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &list))
	first, second := list.Hooks[0].ID, list.Hooks[1].ID

	out = s.run("--profile", "autohand", "disable", first)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, "✓ Disabled "+first+" in ~/.autohand/config.json\n", out.stdout)
	out = s.run("--profile", "autohand", "enable", second)
	require.Equal(t, 0, out.code, out.stderr)
	out = s.run("--profile", "autohand", "add", "post-tool", "--matcher", "write_file", "--command", "echo wrote")
	require.Equal(t, 0, out.code, out.stderr)
	out = s.run("--profile", "autohand", "toggle-all", "off")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "hooks.enabled in ~/.autohand/config.json")
	golden(t, "edit_autohand.json", s.read("home/.autohand/config.json"))
}

func TestAutoAgentConfigCommands(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	seed := `{
  "providers": ["claude", "gemini"],
  "failoverDelay": 5000,
  "gitAutoCommit": false,
  "hooks": {
    "PostExecutionEnd": [
      {
        "type": "command",
        "command": "bash .autoagent/hooks/notify-completion.sh"
      }
    ]
  }
}
`
	s.write("project/.autoagent/config.json", seed)
	steps := []struct{ args, want string }{
		{"set-auto-push true", "✓ Added git-push hook to PostExecutionEnd\n"},
		{"set-auto-commit true", "✓ Added git-commit hook to PostExecutionEnd\n"}, // goes before git-push
		{"set-auto-commit true", "✓ git-commit hook already in PostExecutionEnd\n"},
	}
	for _, st := range steps {
		out := s.run(append([]string{"config"}, strings.Fields(st.args)...)...)
		require.Equal(t, 0, out.code, out.stderr)
		assert.Equal(t, st.want, out.stdout, st.args)
	}
	golden(t, "autoagent_auto_commit_push.json", s.read("project/.autoagent/config.json"))

	// The hooks it wrote load as AutoAgent's git built-ins, in order.
	var list listJSON
	out := s.run("--profile", "autoagent", "list", "--json")
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &list))
	var types []string
	for _, h := range list.Hooks {
		types = append(types, h.Type)
	}
	assert.Equal(t, []string{"command", "git-commit", "git-push"}, types)

	for _, st := range []struct{ args, want string }{
		{"set-auto-commit false", "✓ Removed git-commit hook from PostExecutionEnd\n"},
		{"set-auto-push false", "✓ Removed git-push hook from PostExecutionEnd\n"},
		{"set-auto-push false", "✓ No git-push hook in PostExecutionEnd\n"},
	} {
		out := s.run(append([]string{"config"}, strings.Fields(st.args)...)...)
		require.Equal(t, 0, out.code, out.stderr)
		assert.Equal(t, st.want, out.stdout, st.args)
	}
	assert.Equal(t, seed, s.read("project/.autoagent/config.json"), "back to the seed, byte for byte")

	// A fresh project: the file is created with the seed's resulting configuration.
	fresh := newScenario(t)
	out = fresh.run("config", "set-auto-commit", "true")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, `{
  "hooks": {
    "PostExecutionEnd": [
      {
        "type": "git-commit",
        "message": "Complete issue #{{issueNumber}}: {{issueTitle}}"
      }
    ]
  }
}
`, fresh.read("project/.autoagent/config.json"))

	out = s.run("config", "set-auto-commit", "yes")
	assert.Equal(t, exitUsage, out.code)
}

// A file that is not valid JSON is never rewritten.
func TestEditRefusesBrokenFiles(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	broken := "{\"hooks\": {\"Stop\": [\n"
	p := s.write("project/.claude/settings.local.json", broken)
	s.write("project/.claude/settings.json", `{"hooks": {"Stop": [{"command": "true", "name": "t"}]}}`)
	out := s.run("--profile", "claude", "disable", "t")
	assert.Equal(t, 1, out.code)
	assert.Contains(t, out.stderr, "settings.local.json is not valid JSON; fix it first")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, broken, string(b))
	entries, _ := os.ReadDir(filepath.Dir(p))
	assert.Len(t, entries, 2, "no temporary files left behind")
}

// A repository can plant .claude/settings.local.json as a link to the user's
// ~/.claude/settings.json, or .claude as a link to ~/.claude: an edit of a project file must
// then refuse, saying where it would have written, and leave the user's files alone. A link
// that stays inside the project is followed as before.
func TestEditsOfProjectFilesNeverWriteOutsideTheProject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		plant func(s *scenario)
		dest  string // where the write would land, under the scenario root
	}{
		{"file link", func(s *scenario) {
			s.write("project/.claude/settings.json", userSettings)
			require.NoError(t, os.Symlink(filepath.Join(s.home, ".claude", "settings.json"), filepath.Join(s.project, ".claude", "settings.local.json")))
		}, "home/.claude/settings.json"},
		{"directory link", func(s *scenario) {
			require.NoError(t, os.Symlink(filepath.Join(s.home, ".claude"), filepath.Join(s.project, ".claude")))
		}, "home/.claude/settings.local.json"},
	} {
		for _, args := range [][]string{
			{"toggle-all", "off"},
			{"add", "Stop", "--command", "echo planted"},
			{"disable", "guard"},
		} {
			t.Run(tc.name+" "+args[0], func(t *testing.T) {
				s := newScenario(t)
				s.write("home/.claude/settings.json", strings.Replace(userSettings, `"model": "opus"`, `"model": "global"`, 1))
				tc.plant(s)
				before := s.read("home/.claude/settings.json")
				out := s.run(append([]string{"--profile", "claude"}, args...)...)
				require.NotEqual(t, 0, out.code, out.stdout)
				assert.Contains(t, out.stderr, "refusing to write")
				assert.Contains(t, out.stderr, filepath.Join(s.root, tc.dest), "says where it would write")
				assert.Equal(t, before, s.read("home/.claude/settings.json"), "the user's file is untouched")
				_, err := os.Stat(filepath.Join(s.home, ".claude", "settings.local.json"))
				assert.True(t, os.IsNotExist(err), "nothing created in the user's directory")
			})
		}
	}

	t.Run("link inside the project", func(t *testing.T) {
		s := editScenario(t)
		s.write("project/shared.json", "{}\n")
		require.NoError(t, os.Symlink(filepath.Join(s.project, "shared.json"), filepath.Join(s.project, ".claude", "settings.local.json")))
		out := s.run("--profile", "claude", "toggle-all", "off")
		require.Equal(t, 0, out.code, out.stderr)
		assert.Contains(t, s.read("project/shared.json"), `"disableAllHooks": true`)
		fi, err := os.Lstat(filepath.Join(s.project, ".claude", "settings.local.json"))
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link stays a link")
	})
}

// Codex's config.toml (and hooks.json beside it) and Gemini CLI's settings are not written
// by the edit verbs: JSON edits would corrupt TOML, and the keys they write are not theirs.
func TestEditRefusesCodexAndGeminiFiles(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	toml := "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"echo done\"\n"
	s.write("project/.codex/config.toml", toml)
	out := s.run("--profile", "codex", "toggle-all", "off")
	assert.NotEqual(t, 0, out.code)
	assert.Contains(t, out.stderr, "codex's format")
	assert.Equal(t, toml, s.read("project/.codex/config.toml"), "untouched")
	gemini := `{"hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "echo done", "name": "done"}]}]}}`
	s.write("project/.gemini/settings.json", gemini)
	out = s.run("--profile", "gemini", "disable", "done")
	assert.NotEqual(t, 0, out.code)
	assert.Contains(t, out.stderr, "gemini's format")
	assert.Equal(t, gemini, s.read("project/.gemini/settings.json"), "untouched")
}
