package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
}

func hookJSON(event, matcher, command string) string {
	return `{"hooks":{"` + event + `":[{"matcher":"` + matcher + `","hooks":[{"type":"command","command":"` + command + `"}]}]}}`
}

func TestCliAgentLocationsMergeInPrecedenceOrder(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	dup := `{"type":"command","command":"echo dup"}`
	file := func(cmd string) string {
		return `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + cmd + `"},` + dup + `]}]}}`
	}
	write(t, filepath.Join(project, ".config/agent/settings.local.json"), file("echo local"))
	write(t, filepath.Join(project, ".config/agent/settings.json"), file("echo project"))
	write(t, filepath.Join(home, ".config/agent/settings.json"), file("echo user"))
	write(t, filepath.Join(home, ".config/cli-agent/settings.json"), file("echo cli"))
	write(t, filepath.Join(home, ".config/agent/hooks/b.json"), hookJSON("Stop", "", "echo b"))
	write(t, filepath.Join(home, ".config/agent/hooks/a.json"), hookJSON("Stop", "", "echo a"))

	set, err := Load(Options{ProjectDir: project, Home: home})
	require.NoError(t, err)
	require.Empty(t, set.Warnings)
	var cmds, enabled []string
	for _, h := range set.Hooks {
		cmds = append(cmds, h.Command)
		if h.Enabled() {
			enabled = append(enabled, h.Command)
		}
	}
	require.Equal(t, []string{"echo local", "echo dup", "echo project", "echo dup", "echo user", "echo dup", "echo cli", "echo dup", "echo a", "echo b"}, cmds)
	require.Equal(t, []string{"echo local", "echo dup", "echo project", "echo user", "echo cli", "echo a", "echo b"}, enabled)
	require.Equal(t, set.Hooks[1].ID, set.Hooks[3].DuplicateOf)
	require.Contains(t, set.Hooks[3].Disabled, "duplicate of "+set.Hooks[1].ID)
	require.Len(t, set.Sources, 6)
	for _, s := range set.Sources {
		require.Equal(t, "loaded", s.Status, s.Path)
	}
	require.Equal(t, 30*time.Second, set.Hooks[0].Timeout)
}

func TestIDsAreStableAndUnique(t *testing.T) {
	project := t.TempDir()
	cfg := `{"hooks":{"PreToolUse":[
		{"matcher":"Bash","hooks":[{"type":"command","command":"a"},{"type":"command","command":"b","name":"guard"}]},
		{"matcher":"Edit","hooks":[{"type":"command","command":"c","name":"guard"}]}]}}`
	load := func() *Set {
		set, err := Load(Options{ProjectDir: project, Home: project, Inline: []byte(cfg)})
		require.NoError(t, err)
		return set
	}
	a, b := load(), load()
	require.Equal(t, a.Hooks[0].ID, b.Hooks[0].ID)
	require.Len(t, a.Hooks[0].ID, 10)
	require.Equal(t, "guard", a.Hooks[1].ID)
	require.Equal(t, "guard-2", a.Hooks[2].ID)
	require.Len(t, a.Warnings, 1)
	require.Contains(t, a.Warnings[0].Message, `"guard-2"`)
}

func TestDisableAllAndDisabledHooks(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(project, ".config/agent/settings.json"), `{"disableAllHooks":false,"disabledHooks":["noisy","ghost"],
		"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo 1","name":"noisy"},{"type":"command","command":"echo 2"}]}]}}`)
	write(t, filepath.Join(home, ".config/agent/settings.json"), `{"disableAllHooks":true}`)
	set, err := Load(Options{ProjectDir: project, Home: home})
	require.NoError(t, err)
	require.False(t, set.DisableAll, "the project file outranks the user file")
	require.Equal(t, "disabled by disabledHooks in "+filepath.Join(project, ".config/agent/settings.json"), set.Hooks[0].Disabled)
	require.True(t, set.Hooks[1].Enabled())
	require.Len(t, set.Warnings, 1)
	require.Contains(t, set.Warnings[0].Message, `"ghost"`)
}

