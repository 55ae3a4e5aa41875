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

func TestExplainTable(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	out := s.run("--profile", "claude", "explain", "PreToolUse", "--payload", `{"tool_name":"Bash","tool_input":{"command":"ls 'my dir'"}}`)
	require.Equal(t, 0, out.code, out.stderr)
	golden(t, "explain_bash.txt", s.normalise(out.stdout))

	out = s.run("--profile", "claude", "--json", "explain", "PreToolUse", "--payload", `{"tool_name":"Edit","tool_input":{"file_path":"a b.py"}}`)
	require.Equal(t, 0, out.code, out.stderr)
	var x struct {
		Runs  int `json:"runs"`
		Hooks []struct {
			ID, Check, Reason string
			Runs              bool
			Argv              []string
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &x))
	assert.Equal(t, 0, x.Runs, "fmt matches Edit but is disabled by disabledHooks")
	require.Len(t, x.Hooks, 4)
	assert.Equal(t, "fmt", x.Hooks[1].ID)
	assert.Equal(t, "disabled", x.Hooks[1].Check)
	assert.Contains(t, x.Hooks[1].Reason, "disabledHooks")
	assert.Equal(t, "event", x.Hooks[3].Check)
}

func TestTestVerb(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	out := s.run("--profile", "claude", "test", "PreToolUse", "--dry-run")
	require.Equal(t, 0, out.code, out.stderr)
	golden(t, "test_dry_run.txt", s.normalise(out.stdout))

	// Running for real: the sample "ls -la" passes the guard.
	out = s.run("--profile", "claude", "test", "PreToolUse")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "PreToolUse: allowed")
	assert.Contains(t, out.stdout, "1 hook ran in")

	out = s.run("--profile", "claude", "test", "PreToolUse", "--tool", "Write", "--dry-run", "--json")
	require.Equal(t, 0, out.code, out.stderr)
	var got testJSON
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &got))
	var payload struct {
		ToolName  string         `json:"tool_name"`
		ToolInput map[string]any `json:"tool_input"`
	}
	require.NoError(t, json.Unmarshal(got.Payload, &payload))
	assert.Equal(t, "Write", payload.ToolName)
	assert.Equal(t, filepath.Join(s.project, "src", "example.py"), payload.ToolInput["file_path"])
	assert.Nil(t, got.Result, "--dry-run runs nothing")
}

// test builds the payload each seed system's event carries.
func TestTestVerbSamplesForOtherDialects(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	marker := filepath.Join(s.root, "ran")
	s.write("project/.autoagent/config.json", `{"hooks": {"PostExecutionEnd": [
		{"type": "command", "command": "echo issue {{issueNumber}}: {{issueTitle}} > `+marker+`"}]}}`)
	out := s.run("--profile", "autoagent", "test", "PostExecutionEnd")
	require.Equal(t, 0, out.code, out.stdout+out.stderr)
	b, err := os.ReadFile(marker)
	require.NoError(t, err)
	assert.Equal(t, "issue 1: Implement user authentication\n", string(b))
}

func TestReplay(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	good := s.write("good.jsonl", `{"event":"PreToolUse","payload":{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}},"expect":{"blocked":true,"decision":"deny","reason_contains":"not allowed"}}

{"event":"PreToolUse","payload":{"tool_name":"Bash","tool_input":{"command":"ls"}},"expect":{"blocked":false,"matched":1}}
{"event":"Stop","expect":{"blocked":false,"continue":true}}
`)
	out := s.run("--profile", "claude", "replay", good)
	require.Equal(t, 0, out.code, out.stdout+out.stderr)
	golden(t, "replay_ok.txt", s.normalise(out.stdout))

	bad := s.write("bad.jsonl", `{"event":"PreToolUse","payload":{"tool_name":"Bash","tool_input":{"command":"ls"}},"expect":{"blocked":true,"reason_contains":"nope"}}
{"event":"PreToolUse","payload":{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}},"expect":{"blocked":true}}
`)
	out = s.run("--profile", "claude", "replay", bad)
	assert.Equal(t, 1, out.code, "a mismatch exits 1")
	golden(t, "replay_mismatch.txt", s.normalise(out.stdout))

	out = s.runIn(s.read("bad.jsonl"), "--profile", "claude", "--json", "replay", "-")
	assert.Equal(t, 1, out.code)
	var got replayJSON
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &got))
	assert.Equal(t, 2, got.Total)
	assert.Equal(t, 1, got.Failed)
	assert.Equal(t, []string{"blocked is false, want true", `reason "" does not contain "nope"`}, got.Results[0].Mismatches)
}

