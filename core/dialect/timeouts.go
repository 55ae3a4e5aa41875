package dialect

import "time"

// Claude Code's default timeouts (hooks reference, "Common fields" and the UserPromptSubmit,
// MessageDisplay and SessionEnd sections), for Claude Code's hooks that set none.
const (
	claudeCommandTimeout = 600 * time.Second // command, http, mcp_tool
	claudePromptTimeout  = 30 * time.Second
	claudeAgentTimeout   = 60 * time.Second
	// SessionEnd hooks share one budget of 1.5 s, raised to the longest timeout a file gives
	// one of them, up to 60 s.
	sessionEndBase = 1500 * time.Millisecond
	sessionEndMax  = 60 * time.Second
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
		return sessionEndBase
	}
	return claudeCommandTimeout
}

// SessionEndBudget is the budget Claude Code's SessionEnd hooks share, given the timeouts
// their files set (hooks that set none do not count): 1.5 s, raised to the longest of them,
// at most 60 s.
func SessionEndBudget(set []time.Duration) time.Duration {
	budget := sessionEndBase
	for _, t := range set {
		budget = max(budget, min(t, sessionEndMax))
	}
	return budget
}
