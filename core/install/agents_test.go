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

// agentCase is one agent's settings as people write them, at user and project scope, and
// what install must make of them. The table's tests run every case: install, a second
// install, uninstall (TestAgentInstallUninstallRoundTrip); the engine's view of the hooks
// before and after (TestAgentInstalledHooksAreTheSameHooks); an edit since install merged
// back (TestAgentUninstallMerges).
type agentCase struct {
	agent string
	// files are the layout's files, by path under its root: "home/…" or "proj/…".
	files map[string]string
	// changes is what install reports for user then project scope, in order.
	changes []wantChange
	// again are the actions a second install may report.
	again []string
	// checks are what the files hold once installed.
	checks []fileCheck
	// status is what Status reports for the user scope once installed (nil: not checked).
	status *wantChange
	// hooks is how many hooks compare (the engine's enabled hooks that keep says are the
	// dispatcher's to run); step is the granularity, in ms, timeouts are compared at.
	hooks int
	keep  func(h engine.HookInfo) bool
	step  int64
	// merge, when set, edits the user's managed file after install: uninstall must merge.
	merge *mergeCase
}

// wantChange is one Change install reports; moved or kept < 0 is not checked.
type wantChange struct {
	file, action string
	events       []string
	moved, kept  int
}

// fileCheck is a text a file must (or must not) hold once installed: has, lacks, prefix
// or suffix, with why.
type fileCheck struct {
	file, kind, text, why string
}

// mergeCase replaces old with new in the user's managed file (after install) and in
// the settings; uninstall must merge, keeping each of keep and dropping the install marker.
type mergeCase struct {
	settings, managed      string
	managedOld, managedNew string
	settingsOld            string
	settingsNew            string
	keep                   []string
}

// Codex's hooks.json (Claude Code's shape, Codex's handler keys) and a config.toml with a
// [hooks] table of its own, which install leaves alone and reports.
const (
	codexUserHooks = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"~/.codex/guard.sh\", \"timeout\": 10, \"commandWindows\": \"guard.cmd\"}\n        ]\n      }\n    ],\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo done ✓\"}]}]\n  }\n}\n"
	codexUserTOML  = "model = \"gpt-5-codex\"\n\n[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = \"command\"\ncommand = \"echo from toml\"\n"
	codexProject   = `{"hooks":{"PostToolUse":[{"matcher":"apply_patch","hooks":[{"type":"command","command":"gofmt -l .","timeout":30}]}]}}`
)

// Gemini CLI's settings: the keys it keeps beside hooks, hook settings inside the hooks
// object (disabled, enabled), timeouts in milliseconds, named hooks, a sequential group.
const (
	geminiUser    = "{\n  \"general\": {\"vimMode\": true},\n  \"hooksConfig\": {\"enabled\": true},\n  \"hooks\": {\n    \"disabled\": [\"old-guard\"],\n    \"BeforeTool\": [\n      {\n        \"matcher\": \"run_shell_command\",\n        \"sequential\": true,\n        \"hooks\": [\n          {\"name\": \"guard\", \"type\": \"command\", \"command\": \"~/.gemini/guard.sh\", \"timeout\": 10000}\n        ]\n      }\n    ],\n    \"AfterAgent\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo done ✓\"}]}]\n  },\n  \"ui\": {\"theme\": \"GitHub\"}\n}\n"
	geminiProject = "{\n\t\"hooks\": {\n\t\t\"AfterTool\": [ { \"matcher\": \"write_file\", \"hooks\": [ { \"type\": \"command\", \"command\": \"gofmt -l x.go\", \"timeout\": 2500 } ] } ],\n\t\t\"enabled\": true\n\t}\n}"
)

