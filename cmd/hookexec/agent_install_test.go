package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// installCase is one agent's project hooks, installed with the real binary, then driven as
// the agent drives a hook (the payload on stdin, the answer read from the exit code and
// stdout), then uninstalled. Every agent's hooks answer its own way: a guard that blocks
// `rm -rf`, a rewrite of the tool's input and a Stop check.
type installCase struct {
	agent string
	// files are the project's agent files, by path under the project; settings is the one
	// install rewrites (the others must stay byte for byte).
	files    map[string]string
	settings string
	// says is the line install prints for the settings file, and notMoved those it prints
	// for files it leaves with the agent.
	says     string
	notMoved []string
	// installed are texts the rewritten settings must hold, each with why.
	installed [][2]string
	// envelope is added to every payload (hook_event_name and the rest are the fire's).
	envelope map[string]any
	fires    []installFire
	// left is how many files the agent's directory holds after uninstall.
	left int
	// more is the agent's own checks, run while installed.
	more func(t *testing.T, s *scenario, hook func(map[string]any) output)
}

// installFire is one hook call and the answer the agent must get: want is its stdout as
// JSON, or "" for exit 0 with nothing said.
type installFire struct {
	payload map[string]any
	want    string
	why     string
}

// denied is the Claude-shaped PreToolUse deny that Claude Code, Codex and Qwen Code read.
const denied = `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf here"}}`

const stopBlock = `{"decision": "block", "reason": "tests not run"}`

// claudeProject: a guard, a rewrite, a Stop check and a SessionStart that exports through
// CLAUDE_ENV_FILE and gives plain-text context.
const claudeProject = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0"}]},
      {"matcher": "Write", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"file_path\": \"safe.txt\"}}}'"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests not run\"}'"}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "echo 'export FROM_HOOK=yes' >> \"$CLAUDE_ENV_FILE\"; echo project notes"}]}]
  }
}
`

// codexProject: Codex's hooks.json, beside a config.toml with a [hooks] table of its own.
const codexProject = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0", "timeout": 5}]},
      {"matcher": "apply_patch", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"input\": \"safe\"}}}'", "timeout": 5}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests not run\"}'", "timeout": 5}]}]
  }
}
`

const codexTOML = "[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = \"echo native\"\n"

// geminiProject: exit 2 with the reason, JSON with hookSpecificOutput.tool_input, and a
// hook setting (disabled) inside the hooks object.
const geminiProject = `{
  "hooks": {
    "disabled": ["nothing-yet"],
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0", "timeout": 5000}]},
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "echo '{\"decision\": \"allow\", \"hookSpecificOutput\": {\"tool_input\": {\"file_path\": \"safe.txt\"}}}'"}]}
    ],
    "AfterAgent": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests not run\"}'"}]}]
  }
}
`

