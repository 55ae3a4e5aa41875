package config

import "time"

// Claude Code's default timeouts (hooks reference, "Common fields" and the UserPromptSubmit,
// MessageDisplay and SessionEnd sections), for hooks of the claude profile that set none.
const (
	claudeCommandTimeout = 600 * time.Second // command, http, mcp_tool
	claudePromptTimeout  = 30 * time.Second
	claudeAgentTimeout   = 60 * time.Second
	// SessionEnd hooks share one budget of 1.5 s, raised to the longest timeout a settings
	// file gives one of them, up to SessionEndBudgetMax.
	SessionEndBudget    = 1500 * time.Millisecond
	SessionEndBudgetMax = 60 * time.Second
)

// ClaudeCodeTimeout is Claude Code's default timeout of a hook of type typ on event.
func ClaudeCodeTimeout(typ, event string) time.Duration {
	switch typ {
	case "prompt":
		return claudePromptTimeout
	case "agent":
		return claudeAgentTimeout
	}
	switch event {
	case "UserPromptSubmit":
		return 30 * time.Second
	case "MessageDisplay":
		return 10 * time.Second
	case "SessionEnd":
		return SessionEndBudget
	}
	return claudeCommandTimeout
}

// SessionEndBudgetFor is the shared budget of the SessionEnd hooks of a Claude Code
// configuration: 1.5 s, raised to the longest timeout set in a file (hooks that set none do
// not raise it), at most 60 s.
func SessionEndBudgetFor(hooks []Hook) time.Duration {
	budget := SessionEndBudget
	for i := range hooks {
		h := &hooks[i]
		if h.Event == "SessionEnd" && h.Dialect == DialectClaude && h.TimeoutSet && h.Enabled() {
			budget = max(budget, min(h.Timeout, SessionEndBudgetMax))
		}
	}
	return budget
}
