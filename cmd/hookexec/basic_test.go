package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	hxversion "github.com/hookexec/hookexec/core/version"
)

// claudeSettings is a project config with a guard, a formatter, a broken regex, a hook
// turned off by disabledHooks, a misspelt event and an unknown field.
const claudeSettings = `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "./guard.sh", "name": "guard"}
        ]
      },
      {"matcher": "Write|Edit", "type": "command", "command": "black \"$CLAUDE_PROJECT_DIR\"", "name": "fmt"},
      {"matcher": "(", "command": "true", "name": "badregex"}
    ],
    "Stop": [{"hooks": [{"command": "echo done", "name": "done", "colour": "blue"}]}],
    "PreToolUs": [{"command": "true", "name": "typo"}]
  },
  "disabledHooks": ["fmt"]
}
`

const guardScript = `#!/bin/sh
input=$(cat)
case "$input" in
  *'rm -rf'*) echo "rm -rf is not allowed" >&2; exit 2 ;;
esac
exit 0
`

func claudeScenario(t *testing.T) *scenario {
	s := newScenario(t)
	s.write("project/.claude/settings.json", claudeSettings)
	s.script("project/guard.sh", guardScript)
	return s
}

func TestListTable(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	out := s.run("--profile", "claude", "list")
	require.Equal(t, 0, out.code, out.stderr)
	golden(t, "list_claude.txt", s.normalise(out.stdout))
	assert.Contains(t, out.stderr, "run 'hookexec validate'")
}

func TestListJSON(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	out := s.run("list", "--profile", "claude", "--json")
	require.Equal(t, 0, out.code, out.stderr)
	var got listJSON
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &got))
	assert.Equal(t, "claude", got.Profile)
	assert.Equal(t, 5, got.Total)
	assert.Equal(t, 2, got.Enabled)
	ids := []string{}
	for _, h := range got.Hooks {
		ids = append(ids, h.ID)
	}
	assert.Equal(t, []string{"guard", "fmt", "badregex", "done", "typo"}, ids)
}

func TestListEmpty(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	out := s.run("list")
	require.Equal(t, 0, out.code)
	golden(t, "list_empty.txt", s.normalise(out.stdout))
}

func TestValidate(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	out := s.run("--profile", "claude", "validate")
	assert.Equal(t, 1, out.code, "errors exit 1")
	golden(t, "validate_claude.txt", s.normalise(out.stdout))

	out = s.run("--profile", "claude", "validate", "--json")
	assert.Equal(t, 1, out.code)
	var got validateJSON
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &got))
	assert.False(t, got.OK)
	assert.Equal(t, 2, got.Errors)
}

func TestValidateWarningsOnlyExitZero(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{"hooks": {"Stop": [{"command": "no-such-program-hookexec --now"}]}}`)
	out := s.run("--profile", "claude", "validate")
	assert.Equal(t, 0, out.code, out.stdout)
	assert.Contains(t, out.stdout, "no-such-program-hookexec is not on PATH")
	assert.Contains(t, out.stdout, "0 errors, 1 warning")

	clean := newScenario(t)
	clean.write("project/.claude/settings.json", `{"hooks": {"Stop": [{"command": "true"}]}}`)
	out = clean.run("--profile", "claude", "validate")
	assert.Equal(t, 0, out.code)
	assert.Equal(t, "ok: no problems found\n", out.stdout)
}

func TestFireBlocked(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	out := s.run("--profile", "claude", "fire", "PreToolUse", "--payload", `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	assert.Equal(t, 2, out.code, "blocked exits 2: %s", out.stderr)
	golden(t, "fire_blocked.txt", s.normalise(out.stdout))
}

func TestFireAllowedJSONFromStdin(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	out := s.runIn(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`, "--profile", "claude", "--json", "fire", "PreToolUse", "--payload", "-")
	require.Equal(t, 0, out.code, out.stderr)
	var r struct {
		Event   string `json:"event"`
		Matched int    `json:"matched"`
		Blocked bool   `json:"blocked"`
		Hooks   []struct {
			ID       string `json:"id"`
			ExitCode int    `json:"exit_code"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &r))
	assert.Equal(t, "PreToolUse", r.Event)
	assert.Equal(t, 1, r.Matched)
	assert.False(t, r.Blocked)
	require.Len(t, r.Hooks, 1)
	assert.Equal(t, "guard", r.Hooks[0].ID)
}

