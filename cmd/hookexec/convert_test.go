package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	assert.Equal(t, map[string]any{"version": float64(1), "hooks": map[string]any{"beforeShellExecution": []any{map[string]any{"command": "./guard.sh", "timeout": float64(5)}}}}, v)
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
	assert.Contains(t, first, `"bash": "./g.sh"`)
	assert.Contains(t, first, `"matcher": "bash"`)

	require.NoError(t, os.WriteFile(dst, []byte("mine"), 0o644))
	out = s.run("convert", "--from", "cursor", "--to", "copilot", "-o", dst, src)
	assert.Equal(t, exitFail, out.code)
	assert.Contains(t, out.stderr, "exists; --force replaces it")
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
