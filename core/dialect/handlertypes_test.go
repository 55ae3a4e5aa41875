package dialect

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestClaudeCodeTimeout(t *testing.T) {
	for _, tc := range []struct {
		typ, event string
		want       time.Duration
	}{
		{"command", "PreToolUse", 600 * time.Second},
		{"http", "Stop", 600 * time.Second},
		{"mcp_tool", "PostToolUse", 600 * time.Second},
		{"prompt", "Stop", 30 * time.Second},
		{"agent", "Stop", 60 * time.Second},
		{"command", "UserPromptSubmit", 30 * time.Second},
		{"http", "UserPromptSubmit", 30 * time.Second},
		{"mcp_tool", "UserPromptSubmit", 30 * time.Second},
		{"prompt", "UserPromptSubmit", 30 * time.Second},
		{"agent", "UserPromptSubmit", 60 * time.Second},
		{"command", "MessageDisplay", 10 * time.Second},
		{"http", "MessageDisplay", 10 * time.Second},
		{"command", "SessionEnd", 1500 * time.Millisecond},
	} {
		require.Equal(t, tc.want, ClaudeCodeTimeout(tc.typ, tc.event), "%s on %s", tc.typ, tc.event)
	}
	require.Equal(t, 600*time.Second, Claude.Timeouts("command", "PreToolUse"), "the Claude dialect uses them")
	require.Nil(t, CliAgent.Timeouts, "cli-agent keeps its profile's default")
}

func TestSessionEndBudget(t *testing.T) {
	require.Equal(t, 1500*time.Millisecond, SessionEndBudget(nil))
	require.Equal(t, 1500*time.Millisecond, SessionEndBudget([]time.Duration{time.Second}), "never below 1.5 s")
	require.Equal(t, 5*time.Second, SessionEndBudget([]time.Duration{2 * time.Second, 5 * time.Second}))
	require.Equal(t, 60*time.Second, SessionEndBudget([]time.Duration{90 * time.Second}), "at most 60 s")
}

func TestClaudeCodeTypeOnEvent(t *testing.T) {
	for _, tc := range []struct {
		typ, event string
		runs       bool
	}{
		{"command", "SessionStart", true}, {"mcp_tool", "SessionStart", true}, {"http", "SessionStart", false},
		{"prompt", "Setup", false}, {"agent", "SessionStart", false},
		{"http", "Notification", true}, {"prompt", "Notification", false}, {"agent", "SessionEnd", false},
		{"prompt", "PreToolUse", true}, {"agent", "Stop", true}, {"http", "PermissionDenied", true},
		{"prompt", "UserPromptSubmit", true}, {"mcp_tool", "WorktreeCreate", true},
	} {
		why := ClaudeCodeTypeOnEvent(tc.typ, tc.event)
		require.Equal(t, tc.runs, why == "", "%s on %s: %q", tc.typ, tc.event, why)
	}
}