// Qwen Code's settings: Claude Code's shape, its own keys beside hooks, a timeout in the
// old milliseconds (>= 1000), its TodoCreated event.
const (
	qwenUser    = "{\n  \"model\": {\"name\": \"qwen3-coder-plus\"},\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"run_shell_command\",\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"~/.qwen/guard.sh\", \"timeout\": 10}\n        ]\n      }\n    ],\n    \"TodoCreated\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo todo ✓\", \"timeout\": 20000}]}]\n  }\n}\n"
	qwenProject = "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"./check.sh\"}]}]},\"ui\":{\"theme\":\"Qwen Dark\"}}"
)

var claudeFiles = map[string]string{
	"home/.claude/settings.json":       userSettings,
	"proj/.claude/settings.json":       projectSettings,
	"proj/.claude/settings.local.json": localSettings,
}

func enabled(h engine.HookInfo) bool { return h.Enabled }

var agentCases = []agentCase{{
	agent: "claude",
	files: claudeFiles,
	changes: []wantChange{
		{file: "home/.claude/settings.json", action: "installed", events: []string{"PreToolUse", "Stop"}, moved: 2, kept: 1},
		{file: "proj/.claude/settings.local.json", action: "installed", events: []string{"UserPromptSubmit"}, moved: -1, kept: -1},
		{file: "proj/.claude/settings.json", action: "installed", events: []string{"PostToolUse", "SessionStart"}, moved: -1, kept: -1},
	},
	again: []string{"already installed", "no settings"},
	checks: []fileCheck{
		{"home/.claude/settings.json", "prefix", "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(git status)\"]},\n  \"hooks\": {", "the settings keep everything but hooks as it was"},
		{"home/.claude/settings.json", "suffix", "  \"statusLine\": {\"type\": \"command\", \"command\": \"date\"}\n}\n", "the settings keep everything but hooks as it was"},
		{"home/.claude/settings.json", "has", `"timeout": 15`, "the longest moved timeout (10 s) plus the margin"},
		{"home/.claude/settings.json", "has", `"timeout": 605`, "a hook without timeout has Claude Code's 600 s"},
		{"home/.claude/settings.json", "has", `Is this edit safe?`, "the prompt hook stays with Claude Code"},
		{"home/.claude/settings.json", "lacks", "guard.sh", ""},
		{"home/.claude/hookexec-hooks.json", "has", "{\"type\": \"command\", \"command\": \"~/.claude/guard.sh\", \"timeout\": 10}", "the managed file holds the moved groups' text unchanged"},
		{"home/.claude/hookexec-hooks.json", "lacks", "prompt", ""},
	},
	status: &wantChange{events: []string{"PreToolUse", "Stop"}, moved: 2},
	hooks:  5,
	keep:   func(h engine.HookInfo) bool { return h.Enabled && !claude.Evaluates(h.Type) },
	step:   1000,
	merge: &mergeCase{
		settings: "home/.claude/settings.json", managed: "home/.claude/hookexec-hooks.json",
		settingsOld: `"model": "opus"`, settingsNew: `"model": "sonnet"`,
		managedOld: `"Stop": [`, managedNew: `"Stop": [{"hooks": [{"type": "command", "command": "echo added"}]}, `,
		keep: []string{`"model": "sonnet"`, "echo added", "guard.sh", "Is this edit safe?"},
	},
}, {
	agent: "codex",
	files: map[string]string{
		"home/.codex/hooks.json":  codexUserHooks,
		"home/.codex/config.toml": codexUserTOML,
		"proj/.codex/hooks.json":  codexProject,
	},
	changes: []wantChange{
		{file: "home/.codex/hooks.json", action: "installed", events: []string{"PreToolUse", "Stop"}, moved: -1, kept: -1},
		{file: "home/.codex/config.toml", action: NotMoved, moved: -1, kept: -1}, // its [hooks] is reported, not rewritten
		{file: "proj/.codex/hooks.json", action: "installed", events: []string{"PostToolUse"}, moved: -1, kept: -1},
	},
	again: []string{"already installed", NotMoved},
	checks: []fileCheck{
		{"home/.codex/config.toml", "equal", codexUserTOML, "config.toml's [hooks] is reported, not rewritten"},
		{"home/.codex/hooks.json", "has", `"timeout": 15`, "10 s plus the margin"},
		{"home/.codex/hooks.json", "has", `"timeout": 605`, "Codex's 600 s default plus the margin"},
		{"home/.codex/hooks.json", "lacks", "guard.sh", ""},
		{"home/.codex/hookexec-hooks.json", "has", `"commandWindows": "guard.cmd"`, ""},
	},
	hooks: 3,
	keep:  func(h engine.HookInfo) bool { return h.Enabled && !strings.Contains(h.Command, "from toml") },
	step:  1000,
}, {
	agent: "gemini",
	files: map[string]string{"home/.gemini/settings.json": geminiUser, "proj/.gemini/settings.json": geminiProject},
	changes: []wantChange{
		{file: "home/.gemini/settings.json", action: "installed", events: []string{"BeforeTool", "AfterAgent"}, moved: 2, kept: -1},
		{file: "proj/.gemini/settings.json", action: "installed", events: []string{"AfterTool"}, moved: -1, kept: -1},
	},
	again: []string{"already installed"},
	checks: []fileCheck{
		{"home/.gemini/settings.json", "prefix", "{\n  \"general\": {\"vimMode\": true},\n  \"hooksConfig\": {\"enabled\": true},\n  \"hooks\": {", ""},
		{"home/.gemini/settings.json", "suffix", "  \"ui\": {\"theme\": \"GitHub\"}\n}\n", ""},
		{"home/.gemini/settings.json", "has", `"disabled": [`, "the hook settings in the hooks object stay with Gemini CLI"},
		{"home/.gemini/settings.json", "has", `"old-guard"`, ""},
		{"home/.gemini/settings.json", "has", `"timeout": 15000`, "the longest moved timeout (10 s) plus the margin, in milliseconds"},
		{"home/.gemini/settings.json", "has", `"timeout": 65000`, "a hook without timeout has Gemini CLI's 60 s"},
		{"home/.gemini/settings.json", "lacks", "guard.sh", ""},
		{"home/.gemini/hookexec-hooks.json", "has", "{\"name\": \"guard\", \"type\": \"command\", \"command\": \"~/.gemini/guard.sh\", \"timeout\": 10000}", ""},
		{"home/.gemini/hookexec-hooks.json", "lacks", "old-guard", "settings are not hooks: the managed file holds hooks only"},
		{"proj/.gemini/settings.json", "has", `"timeout": 7500`, "2.5 s plus the margin"},
		{"proj/.gemini/settings.json", "has", `"enabled": true`, ""},
	},
	status: &wantChange{events: []string{"BeforeTool", "AfterAgent"}, moved: 2},
	// The gemini dialect reads the managed files' hooks as it read them in the settings,
	// and the settings still disable what they disabled.
	hooks: 3,
	keep:  enabled,
	step:  500,
	merge: &mergeCase{
		settings: "home/.gemini/settings.json", managed: "home/.gemini/hookexec-hooks.json",
		managedOld: `"AfterAgent": [`, managedNew: `"AfterAgent": [{"hooks": [{"type": "command", "command": "echo added"}]}, `,
		keep: []string{"echo added", "guard.sh", `"old-guard"`},
	},
}, {
	agent: "qwen",
	files: map[string]string{"home/.qwen/settings.json": qwenUser, "proj/.qwen/settings.json": qwenProject},
	changes: []wantChange{
		{file: "home/.qwen/settings.json", action: "installed", events: []string{"PreToolUse", "TodoCreated"}, moved: -1, kept: -1},
		{file: "proj/.qwen/settings.json", action: "installed", events: []string{"Stop"}, moved: -1, kept: -1},
	},
	again: []string{"already installed"},
	checks: []fileCheck{
		{"home/.qwen/settings.json", "prefix", "{\n  \"model\": {\"name\": \"qwen3-coder-plus\"},\n  \"hooks\": {", ""},
		{"home/.qwen/settings.json", "has", `"timeout": 15`, "10 s plus the margin, in seconds"},
		{"home/.qwen/settings.json", "has", `"timeout": 25`, "20000 is the old milliseconds: 20 s, plus the margin"},
		{"home/.qwen/settings.json", "lacks", "guard.sh", ""},
		{"proj/.qwen/settings.json", "has", `"timeout": 65`, "Qwen Code's 60 s default plus the margin"},
		{"proj/.qwen/settings.json", "suffix", `"ui":{"theme":"Qwen Dark"}}`, ""},
	},
	hooks: 3,
	keep:  enabled,
	step:  1000,
}}