// qwenProject: exit 2 with the reason on stderr; a rewrite through PermissionRequest, the
// only event whose updatedInput Qwen Code applies; a timeout in the old milliseconds.
const qwenProject = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0", "timeout": 5}]}
    ],
    "PermissionRequest": [
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PermissionRequest\", \"decision\": {\"behavior\": \"allow\", \"updatedInput\": {\"file_path\": \"safe.txt\"}}}}'"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests not run\"}'", "timeout": 2000}]}]
  },
  "model": {"name": "qwen3-coder-plus"}
}
`

func shell(tool, command string) map[string]any {
	return map[string]any{"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": map[string]any{"command": command}}
}

var installCases = []installCase{{
	agent:    "claude",
	files:    map[string]string{".claude/settings.json": claudeProject},
	settings: ".claude/settings.json",
	says:     ".claude/settings.json: installed (4 matcher groups moved to hookexec-hooks.json; dispatcher for PreToolUse, Stop, SessionStart)",
	fires: []installFire{
		{shell("Bash", "rm -rf /"), denied, "exit 2 with the reason: Claude Code blocks the call and shows the reason to the model"},
		{shell("Bash", "ls"), "", "no decision: exit 0 and nothing said, as a hook that exits 0 silently"},
		{map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": "x.txt", "content": "hi"}},
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"file_path": "safe.txt"}}}`, "Claude Code replaces the input with updatedInput"},
		{map[string]any{"hook_event_name": "Stop", "stop_hook_active": false}, stopBlock, ""},
	},
	left: 1,
	more: claudeMore,
}, {
	agent:     "codex",
	files:     map[string]string{".codex/hooks.json": codexProject, ".codex/config.toml": codexTOML},
	settings:  ".codex/hooks.json",
	says:      ".codex/hooks.json: installed (3 matcher groups moved to hookexec-hooks.json; dispatcher for PreToolUse, Stop)",
	notMoved:  []string{".codex/config.toml: not moved: its [hooks] table stays with the agent (install does not rewrite TOML)"},
	installed: [][2]string{{`"timeout": 10`, "5 s plus the margin"}},
	envelope:  map[string]any{"transcript_path": nil, "model": "gpt-5-codex"},
	fires: []installFire{
		{withID(shell("Bash", "rm -rf /"), "c1"), denied, ""},
		{withID(shell("Bash", "ls"), "c2"), "", "no decision: exit 0 and nothing said"},
		{map[string]any{"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_use_id": "c3", "tool_input": map[string]any{"input": "x"}},
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"input": "safe"}}}`, ""},
		{map[string]any{"hook_event_name": "Stop", "turn_id": "t1", "stop_hook_active": false, "last_assistant_message": "done"}, stopBlock, ""},
	},
	left: 2,
}, {
	agent:    "gemini",
	files:    map[string]string{".gemini/settings.json": geminiProject},
	settings: ".gemini/settings.json",
	says:     ".gemini/settings.json: installed (3 matcher groups moved to hookexec-hooks.json; dispatcher for BeforeTool, AfterAgent)",
	installed: [][2]string{
		{`"timeout": 65000`, "Gemini CLI's default 60 s (the write_file hook has none) plus the margin, in milliseconds"},
		{"nothing-yet", "the hook settings in the hooks object stay with Gemini CLI"},
	},
	envelope: map[string]any{"timestamp": "2026-11-24T06:00:00.000Z"},
	fires: []installFire{
		{beforeTool(shell("run_shell_command", "rm -rf /")), `{"decision": "deny", "reason": "no rm -rf here"}`, "Gemini CLI blocks the tool and gives the model the reason"},
		{beforeTool(shell("run_shell_command", "ls")), "", "no decision: exit 0 and nothing said"},
		{map[string]any{"hook_event_name": "BeforeTool", "tool_name": "write_file", "tool_input": map[string]any{"file_path": "x.txt", "content": "hi"}},
			`{"decision": "allow", "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"file_path": "safe.txt"}}}`, "Gemini CLI replaces the input with tool_input"},
		{map[string]any{"hook_event_name": "AfterAgent", "prompt": "p", "prompt_response": "r", "stop_hook_active": false}, stopBlock, ""},
	},
	left: 1,
}, {
	agent:    "qwen",
	files:    map[string]string{".qwen/settings.json": qwenProject},
	settings: ".qwen/settings.json",
	says:     ".qwen/settings.json: installed (3 matcher groups moved to hookexec-hooks.json; dispatcher for PreToolUse, PermissionRequest, Stop)",
	installed: [][2]string{
		{`"timeout": 10`, "5 s plus the margin, in seconds"},
		{`"timeout": 7`, "2000 is Qwen Code's old milliseconds: 2 s plus the margin"},
	},
	envelope: map[string]any{"timestamp": "2026-11-24T06:00:00.000Z"},
	fires: []installFire{
		{shell("run_shell_command", "rm -rf /"), denied, ""},
		{shell("run_shell_command", "ls"), "", "no decision: exit 0 and nothing said"},
		{map[string]any{"hook_event_name": "PermissionRequest", "tool_name": "write_file", "tool_input": map[string]any{"file_path": "x.txt", "content": "hi"}},
			`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"file_path": "safe.txt"}}}}`, "Qwen Code allows the call with updatedInput"},
		{map[string]any{"hook_event_name": "Stop", "stop_hook_active": false}, stopBlock, ""},
	},
	left: 1,
}}

func withID(p map[string]any, id string) map[string]any { p["tool_use_id"] = id; return p }

func beforeTool(p map[string]any) map[string]any { p["hook_event_name"] = "BeforeTool"; return p }

