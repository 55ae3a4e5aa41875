package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const claudeGuards = `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh","timeout":5}]},{"matcher":"Grep","hooks":[{"type":"command","command":"./grep-guard.sh"}]}]}}`

func TestConvertStdinToStdout(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	out := s.runIn(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh","timeout":5}]}]}}`, "convert", "--from", "claude", "--to", "cursor")
	require.Equal(t, 0, out.code, out.stderr)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &v))
	assert.Equal(t, map[string]any{"version": float64(1), "hooks": map[string]any{"beforeShellExecution": []any{map[string]any{"command": "hookexec adapt --from claude --to cursor './guard.sh'", "timeout": float64(5), "failClosed": true}}}}, v)
	assert.Contains(t, out.stderr, "claude -> cursor: 1 hooks read, 1 things do not carry over")
	assert.Contains(t, out.stderr, "changed answer")

	// The result reads back as Cursor's and runs for the same calls.
	s.write("project/.cursor/hooks.json", out.stdout)
	list := s.run("--profile", "cursor", "list", "--json")
	require.Equal(t, 0, list.code, list.stderr)
	assert.Contains(t, list.stdout, `"event_as_written": "beforeShellExecution"`)
}

func TestConvertDroppedGuardFails(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	src := s.write("project/.claude/settings.json", claudeGuards)
	out := s.run("convert", "--from", "claude", "--to", "windsurf", "--check", src)
	assert.Equal(t, exitFail, out.code, "a guard Windsurf cannot run is not a silent allow")
	assert.Empty(t, out.stdout, "--check writes nothing")
	assert.Contains(t, out.stderr, "dropped event: windsurf has no hook for PreToolUse on Grep: those calls are no longer guarded")
}

func TestConvertWriteNeverClobbers(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	src := s.write("project/.cursor/hooks.json", `{"version":1,"hooks":{"beforeShellExecution":[{"command":"./g.sh"}]}}`)
	dst := filepath.Join(s.project, ".github/hooks/hooks.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
	out := s.run("convert", "--from", "cursor", "--to", "copilot", "-o", dst, src)
	require.Equal(t, 0, out.code, out.stderr)
	first := s.read("project/.github/hooks/hooks.json")
	assert.Contains(t, first, `"bash": "hookexec adapt --from cursor --to copilot --event preToolUse './g.sh'"`)
	assert.Contains(t, first, `"matcher": "bash"`)

	require.NoError(t, os.WriteFile(dst, []byte("mine"), 0o644))
	out = s.run("convert", "--from", "cursor", "--to", "copilot", "-o", dst, src)
	assert.Equal(t, exitFail, out.code)
	assert.Contains(t, out.stderr, "exists; --merge writes the hooks into it, --force replaces it")
	assert.Equal(t, "mine", s.read("project/.github/hooks/hooks.json"))

	out = s.run("convert", "--from", "cursor", "--to", "copilot", "-o", dst, "--force", src)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, first, s.read("project/.github/hooks/hooks.json"))
}

func TestConvertUsage(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	for _, args := range [][]string{
		{"convert", "--to", "cursor"},
		{"convert", "--from", "claude", "--to", "kiro"},
		{"convert", "--from", "claude", "--to", "cursor", "a", "b"},
		{"convert", "--from", "claude", "--to", "cursor", "--check", "-o", "x"},
		{"convert", "--from", "claude", "--to", "cursor", "missing.json"},
		{"convert", "--from", "claude", "--to", "gemini", "--merge"},
		{"convert", "--from", "claude", "--to", "gemini", "--merge", "--force", "-o", "x"},
	} {
		out := s.run(args...)
		assert.Equal(t, exitUsage, out.code, "%v: %s", args, out.stderr)
	}
}

// The edit verbs write Claude-shaped, autohand and AutoAgent files only: another agent's
// file (or a place of its, like /etc/cursor) is never written in a shape it does not read.
func TestEditRefusesOtherAgentsFiles(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	cursor := `{"version":1,"hooks":{"beforeShellExecution":[{"command":"./g.sh"}]}}`
	src := s.write("project/.cursor/hooks.json", cursor)
	out := s.run("--profile", "cursor", "--source", src, "add", "PreToolUse", "--command", "x")
	assert.Equal(t, exitFail, out.code)
	assert.Contains(t, out.stderr, "is cursor's format: hookexec edits Claude-shaped, autohand and AutoAgent files only")
	assert.Equal(t, cursor, s.read("project/.cursor/hooks.json"))
}

