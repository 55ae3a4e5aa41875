package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeAt(t *testing.T, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	write(t, p, content)
	return p
}

func TestProfilesFindTheirFiles(t *testing.T) {
	root := t.TempDir()
	project, home := filepath.Join(root, "p"), filepath.Join(root, "h")
	writeAt(t, home, ".autohand/config.json", `{"hooks":{"hooks":[{"event":"stop","command":"a"}]}}`)
	writeAt(t, project, ".autoagent/config.json", `{"hooks":{"Stop":[{"type":"command","command":"b"}]}}`)
	writeAt(t, home, ".autoagent/config.json", `{"hooks":{"Stop":[{"type":"command","command":"c"}]}}`)
	writeAt(t, project, ".iteratr.hooks.yml", "hooks:\n  session_end:\n    - command: d\n")
	writeAt(t, project, ".gen/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"e"}]}]}}`)
	writeAt(t, project, ".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"f"}]}]}}`)
	writeAt(t, home, ".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"g"}]}]}}`)
	commands := func(profile string) (out []string) {
		s, err := Load(Options{Profile: profile, ProjectDir: project, Home: home})
		require.NoError(t, err)
		require.Empty(t, s.Warnings)
		for _, h := range s.Hooks {
			out = append(out, h.Command+"/"+h.Dialect.String()+"/"+h.Timeout.String())
		}
		return out
	}
	require.Equal(t, []string{"a/autohand/5s"}, commands("autohand"))
	require.Equal(t, []string{"b/autoagent/1m0s", "c/autoagent/1m0s"}, commands("autoagent"))
	require.Equal(t, []string{"d/iteratr/30s"}, commands("iteratr"))
	require.Equal(t, []string{"e/mycode/1m0s", "f/mycode/1m0s", "g/mycode/1m0s"}, commands("mycode"))
	require.Equal(t, []string{"f/claude/10m0s", "g/claude/10m0s"}, commands("claude"))
}

func TestHostDefaultTimeoutWinsOverDialects(t *testing.T) {
	root := t.TempDir()
	src := writeAt(t, root, "c.json", `{"hooks":{"hooks":[{"event":"stop","command":"a"},{"event":"stop","command":"b","timeout":250}]}}`)
	s, err := Load(Options{ProjectDir: root, Home: root, Sources: []string{src}, DefaultTimeout: 7 * time.Second})
	require.NoError(t, err)
	require.Equal(t, 7*time.Second, s.Hooks[0].Timeout)
	require.Equal(t, 250*time.Millisecond, s.Hooks[1].Timeout, "a hook's own timeout, in its dialect's unit")
}

func TestIteratrWarnings(t *testing.T) {
	root := t.TempDir()
	src := writeAt(t, root, ".iteratr.hooks.yml", "version: 2\nextra: 1\nhooks:\n  pre_iteration:\n    - command: a\n      color: red\n    - timeout: 5\n  on_start:\n    - command: b\n")
	s, err := Load(Options{ProjectDir: root, Home: root, Sources: []string{src}})
	require.NoError(t, err)
	var msgs []string
	for _, w := range s.Warnings {
		msgs = append(msgs, w.String())
	}
	require.Equal(t, []string{
		src + ": version 2 is not 1; read as version 1",
		src + `: unknown field "extra"; ignored`,
		src + ": hooks.on_start is not an iteratr hook type (want one of [session_start pre_iteration post_iteration session_end on_task_complete on_error]); ignored",
		src + `: hook hooks.pre_iteration[0]: unknown field "color"; ignored`,
		src + `: hook hooks.pre_iteration[1]: no "command"`,
	}, msgs)
	require.Len(t, s.Hooks, 2)
	require.False(t, s.Hooks[1].Enabled())
}

// TestAgentProfilesFindTheirFiles: each agent profile reads its agent's places, in
// precedence order, in its dialect and with its default timeout.
func TestAgentProfilesFindTheirFiles(t *testing.T) {
	root := t.TempDir()
	project, home := filepath.Join(root, "p"), filepath.Join(root, "h")
	writeAt(t, project, ".cursor/hooks.json", `{"version":1,"hooks":{"stop":[{"command":"cp"}]}}`)
	writeAt(t, home, ".cursor/hooks.json", `{"version":1,"hooks":{"stop":[{"command":"cu"}]}}`)
	writeAt(t, project, ".github/hooks/b.json", `{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"gb"}]}}`)
	writeAt(t, project, ".github/hooks/a.json", `{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"ga"}]}}`)
	writeAt(t, home, ".copilot/hooks/x.json", `{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"gu"}]}}`)
	writeAt(t, home, ".codeium/windsurf/hooks.json", `{"hooks":{"post_cascade_response":[{"command":"wu"}]}}`)
	writeAt(t, project, ".windsurf/hooks.json", `{"hooks":{"post_cascade_response":[{"command":"wp"}]}}`)
	writeAt(t, project, ".factory/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"fp"}]}]}}`)
	writeAt(t, home, ".factory/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"fu"}]}]}}`)
	writeAt(t, project, ".kiro/hooks/k.kiro.hook", `{"name":"k","when":{"type":"agentStop"},"then":{"type":"runCommand","command":"kp"}}`)
	commands := func(profile string) (out []string) {
		s, err := Load(Options{Profile: profile, ProjectDir: project, Home: home})
		require.NoError(t, err)
		require.Empty(t, s.Warnings)
		for _, h := range s.Hooks {
			out = append(out, h.Command+"/"+h.Dialect.String()+"/"+h.Timeout.String())
		}
		return out
	}
	require.Equal(t, []string{"cp/cursor/1m0s", "cu/cursor/1m0s"}, commands("cursor"))
	// Copilot CLI 1.0.102 runs the user's hooks first, then the project's, each directory in
	// reverse name order (tests/live/copilot files_run_in_reverse_name_order).
	require.Equal(t, []string{"gu/copilot/30s", "gb/copilot/30s", "ga/copilot/30s"}, commands("copilot"))
	// With COPILOT_HOME set, its hooks directory is the user's, and ~/.copilot is not read.
	writeAt(t, root, "ch/hooks/y.json", `{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"gc"}]}}`)
	s, err := Load(Options{Profile: "copilot", ProjectDir: project, Home: home, Getenv: func(k string) string {
		if k == "COPILOT_HOME" {
			return filepath.Join(root, "ch")
		}
		return ""
	}})
	require.NoError(t, err)
	var got []string
	for _, h := range s.Hooks {
		got = append(got, h.Command)
	}
	require.Equal(t, []string{"gc", "gb", "ga"}, got)
	require.Equal(t, []string{"wu/windsurf/1m0s", "wp/windsurf/1m0s"}, commands("windsurf"), "system, user, then workspace")
	require.Equal(t, []string{"fp/factory/1m0s", "fu/factory/1m0s"}, commands("factory"))
	require.Equal(t, []string{"kp/kiro/1m0s"}, commands("kiro"))
}

// TestGeminiAndQwenReadSystemSettings: Gemini CLI's and Qwen Code's system settings and
// system defaults, found through their environment overrides, are read in precedence
// order: Gemini's system settings over the project's over the user's over the defaults;
// Qwen's project over user over system settings over defaults.
func TestGeminiAndQwenReadSystemSettings(t *testing.T) {
	root := t.TempDir()
	project, home, etc := filepath.Join(root, "p"), filepath.Join(root, "h"), filepath.Join(root, "etc")
	stop := func(cmd string) string {
		return `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"` + cmd + `"}]}]}}`
	}
	writeAt(t, project, ".gemini/settings.json", `{"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"gp"}]}]}}`)
	writeAt(t, home, ".gemini/settings.json", `{"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"gu"}]}]}}`)
	writeAt(t, etc, "gemini.json", `{"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"gs"}]}]}}`)
	writeAt(t, etc, "gemini-defaults.json", `{"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"gd"}]}]}}`)
	writeAt(t, project, ".qwen/settings.json", stop("qp"))
	writeAt(t, home, ".qwen/settings.json", stop("qu"))
	writeAt(t, etc, "qwen/settings.json", stop("qs"))
	writeAt(t, etc, "qwen/system-defaults.json", stop("qd"))
	t.Setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", filepath.Join(etc, "gemini.json"))
	t.Setenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", filepath.Join(etc, "gemini-defaults.json"))
	t.Setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", filepath.Join(etc, "qwen/settings.json"))
	t.Setenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH", "") // the default: system-defaults.json beside it
	commands := func(profile string) (out []string) {
		s, err := Load(Options{Profile: profile, ProjectDir: project, Home: home})
		require.NoError(t, err)
		require.Empty(t, s.Warnings)
		for _, h := range s.Hooks {
			out = append(out, h.Command+"/"+h.Dialect.String())
		}
		return out
	}
	require.Equal(t, []string{"gs/gemini", "gp/gemini", "gu/gemini", "gd/gemini"}, commands("gemini"))
	require.Equal(t, []string{"qp/qwen", "qu/qwen", "qs/qwen", "qd/qwen"}, commands("qwen"))

	// hooksConfig.enabled false in the system settings turns every hook off, as in Gemini CLI.
	// The project's enabled true does not win over the system's false.
	writeAt(t, etc, "gemini.json", `{"hooksConfig":{"enabled":false}}`)
	writeAt(t, project, ".gemini/settings.json", `{"hooksConfig":{"enabled":true},"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"gp"}]}]}}`)
	s, err := Load(Options{Profile: "gemini", ProjectDir: project, Home: home})
	require.NoError(t, err)
	require.True(t, s.DisableAll)
}

// TestSameCommandInTwoAgentsFormatsIsTwoHooks: a Claude Code hook and a Cursor hook
// with the same command see different payloads and answer in different words, so neither
// is a duplicate of the other; two copies in Claude-shaped files still are.
func TestSameCommandInTwoAgentsFormatsIsTwoHooks(t *testing.T) {
	root := t.TempDir()
	a := writeAt(t, root, ".claude/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./g.sh"}]}]}}`)
	b := writeAt(t, root, ".cursor/hooks.json", `{"version":1,"hooks":{"beforeShellExecution":[{"command":"./g.sh"}]}}`)
	c := writeAt(t, root, ".factory/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./g.sh"}]}]}}`)
	d := writeAt(t, root, "other/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./g.sh"}]}]}}`)
	s, err := Load(Options{Profile: "claude", ProjectDir: root, Home: root, Sources: []string{a, b, c, d}})
	require.NoError(t, err)
	require.Len(t, s.Hooks, 4)
	require.Empty(t, s.Hooks[1].DuplicateOf, "cursor's copy runs")
	require.Empty(t, s.Hooks[2].DuplicateOf, "factory's copy sees Droid's tool names: it runs")
	require.Equal(t, s.Hooks[0].ID, s.Hooks[3].DuplicateOf, "a second Claude Code copy runs once")
}

// TestEveryProfileNamesTheFileANewConfigurationGoesIn: a profile's File is one of the
// files it reads, in the project (autohand's in the home), read in the profile's dialect:
// a configuration written there is one the profile loads.
func TestEveryProfileNamesTheFileANewConfigurationGoesIn(t *testing.T) {
	root := t.TempDir()
	project, home := filepath.Join(root, "project"), filepath.Join(root, "home")
	for _, name := range ProfileNames() {
		prof, err := LookupProfile(name)
		require.NoError(t, err)
		file := prof.File(project, home)
		require.True(t, strings.HasPrefix(file, project+string(filepath.Separator)) || strings.HasPrefix(file, home+string(filepath.Separator)),
			"profile %s: File %q is a file of the project or the home", name, file)
		write(t, file, "{}") // locations that list only existing files (Cline's) list it
		found := false
		for _, l := range prof.Locations(project, home, nil) {
			if glob, _ := filepath.Match(l.Path, file); l.Path == file || glob || strings.HasPrefix(file, l.Path+string(filepath.Separator)) {
				found = true
				require.True(t, l.Dialect == nil || l.Dialect == prof.Dialect, "profile %s: %s is read in its dialect", name, file)
			}
		}
		assert.True(t, found, "profile %s: File %q is one of its locations", name, file)
	}
}