func TestFlatFormAndFields(t *testing.T) {
	project := t.TempDir()
	set, err := Load(Options{Profile: "claude", ProjectDir: project, Home: project, Inline: []byte(`{"hooks":{
		"PreToolUse":[{"matcher":"Bash","type":"command","command":"guard","timeout":2.5,"env":{"A":"x","N":1},"working_directory":"~/w","async":true,"fail_closed":true}],
		"pre-tool":[{"hooks":[{"args":["python3","-c","print(1)"]}]}]}}`)})
	require.NoError(t, err)
	require.Empty(t, set.Warnings)
	require.Len(t, set.Hooks, 2)
	h := set.Hooks[0]
	require.Equal(t, "PreToolUse", h.Event)
	require.Equal(t, "Bash", h.Matcher)
	require.Equal(t, 2500*time.Millisecond, h.Timeout)
	require.Equal(t, []string{"A=x", "N=1"}, h.Env)
	require.Equal(t, filepath.Join(project, "w"), h.Cwd)
	require.True(t, h.Async)
	require.True(t, h.FailClosed)
	require.Equal(t, "PreToolUse", set.Hooks[1].Event, "aliases are normalised at load")
	require.Equal(t, []string{"python3", "-c", "print(1)"}, set.Hooks[1].Args)
	require.Equal(t, 600*time.Second, set.Hooks[1].Timeout, "claude profile default")
}

func TestValidationWarnsAndDisablesOnlyTheBadHook(t *testing.T) {
	project := t.TempDir()
	set, err := Load(Options{ProjectDir: project, Home: project, Inline: []byte(`{"hooks":{
		"PreToolUs":[{"hooks":[{"command":"a"}]}],
		"Stop":[{"matcher":"Bash","hooks":[{"command":"b"}]},{"matcher":"*","hooks":[{"command":"ok"}]}],
		"PostToolUse":[{"hooks":[{"command":"c","timeout":0},{"command":"d","timeout":"5"},{"command":7},{"type":"webhook","command":"e"},{"command":"f","permissionDecision":"deny","colour":1}]}],
		"Deploy":[{"hooks":[{"command":"g"}]}],
		"Notification":"nope"}}`)})
	require.NoError(t, err)
	byCmd := map[string]Hook{}
	for _, h := range set.Hooks {
		byCmd[h.Command] = h
	}
	require.Contains(t, byCmd["a"].Disabled, `did you mean "PreToolUse"`)
	require.Contains(t, byCmd["b"].Disabled, "takes no matcher")
	require.True(t, byCmd["ok"].Enabled())
	require.Contains(t, byCmd["c"].Disabled, "not positive")
	require.Contains(t, byCmd["d"].Disabled, "want a number")
	require.Contains(t, byCmd["e"].Disabled, `unknown type "webhook"`)
	require.True(t, byCmd["f"].Enabled(), "unknown fields are advice, not errors")
	require.Contains(t, byCmd["g"].Disabled, `unknown event "Deploy"`)
	msgs := ""
	for _, w := range set.Warnings {
		msgs += w.String() + "\n"
	}
	require.Contains(t, msgs, "command is number")
	require.Contains(t, msgs, "permissionDecision is something a hook prints")
	require.Contains(t, msgs, `unknown field "colour"`)
	require.Contains(t, msgs, "hooks.Notification is string, want an array")
}

func TestBadFilesAreWarningsAndTheRestLoads(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(project, ".config/agent/settings.json"), `{"hooks": {`)
	write(t, filepath.Join(home, ".config/agent/settings.json"), hookJSON("Stop", "", "echo fine"))
	unreadable := filepath.Join(home, ".config/cli-agent/settings.json")
	write(t, unreadable, "{}")
	require.NoError(t, os.Chmod(unreadable, 0))
	set, err := Load(Options{ProjectDir: project, Home: home})
	require.NoError(t, err)
	require.Len(t, set.Hooks, 1)
	require.Equal(t, "echo fine", set.Hooks[0].Command)
	require.Equal(t, "invalid JSON", set.Warnings[0].Message[:12])
	require.Equal(t, filepath.Join(project, ".config/agent/settings.json"), set.Warnings[0].Source)
	if os.Geteuid() != 0 { // root reads anything
		require.Contains(t, set.Warnings[1].Message, "cannot read")
	}
	statuses := map[string]string{}
	for _, s := range set.Sources {
		statuses[s.Path] = s.Status
	}
	require.Equal(t, "missing", statuses[filepath.Join(project, ".config/agent/settings.local.json")])
	require.Equal(t, "error", statuses[filepath.Join(project, ".config/agent/settings.json")])
}