// list shows each hook's dialect (and the event as its file spells it) when hooks of
// another agent's format are loaded.
func TestListShowsDialects(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./claude.sh"}]}]}}`)
	s.write("project/.cursor/hooks.json", `{"version":1,"hooks":{"beforeShellExecution":[{"command":"./cursor.sh"}]}}`)
	out := s.run("--profile", "claude", "--source", ".claude/settings.json", "--source", ".cursor/hooks.json", "list")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "DIALECT")
	assert.Regexp(t, `\./claude\.sh .*claude\n`, out.stdout)
	assert.Regexp(t, `\./cursor\.sh .*cursor \(beforeShellExecution\)\n`, out.stdout)

	plain := s.run("--profile", "claude", "--source", ".claude/settings.json", "list")
	assert.NotContains(t, plain.stdout, "DIALECT", "one profile's own format needs no column")
}

// A Claude Code guard converted into an existing Gemini CLI settings.json: its other
// settings stay byte for byte, a second merge changes nothing, and the written command,
// run as Gemini CLI runs it (sh -c, Gemini's payload on stdin), blocks where the guard's
// Claude Code answer (permissionDecision deny, which Gemini does not read) says so.
func TestConvertMergeIntoGeminiSettingsAndAdapt(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	guard := s.script("project/guard.sh", `#!/bin/sh
in=$(cat)
case "$in" in *'"tool_name":"Bash"'*secret*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"secrets stay put"}}';; esac
`)
	src := s.write("project/.claude/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"`+guard+`","timeout":5}]}]}}`)
	settings := "{\n  \"general\": {\"vimMode\": true},\n  \"hooks\": {\n    \"AfterAgent\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./mine.sh\"}]}]\n  },\n  \"zeta\": [1, 2]\n}\n"
	dst := s.write("project/.gemini/settings.json", settings)
	out := s.run("convert", "--from", "claude", "--to", "gemini", "--merge", "-o", dst, src)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stderr, `runs through "hookexec adapt"`)
	merged := s.read("project/.gemini/settings.json")
	assert.True(t, strings.HasPrefix(merged, "{\n  \"general\": {\"vimMode\": true},\n  \"hooks\": {\n    \"AfterAgent\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./mine.sh\"}]}]"), merged)
	assert.Contains(t, merged, "\"zeta\": [1, 2]\n}")
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal([]byte(merged), &doc), merged)
	require.Len(t, doc.Hooks["BeforeTool"], 1)
	bt := doc.Hooks["BeforeTool"][0]
	assert.Equal(t, "run_shell_command", bt.Matcher)
	assert.Equal(t, 5000, bt.Hooks[0].Timeout, "Gemini's timeouts are milliseconds")
	command := bt.Hooks[0].Command
	assert.Contains(t, command, "hookexec adapt --from claude --to gemini ")

	out = s.run("convert", "--from", "claude", "--to", "gemini", "--merge", "-o", dst, src)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, merged, s.read("project/.gemini/settings.json"), "merging twice changes nothing")

	// Run the written command as Gemini CLI would.
	gemini := func(shell string) (string, int) {
		cmd := exec.Command("/bin/sh", "-c", command)
		cmd.Dir = s.project
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+s.home, "HOOKEXEC_DAEMON=off", "GEMINI_PROJECT_DIR="+s.project)
		cmd.Stdin = strings.NewReader(`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"` + shell + `"},"session_id":"s","cwd":"` + s.project + `"}`)
		b, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return string(b), code
	}
	stdout, code := gemini("cat secret")
	require.Equal(t, 0, code)
	assert.JSONEq(t, `{"decision":"deny","reason":"secrets stay put"}`, stdout)
	stdout, code = gemini("ls")
	require.Equal(t, 0, code)
	assert.Empty(t, stdout)
}

func TestAdaptFailsClosed(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	for _, args := range [][]string{
		{"adapt", "--from", "claude", "--to", "gemini"},
		{"adapt", "--to", "gemini", "true"},
		{"adapt", "--from", "claude", "--to", "cursor", "true"},
	} {
		out := s.runIn(`{"hook_event_name":"BeforeTool"}`, args...)
		assert.Equal(t, 2, out.code, "%v: a broken adapter blocks: %s", args, out.stderr)
		assert.NotEmpty(t, out.stderr)
	}
	out := s.runIn(`not json`, "adapt", "--from", "claude", "--to", "gemini", "true")
	assert.Equal(t, 2, out.code)
	assert.Contains(t, out.stderr, "not a JSON object")
}
