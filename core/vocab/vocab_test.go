package vocab

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoSpellingMeansTwoTools keeps the table a function: a name two agents use must name
// the same canonical tool in both, or Tool could not say which one a host meant.
func TestNoSpellingMeansTwoTools(t *testing.T) {
	seen := map[string]string{} // spelling → agent that defined it first
	for _, agent := range Agents {
		for name, canon := range tools[agent] {
			if first, ok := seen[name]; ok {
				require.Equal(t, tools[first][name], canon, "%q is %s in %s but %s in %s", name, tools[first][name], first, canon, agent)
			}
			seen[name] = agent
			require.Equal(t, canon, Tool(name))
		}
	}
}

func TestSpellRoundTrips(t *testing.T) {
	for _, agent := range Agents {
		for _, canon := range tools[agent] {
			s := Spell(agent, canon)
			require.NotEmpty(t, s, "%s has %s", agent, canon)
			require.Equal(t, canon, Tool(s), "%s spells %s as %s", agent, canon, s)
		}
	}
	require.Equal(t, "run_shell_command", Spell(Gemini, Bash))
	require.Equal(t, "Bash", Spell(Codex, Bash)) // what Codex 0.169 sends (tests/live/codex)
	require.Equal(t, "Shell", Spell(Cursor, Bash))
	require.Equal(t, "run_commands", Spell(Cline, Bash), "cline 3.0.65 sends run_commands")
	require.Equal(t, Bash, Tool("execute_command"), "the extension's older name stays readable")
	require.Equal(t, "Execute", Spell(Factory, Bash))
	require.Equal(t, "bash", Spell(Copilot, Bash))
	require.Equal(t, "read_file", Spell(Gemini, Read))
	require.Equal(t, "", Spell(Windsurf, Bash), "Windsurf names actions by event, not tool")
	require.Equal(t, "", Spell("nope", Bash))
}

func TestSpellings(t *testing.T) {
	tests := []struct {
		agent, subject string
		want           []string
	}{
		{Claude, "run_shell_command", []string{"Bash"}},
		{Gemini, "Bash", []string{"run_shell_command"}},
		{Gemini, "shell", []string{"Bash", "run_shell_command"}},
		{Claude, "Bash", nil},
		{Claude, "mcp__github__create_issue", nil},
		{Cursor, "replace", []string{"Edit"}}, // Cursor has no Edit of its own
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, Spellings(tt.agent, tt.subject), "%s %s", tt.agent, tt.subject)
	}
}

func TestEvents(t *testing.T) {
	for agent, list := range events {
		names := map[string]bool{}
		for _, e := range list {
			require.False(t, names[e.Name], "%s lists %s twice", agent, e.Name)
			names[e.Name] = true
			require.NotEmpty(t, e.Canonical)
			got, ok := EventOf(agent, e.Name)
			require.True(t, ok)
			require.Equal(t, e, got)
		}
	}
	tests := []struct {
		agent, canonical, tool, want string
		ok                           bool
	}{
		{Cursor, "PreToolUse", Bash, "beforeShellExecution", true},
		{Cursor, "PreToolUse", "mcp__github__x", "beforeMCPExecution", true},
		{Cursor, "PreToolUse", Grep, "preToolUse", true},
		{Cursor, "PostToolUse", Write, "afterFileEdit", true},
		{Windsurf, "PreToolUse", Bash, "pre_run_command", true},
		{Windsurf, "PreToolUse", Grep, "", false}, // Windsurf has no hook for a grep
		{Copilot, "UserPromptSubmit", "", "userPromptSubmitted", true},
		{Cline, "SessionStart", "", "TaskStart", true},
		{Kiro, "SessionEnd", "", "", false},
	}
	for _, tt := range tests {
		got, ok := EventName(tt.agent, tt.canonical, tt.tool)
		require.Equal(t, tt.want, got, "%+v", tt)
		require.Equal(t, tt.ok, ok, "%+v", tt)
	}
}

func TestSpellingsOfListsThePreferredFirst(t *testing.T) {
	require.Equal(t, []string{"Bash", "exec_command", "local_shell", "shell"}, SpellingsOf(Codex, Bash))
	require.Equal(t, []string{"read_file", "read_many_files"}, SpellingsOf(Gemini, Read))
	require.Nil(t, SpellingsOf(Windsurf, Bash))
	for _, agent := range Agents {
		for canon, s := range spellings[agent] {
			require.Equal(t, s, SpellingsOf(agent, canon)[0], "%s %s", agent, canon)
		}
	}
}
