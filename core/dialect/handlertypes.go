package dialect

import "time"

// Claude Code's handler types by event and their default timeouts (hooks reference,
// "Common fields", "Prompt-based hooks" and the UserPromptSubmit, MessageDisplay and
// SessionEnd sections).

// Default timeouts, for Claude Code's hooks that set none.
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

// notHostEvaluated are the events whose hooks may be command, http or mcp_tool but not
// prompt or agent; sessionTypes those that take command and mcp_tool only.
var (
	notHostEvaluated = map[string]bool{
		"ConfigChange": true, "CwdChanged": true, "DirectoryAdded": true, "Elicitation": true,
		"ElicitationResult": true, "FileChanged": true, "InstructionsLoaded": true,
		"Notification": true, "PostCompact": true, "PreCompact": true, "SessionEnd": true,
		// Claude Code 2.1.332: "prompt and agent hooks don't run on PreSkillShellCommand".
		"PreSkillShellCommand": true,
		"StopFailure":          true, "SubagentStart": true, "WorktreeCreate": true, "WorktreeRemove": true,
	}
	sessionTypes = map[string]bool{"SessionStart": true, "Setup": true}
)

// ClaudeCodeTypeOnEvent says why Claude Code does not run a handler of type typ on event
// ("" when it does): prompt and agent hooks only run where a model's yes or no decides
// something, and SessionStart and Setup run command and mcp_tool hooks only.
func ClaudeCodeTypeOnEvent(typ, event string) string {
	switch {
	case typ == "policy":
		return "" // hookexec evaluates it on every event, whatever Claude Code would do
	case sessionTypes[event] && typ != "command" && typ != "mcp_tool":
		return "type " + typ + " on " + event + ", which runs command and mcp_tool hooks only"
	case notHostEvaluated[event] && (typ == "prompt" || typ == "agent"):
		return "type " + typ + " on " + event + ", which runs command, http and mcp_tool hooks only"
	}
	return ""
}
