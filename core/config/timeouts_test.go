package config

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
}

func TestSessionEndBudgetFor(t *testing.T) {
	h := func(timeout time.Duration, set bool, d Dialect) Hook {
		return Hook{Event: "SessionEnd", Timeout: timeout, TimeoutSet: set, Dialect: d}
	}
	require.Equal(t, SessionEndBudget, SessionEndBudgetFor(nil))
	require.Equal(t, SessionEndBudget, SessionEndBudgetFor([]Hook{h(time.Second, true, DialectClaude)}), "never below 1.5 s")
	require.Equal(t, 5*time.Second, SessionEndBudgetFor([]Hook{h(5*time.Second, true, DialectClaude), h(600*time.Second, false, DialectClaude)}), "unset timeouts do not raise it")
	require.Equal(t, SessionEndBudgetMax, SessionEndBudgetFor([]Hook{h(90*time.Second, true, DialectClaude)}))
	require.Equal(t, SessionEndBudget, SessionEndBudgetFor([]Hook{h(9*time.Second, true, DialectIteratr)}), "other dialects do not share it")
}