func TestExplicitSourcesAndUnknownProfile(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "one.json"), hookJSON("Stop", "", "one"))
	set, err := Load(Options{ProjectDir: dir, Home: dir, Sources: []string{"one.json", "missing.json"}})
	require.NoError(t, err)
	require.Len(t, set.Hooks, 1)
	require.Equal(t, filepath.Join(dir, "one.json"), set.Hooks[0].Source)
	require.Equal(t, "missing", set.Sources[1].Status)

	_, err = Load(Options{Profile: "nope"})
	require.ErrorIs(t, err, ErrUnknownProfile)
	require.Contains(t, err.Error(), "cli-agent")
}

// TestEmptySourcesLoadNoFiles: nil Sources means the profile's locations, an empty list
// means no files at all (only the inline config), whatever lies in those locations.
func TestEmptySourcesLoadNoFiles(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(project, ".config/agent/settings.json"), hookJSON("Stop", "", "echo project"))
	write(t, filepath.Join(home, ".config/agent/settings.json"), hookJSON("Stop", "", "echo user"))
	inline := []byte(hookJSON("Stop", "", "echo inline"))
	tests := []struct {
		name    string
		sources []string
		want    []string
	}{
		{"nil: the profile's files", nil, []string{"echo inline", "echo project", "echo user"}},
		{"empty: no files", []string{}, []string{"echo inline"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Load(Options{ProjectDir: project, Home: home, Sources: tc.sources, Inline: inline})
			require.NoError(t, err)
			var cmds []string
			for _, h := range set.Hooks {
				cmds = append(cmds, h.Command)
			}
			require.Equal(t, tc.want, cmds)
			if tc.sources != nil {
				require.Len(t, set.Sources, 1, "only the inline source: %v", set.Sources)
			}
		})
	}
}

func TestDropInWithoutHooksIsAWarning(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".config/agent/hooks/single.json"), `{"type":"command","command":"echo hi","event":"PreToolUse"}`)
	set, err := Load(Options{ProjectDir: home, Home: home})
	require.NoError(t, err)
	require.Len(t, set.Warnings, 1)
	require.Contains(t, set.Warnings[0].Message, "no hooks in this file")
}

// TestUntrustedFileCannotNarrowTrustedHTTPHooks: an untrusted file's http settings reach
// its own hooks only.
func TestUntrustedFileCannotNarrowTrustedHTTPHooks(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	http := func(name, url string) string {
		return `{"type":"http","url":"` + url + `","name":"` + name + `","headers":{"A":"$TOKEN"},"allowedEnvVars":["TOKEN"]}`
	}
	write(t, filepath.Join(project, ".claude/settings.json"), `{"allowedHttpHookUrls":["http://127.0.0.1:9/p*"],"httpHookAllowedEnvVars":[],
		"hooks":{"Stop":[{"hooks":[`+http("proj", "http://127.0.0.1:9/x")+`]}]}}`)
	write(t, filepath.Join(home, ".claude/settings.json"), `{"hooks":{"Stop":[{"hooks":[`+http("user", "http://127.0.0.1:9/u")+`]}]}}`)
	untrusted := func(src string) bool { return filepath.Dir(filepath.Dir(src)) == project }
	set, err := Load(Options{Profile: "claude", ProjectDir: project, Home: home, Untrusted: untrusted})
	require.NoError(t, err)
	disabled := map[string]string{}
	for _, h := range set.Hooks {
		disabled[h.ID] = h.Disabled
	}
	require.Equal(t, map[string]string{"user": "", "proj": "url http://127.0.0.1:9/x is not in allowedHttpHookUrls"}, disabled)
	require.Nil(t, set.HTTPHookEnvVars, "the untrusted file's list is not merged")
	found := false
	for _, w := range set.Warnings {
		found = found || strings.Contains(w.Message, "httpHookAllowedEnvVars is ignored")
	}
	require.True(t, found, set.Warnings)

	set, err = Load(Options{Profile: "claude", ProjectDir: project, Home: home})
	require.NoError(t, err)
	require.Equal(t, []string{}, set.HTTPHookEnvVars, "trusted, the file's list applies to every http hook")
	require.NotEmpty(t, set.Hooks[1].Disabled)
}