// eachAgent runs f for every case, in parallel subtests, with the case's agent and a
// fresh layout of its files.
func eachAgent(t *testing.T, f func(t *testing.T, c agentCase, a *native.Agent, l layout)) {
	t.Parallel()
	for _, c := range agentCases {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			a, err := native.Lookup(c.agent)
			require.NoError(t, err)
			f(t, c, a, layoutOf(t, c.files))
		})
	}
}

// layoutOf writes files (by path under the root: home/… or proj/…) into a new layout.
func layoutOf(t *testing.T, files map[string]string) layout {
	root := t.TempDir()
	l := layout{project: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	for rel, text := range files {
		write(t, filepath.Join(root, rel), text)
	}
	return l
}

// path is a layout path (home/… or proj/…) on disk.
func (l layout) path(rel string) string { return filepath.Join(filepath.Dir(l.home), rel) }

// installBoth installs a's dispatcher for the user, then the project.
func installBoth(t *testing.T, a *native.Agent, l layout) []Change {
	t.Helper()
	command := "/opt/hookexec/bin/hookexec hook --agent " + a.Name
	u, err := Install(a, native.User, l.home, command)
	require.NoError(t, err)
	p, err := Install(a, native.Project, l.project, command)
	require.NoError(t, err)
	return append(u, p...)
}

// uninstallBoth uninstalls both scopes; every file must come back as it was.
func uninstallBoth(t *testing.T, a *native.Agent, l layout) {
	t.Helper()
	for _, scope := range []struct {
		s   native.Scope
		dir string
	}{{native.User, l.home}, {native.Project, l.project}} {
		cs, err := Uninstall(a, scope.s, scope.dir)
		require.NoError(t, err)
		for _, c := range cs {
			assert.Equal(t, "restored", c.Action, c.File.Settings)
		}
	}
}

func TestAgentInstallUninstallRoundTrip(t *testing.T) {
	eachAgent(t, func(t *testing.T, c agentCase, a *native.Agent, l layout) {
		before := snapshot(t, l)
		byFile := map[string]Change{}
		var order []string
		for _, ch := range installBoth(t, a, l) {
			byFile[ch.File.Settings] = ch
			order = append(order, ch.File.Settings)
		}
		last := -1
		for _, w := range c.changes {
			got, ok := byFile[l.path(w.file)]
			if !assert.True(t, ok, "no change reported for %s: %v", w.file, order) {
				continue
			}
			assert.Equal(t, w.action, got.Action, w.file)
			assert.Equal(t, w.events, got.Events, w.file)
			if w.moved >= 0 {
				assert.Equal(t, w.moved, got.Moved, w.file)
			}
			if w.kept >= 0 {
				assert.Equal(t, w.kept, got.Kept, w.file)
			}
			i := indexOf(order, l.path(w.file))
			assert.Greater(t, i, last, "%s reported out of order: %v", w.file, order)
			last = i
		}
		for _, f := range c.checks {
			got := read(t, l.path(f.file))
			switch f.kind {
			case "has":
				assert.Contains(t, got, f.text, f.why)
			case "lacks":
				assert.NotContains(t, got, f.text, f.why)
			case "prefix":
				assert.True(t, strings.HasPrefix(got, f.text), "%s: %s\n%s", f.file, f.why, got)
			case "suffix":
				assert.True(t, strings.HasSuffix(got, f.text), "%s: %s\n%s", f.file, f.why, got)
			case "equal":
				assert.Equal(t, f.text, got, f.why)
			default:
				t.Fatalf("check kind %q", f.kind)
			}
		}

		mid := snapshot(t, l)
		for _, ch := range installBoth(t, a, l) {
			assert.Contains(t, c.again, ch.Action, ch.File.Settings)
		}
		assert.Equal(t, mid, snapshot(t, l), "a second install changes nothing")

		if c.status != nil {
			st, err := Status(a, native.User, l.home)
			require.NoError(t, err)
			assert.True(t, st[0].Installed)
			assert.Equal(t, c.status.events, st[0].Events)
			assert.Equal(t, c.status.moved, st[0].Managed)
		}

		uninstallBoth(t, a, l)
		assert.Equal(t, before, snapshot(t, l), "uninstall puts back every file byte for byte")
	})
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// hooksOf lists the hooks an engine with o has that keep selects: event, matcher, command,
// exec form and timeout (in steps of step ms, its last digit).
func hooksOf(t *testing.T, o engine.Options, keep func(engine.HookInfo) bool, step int64) []string {
	t.Helper()
	e, err := engine.Open(o)
	require.NoError(t, err)
	defer e.Close()
	rep, err := e.Config()
	require.NoError(t, err)
	var out []string
	for _, h := range rep.Hooks {
		if keep(h) {
			out = append(out, strings.Join([]string{h.Event, h.Matcher, h.Command, h.Exec, string(rune('0' + h.TimeoutMs/step%10))}, "|"))
		}
	}
	return out
}

// The engine reading the managed files sees the moved hooks exactly as it saw them in the
// agent's settings: same events, matchers, commands, timeouts.
func TestAgentInstalledHooksAreTheSameHooks(t *testing.T) {
	eachAgent(t, func(t *testing.T, c agentCase, a *native.Agent, l layout) {
		hooks := func(o engine.Options) []string { return hooksOf(t, o, c.keep, c.step) }
		base := engine.Options{Profile: c.agent, ProjectDir: l.project, Home: l.home, ManagedSettings: filepath.Join(l.home, "none.json")}
		before := hooks(base)
		require.Len(t, before, c.hooks)
		installBoth(t, a, l)
		managed := base
		managed.Sources, managed.AgentRuns = a.Sources(l.project, l.home), a.Settings(l.project, l.home)
		assert.ElementsMatch(t, before, hooks(managed))
	})
}

// A change made after install (a hook added to the managed file, a key to the settings) is
// kept by uninstall, which then merges instead of restoring the backup.
func TestAgentUninstallMerges(t *testing.T) {
	eachAgent(t, func(t *testing.T, c agentCase, a *native.Agent, l layout) {
		m := c.merge
		if m == nil {
			t.Skip("no merge case")
		}
		_, err := Install(a, native.User, l.home, "/opt/hookexec/bin/hookexec hook --agent "+a.Name)
		require.NoError(t, err)
		settings, managed := l.path(m.settings), l.path(m.managed)
		if m.settingsOld != "" {
			write(t, settings, strings.Replace(read(t, settings), m.settingsOld, m.settingsNew, 1))
		}
		write(t, managed, strings.Replace(read(t, managed), m.managedOld, m.managedNew, 1))
		cs, err := Uninstall(a, native.User, l.home)
		require.NoError(t, err)
		assert.Equal(t, "merged", cs[0].Action)
		got := read(t, settings)
		for _, k := range m.keep {
			assert.Contains(t, got, k)
		}
		assert.NotContains(t, got, Marker(c.agent))
		assert.NoFileExists(t, managed)
	})
}