func TestFirePayloadFile(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	p := s.write("payload.json", `{"tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`)
	out := s.run("--profile", "claude", "fire", "PreToolUse", "--payload", "@"+p)
	assert.Equal(t, 2, out.code)
	assert.Contains(t, out.stdout, "rm -rf is not allowed")
}

// Bad input: one line on stderr naming the problem, exit 64, never a stack trace.
func TestBadInput(t *testing.T) {
	t.Parallel()
	s := claudeScenario(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown verb", []string{"lsit"}, `unknown command "lsit"`},
		{"unknown event", []string{"fire", "PreToolUs"}, `unknown event "PreToolUs" (did you mean "PreToolUse"?)`},
		{"unknown event far", []string{"fire", "Xyzzy"}, `unknown event "Xyzzy" (known: `},
		{"no event", []string{"fire"}, "fire: want one EVENT argument, got 0"},
		{"invalid JSON", []string{"fire", "Stop", "--payload", "{nope"}, "--payload: invalid JSON"},
		{"not an object", []string{"fire", "Stop", "--payload", "[1]"}, "payload is an array, want a JSON object"},
		{"unreadable payload", []string{"fire", "Stop", "--payload", "@/no/such/file"}, "cannot read /no/such/file: no such file or directory"},
		{"unknown flag", []string{"list", "--colour"}, "list: flag provided but not defined: -colour"},
		{"unknown profile", []string{"--profile", "vim", "list"}, `unknown profile "vim"`},
		{"list with args", []string{"list", "extra"}, `list: takes no arguments`},
		{"serve without transport", []string{"serve"}, "serve: say --stdio"},
		{"no verb", []string{}, "Usage: hookexec"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := s.run(c.args...)
			assert.Equal(t, exitUsage, out.code, out.stderr)
			assert.Contains(t, out.stderr, c.want)
			assert.NotContains(t, out.stderr, "goroutine")
			if c.name != "no verb" {
				assert.Equal(t, 1, strings.Count(out.stderr, "\n"), "one line: %q", out.stderr)
			}
			assert.Empty(t, out.stdout)
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	out := s.run("--version")
	require.Equal(t, 0, out.code)
	assert.Regexp(t, `^hookexec \S+ \(go`, out.stdout)
	assert.True(t, strings.HasPrefix(out.stdout, "hookexec "+hxversion.Version+" "), "the one version: %q", out.stdout)

	out = s.run("--help")
	require.Equal(t, 0, out.code)
	for name := range verbs {
		assert.Contains(t, out.stdout, "\n  "+name+" ", "top help lists %s", name)
		vh := s.run(name, "--help")
		require.Equal(t, 0, vh.code, name)
		assert.Contains(t, vh.stdout, "Usage: hookexec "+name, name)
		assert.Contains(t, vh.stdout, "\nExample:\n  hookexec ", "%s --help has an example", name)
		h2 := s.run("help", name)
		assert.Equal(t, vh.stdout, h2.stdout, "help %s", name)
	}
}

// validate reports each refused placeholder on its own line, with the file and line of
// the command and why (issue 16).
func TestValidateReportsEachRefusedPlaceholder(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.gen/settings.json", `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "true"},
        {"type": "command", "command": "awk $TOOL_NAME; echo ok $FILE_PATH; python3 -c \"print('$SESSION_ID')\""}
      ]}
    ]
  }
}`)
	out := s.run("--profile", "mycode", "validate")
	assert.Equal(t, 1, out.code, out.stdout)
	lines := strings.Split(strings.TrimSpace(out.stdout), "\n")
	require.Len(t, lines, 3, out.stdout)
	assert.Contains(t, lines[0], ".gen/settings.json:6")
	assert.Contains(t, lines[0], "<<tool_name>>")
	assert.Contains(t, lines[0], "awk")
	assert.Contains(t, lines[1], ".gen/settings.json:6")
	assert.Contains(t, lines[1], "<<session_id>>")
	assert.Contains(t, lines[1], "python3")
	assert.Equal(t, "2 errors, 0 warnings", lines[2])
}