// TestInstallDispatchUninstall: for every agent, install moves the project's hooks behind
// the dispatcher (a second install changes nothing), `hookexec hook --agent X` answers
// each call in the agent's own words, and uninstall puts the file back byte for byte.
func TestInstallDispatchUninstall(t *testing.T) {
	t.Parallel()
	for _, c := range installCases {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t)
			for rel, text := range c.files {
				s.write(filepath.Join("project", rel), text)
			}
			settings := filepath.Join("project", c.settings)
			out := s.run("install", "--agent", c.agent)
			require.Equal(t, 0, out.code, out.stderr)
			assert.Contains(t, out.stdout, c.says)
			for _, line := range c.notMoved {
				assert.Contains(t, out.stdout, line)
			}
			for rel, text := range c.files {
				if rel != c.settings {
					assert.Equal(t, text, s.read(filepath.Join("project", rel)), "%s is the agent's, not install's", rel)
				}
			}
			installed := s.read(settings)
			assert.Contains(t, installed, "hook --agent "+c.agent)
			for _, want := range c.installed {
				assert.Contains(t, installed, want[0], want[1])
			}
			assert.NotContains(t, installed, "rm -rf", "the guard moved behind the dispatcher")

			again := s.run("install", "--agent", c.agent)
			require.Equal(t, 0, again.code, again.stderr)
			assert.Equal(t, installed, s.read(settings), "a second install changes nothing")

			hook := func(fields map[string]any) output {
				payload := maps.Clone(fields)
				payload["session_id"] = "s1"
				payload["cwd"] = s.project
				for k, v := range c.envelope {
					payload[k] = v
				}
				b, _ := json.Marshal(payload)
				return s.runIn(string(b), "hook", "--agent", c.agent)
			}
			for _, f := range c.fires {
				got := hook(f.payload)
				if f.want == "" {
					assert.Equal(t, output{code: 0}, got, f.why)
					continue
				}
				assert.Equal(t, 0, got.code, got.stderr)
				assert.JSONEq(t, f.want, got.stdout, f.why)
			}
			if c.more != nil {
				c.more(t, s, hook)
			}

			un := s.run("uninstall", "--agent", c.agent)
			require.Equal(t, 0, un.code, un.stderr)
			assert.Contains(t, un.stdout, "restored")
			assert.Equal(t, c.files[c.settings], s.read(settings))
			entries, err := os.ReadDir(filepath.Dir(filepath.Join(s.root, settings)))
			require.NoError(t, err)
			assert.Len(t, entries, c.left, "only the agent's own files are left")
		})
	}
}

// claudeMore: status reports the install; SessionStart's export reaches CLAUDE_ENV_FILE and
// its plain text comes back as plain text; a payload that cannot be read fails closed.
func claudeMore(t *testing.T, s *scenario, hook func(map[string]any) output) {
	st := s.run("status", "--json")
	require.Equal(t, 0, st.code, st.stderr)
	var rows []struct {
		Agent, Scope, Settings string
		Installed              bool
		Events                 []string
		Managed                int
	}
	require.NoError(t, json.Unmarshal([]byte(st.stdout), &rows))
	found := false
	for _, r := range rows {
		if r.Settings == filepath.Join(s.project, ".claude", "settings.json") {
			found = true
			assert.True(t, r.Installed)
			assert.Equal(t, 4, r.Managed)
			assert.Equal(t, []string{"PreToolUse", "Stop", "SessionStart"}, r.Events)
		}
	}
	assert.True(t, found, st.stdout)

	envFile := filepath.Join(s.root, "claude-env")
	s.env = append(s.env, "CLAUDE_ENV_FILE="+envFile)
	start := hook(map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	assert.Equal(t, 0, start.code, start.stderr)
	assert.Equal(t, "project notes\n", start.stdout, "plain-text context is answered in plain text, which Claude Code labels as it does the hook's own")
	env, err := os.ReadFile(envFile)
	require.NoError(t, err)
	assert.Equal(t, "export FROM_HOOK=yes\n", string(env))

	bad := s.runIn("not json", "hook", "--agent", "claude")
	// A payload it cannot read fails closed (issue 25): exit 1 would let the tool run.
	assert.Equal(t, exitBlocked, bad.code, "a call whose hooks cannot run is blocked, never let through")
	assert.Contains(t, bad.stderr, "hookexec: the hooks of this call could not run: ")
	assert.Contains(t, bad.stderr, "blocked to be safe (the event cannot be told)")
}
