package dialect

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestGeminiFile(t *testing.T) {
	f, err := Read("/p/.gemini/settings.json", []byte(`{
		"hooksConfig": {"enabled": true, "disabled": ["noisy"]},
		"hooks": {"BeforeTool": [{"matcher": "run_shell", "sequential": true,
			"hooks": [{"type": "command", "command": "a", "timeout": 1500, "name": "noisy"}]}],
			"AfterAgent": [{"hooks": [{"type": "command", "command": "b"}]}],
			"disabled": ["b"]}}`), nil)
	require.NoError(t, err)
	require.Equal(t, Gemini, f.Dialect, "detected from the .gemini directory")
	require.Empty(t, f.Warnings, "hooks.disabled is a setting, not an event")
	require.Len(t, f.Hooks, 2)
	h := f.Hooks[0]
	require.Equal(t, "PreToolUse", h.Event)
	require.Equal(t, 1500*time.Millisecond, h.Timeout)
	require.True(t, h.Sequential)
	require.True(t, h.RegexMatcher, "tool matchers are regexes")
	require.Equal(t, "Stop", f.Hooks[1].Event)
	require.False(t, f.Hooks[1].RegexMatcher)
	require.Equal(t, []string{"noisy", "b"}, f.DisabledIDs)
	require.NotNil(t, f.DisableAll)
	require.False(t, *f.DisableAll)
	require.Equal(t, "BeforeTool", Gemini.StdinEvent("PreToolUse", "PreToolUse"))
	require.Equal(t, "run_shell_command", Gemini.ToolName("Bash"))
	require.Equal(t, "", Gemini.ToolName("mcp__x__y"))
}

// Codex 0.169.0 skips prompt and agent handlers at load and runs mcp_tool handlers on every
// event but SessionEnd (tests/live/codex prompt_hook_skipped, agent_hook_skipped).
func TestCodexHandlerTypes(t *testing.T) {
	f, err := Read("/p/.codex/hooks.json", []byte(`{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "no"}, {"type": "agent", "prompt": "no"},
			{"type": "mcp_tool", "server": "s", "tool": "t", "input": {"cmd": "${tool_input.command}"}}]}],
		"SessionEnd": [{"hooks": [{"type": "mcp_tool", "server": "s", "tool": "t"}, {"type": "command", "command": "c"}]}]}}`), nil)
	require.NoError(t, err)
	require.Equal(t, Codex, f.Dialect)
	require.Len(t, f.Hooks, 5)
	require.Contains(t, f.Hooks[0].Disabled, "Codex skips prompt hooks")
	require.Contains(t, f.Hooks[1].Disabled, "Codex skips agent hooks")
	require.Empty(t, f.Hooks[2].Disabled)
	require.Equal(t, "s", f.Hooks[2].Server)
	require.Equal(t, "t", f.Hooks[2].Tool)
	require.Contains(t, f.Hooks[3].Disabled, "mcp_tool on SessionEnd")
	require.Empty(t, f.Hooks[4].Disabled)
}