func TestReplayBadInputRunsNothing(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	marker := filepath.Join(s.root, "ran")
	s.write("project/.claude/settings.json", `{"hooks": {"Stop": [{"command": "touch `+marker+`"}]}}`)
	cases := map[string]string{
		`{"event":"Stop"}` + "\n" + `{"event":"Stop","expect":{"blockd":true}}`: `:2: not a replay record: json: unknown field "blockd"`,
		`{"event":"Stop"}` + "\n" + `not json`:                                  ":2: not a replay record",
		`{"event":"Stpo"}`:                                                      `:1: unknown event "Stpo" (did you mean "Stop"?)`,
		`{"event":"Stop","payload":[1]}`:                                        ":1: payload: payload is an array",
		"\n\n":                                                                  "holds no fires",
	}
	for content, want := range cases {
		f := s.write("in.jsonl", content)
		out := s.run("--profile", "claude", "replay", f)
		assert.Equal(t, exitUsage, out.code, content)
		assert.Contains(t, out.stderr, want)
		assert.Equal(t, 1, strings.Count(out.stderr, "\n"))
		assert.NoFileExists(t, marker, "nothing runs when the file is bad")
	}
	// The control: the same hook does run from a good file, so "nothing ran" above means
	// replay refused the bad ones.
	s.run("--profile", "claude", "replay", s.write("in.jsonl", `{"event":"Stop"}`))
	assert.FileExists(t, marker)

	out := s.run("replay", filepath.Join(s.root, "missing.jsonl"))
	assert.Equal(t, exitUsage, out.code)
	assert.Contains(t, out.stderr, "cannot read")
}

// --log and $HOOKEXEC_LOG: one JSON line per fire, whichever verb fires.
func TestLogFlag(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	log := filepath.Join(s.root, "fires.jsonl")
	out := s.run("--profile", "claude", "--log", log, "fire", "PreToolUse", "--payload", `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	require.Equal(t, 2, out.code)
	s.env = []string{"HOOKEXEC_LOG=" + log}
	out = s.run("--profile", "claude", "fire", "Stop")
	require.Equal(t, 0, out.code)
	lines := strings.Split(strings.TrimSpace(s.read("fires.jsonl")), "\n")
	require.Len(t, lines, 2)
	var first struct {
		Event   string `json:"event"`
		Blocked bool   `json:"blocked"`
		Hooks   []struct {
			ID       string `json:"id"`
			Ran      bool   `json:"ran"`
			Reason   string `json:"reason"`
			Command  string `json:"command"`
			ExitCode *int   `json:"exit_code"`
			Line     int    `json:"line"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	assert.True(t, first.Blocked)
	require.Len(t, first.Hooks, 4)
	assert.Equal(t, "guard", first.Hooks[0].ID)
	assert.True(t, first.Hooks[0].Ran)
	assert.Equal(t, "./guard.sh", first.Hooks[0].Command)
	assert.Equal(t, 2, *first.Hooks[0].ExitCode)
	assert.Equal(t, 7, first.Hooks[0].Line)
	assert.Contains(t, first.Hooks[1].Reason, "disabledHooks")
	assert.Contains(t, lines[1], `"event":"Stop"`)
	assert.NotContains(t, out.stdout+out.stderr, `"hooks"`, "the log goes to the file only")
}

// Claude Code's "if" rules: list shows them, explain says when one keeps a hook from running.
func TestIfRules(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo git-guard", "name": "git-guard", "if": "Bash(git push *)"},
        {"type": "command", "command": "echo audit", "name": "audit"}
      ]}
    ]
  }
}
`)
	out := s.run("--profile", "claude", "list")
	require.Equal(t, 0, out.code, out.stderr)
	golden(t, "list_if.txt", s.normalise(out.stdout))
	out = s.run("--profile", "claude", "explain", "PreToolUse", "--payload", `{"tool_name":"Bash","tool_input":{"command":"git status"}}`)
	require.Equal(t, 0, out.code, out.stderr)
	golden(t, "explain_if.txt", s.normalise(out.stdout))
}