func TestCodexFiles(t *testing.T) {
	f, err := Read("/p/.codex/config.toml", []byte(`
model = "o"
[[hooks.PreToolUse]]
matcher = "^Ba"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "a"
commandWindows = "a.exe"
additionalContextLimit = 12
[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "b"
timeout = 3
`), nil)
	require.NoError(t, err)
	require.Equal(t, Codex, f.Dialect)
	require.Len(t, f.Hooks, 2, "%v", f.Warnings)
	require.Equal(t, "a.exe", f.Hooks[0].CommandWindows)
	require.Equal(t, 12, f.Hooks[0].ContextLimit)
	require.True(t, f.Hooks[0].RegexMatcher, "^Ba is a regex")
	require.Equal(t, 3*time.Second, f.Hooks[1].Timeout)
	_, err = Read("/p/.codex/config.toml", []byte(`hooks = [`), nil)
	require.ErrorContains(t, err, "invalid TOML")
	_, err = Read("/p/other/config.toml", []byte(`a = 1`), nil)
	require.ErrorContains(t, err, "Codex's config.toml")
	j, err := Read("/p/.codex/hooks.json", []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "x", "additionalContextLimit": -1}]}]}}`), nil)
	require.NoError(t, err)
	require.Equal(t, Codex, j.Dialect)
	require.False(t, j.Hooks[0].RegexMatcher, "letters and | are exact names")
	require.Len(t, j.Warnings, 1)
	require.Contains(t, j.Warnings[0].Message, "additionalContextLimit")
}

func TestQwenFile(t *testing.T) {
	f, err := Read("/p/.qwen/settings.json", []byte(`{"hooks": {"TodoCreated": [{"hooks": [{"type": "command", "command": "a", "timeout": 999}]}],
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "b", "timeout": 1000}]}]}}`), nil)
	require.NoError(t, err)
	require.Equal(t, Qwen, f.Dialect)
	require.Empty(t, f.Warnings)
	require.Equal(t, "TaskCreated", f.Hooks[0].Event)
	require.Equal(t, 999*time.Second, f.Hooks[0].Timeout)
	require.Equal(t, time.Second, f.Hooks[1].Timeout, "1000 and more are milliseconds")
	require.Equal(t, "TodoCreated", Qwen.StdinEvent("TaskCreated", "TaskCreated"))
	require.Equal(t, "PreToolUse", Qwen.StdinEvent("pre-tool", "PreToolUse"))
}

// fuzzAgentFile reads arbitrary bytes as an agent's file in dialect d: no panic, every
// enabled hook has an event, and a timeout that was set is positive (a huge one does not
// wrap around).
func fuzzAgentFile(f *testing.F, d *Dialect, paths []string, seeds ...string) {
	for _, s := range append(seeds,
		`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e308, "additionalContextLimit": 1.5, "commandWindows": 2}]}]}}`,
		`{"hooks":{"":[{}]}}`) {
		for i := range paths {
			f.Add([]byte(s), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		file, err := Read(paths[int(which)%len(paths)], data, d)
		if err != nil {
			return
		}
		for _, h := range file.Hooks {
			if h.Enabled() {
				require.NotEmpty(t, h.Event, "an enabled hook has an event")
			}
			if h.TimeoutSet {
				require.Positive(t, h.Timeout, "%s", data)
			}
		}
	})
}

// FuzzGeminiSettings: Gemini CLI's settings.json.
func FuzzGeminiSettings(f *testing.F) {
	fuzzAgentFile(f, Gemini, []string{"/p/.gemini/settings.json"},
		`{"hooks": {"BeforeTool": [{"matcher": "x(", "sequential": 1, "hooks": [{"type": "command", "command": "a", "timeout": -1}]}]}}`,
		`{"hooksConfig": {"enabled": "yes", "disabled": [1]}, "hooks": {"enabled": false, "AfterAgent": {}}}`)
}

// FuzzCodexHooks: Codex's hooks.json and config.toml.
func FuzzCodexHooks(f *testing.F) {
	fuzzAgentFile(f, Codex, []string{"/p/.codex/hooks.json", "/p/.codex/config.toml"},
		"[[hooks.PreToolUse]]\nmatcher = 3\n[[hooks.PreToolUse.hooks]]\ncommand = \"a\"\ntimeout = 1e400\n",
		"hooks = 1\n", "[hooks]\nStop = [{hooks = [{type = \"command\", command = \"b\", additionalContextLimit = -3}]}]\n")
}

// FuzzQwenSettings: Qwen Code's settings.json.
func FuzzQwenSettings(f *testing.F) {
	fuzzAgentFile(f, Qwen, []string{"/p/.qwen/settings.json"},
		`{"hooks": {"TodoCreated": [{"hooks": [{"type": "command", "command": "a", "timeout": 999.5}]}], "PreToolUse": [{"matcher": "Bash|(", "hooks": [{"type": "http", "url": "x"}]}]}}`)
}
