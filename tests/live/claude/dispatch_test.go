package claude

import "regexp"

// Dispatch mode (HOOKEXEC_LIVE_DISPATCH=1, make test-claude-dispatch) is the shared
// runner's (tests/live/suite/dispatch.go): every vector runs natively and with hookexec
// installed, and the two runs of Claude Code must agree. What is Claude Code's own is how
// its texts are normalised before they are compared.

var (
	// hookPrefix is how Claude Code names the hook before its exit-2 reason ("[command]: ");
	// through the dispatcher the model gets the reason alone (docs/use-with-agents.md).
	hookPrefix = regexp.MustCompile(`(?s)\[[^\]]*?(\][^:\]]*?)*?\]: `)
	// the ids of background agents
	agentIDRE = regexp.MustCompile(`\ba[0-9a-f]{16}\b`)
	// how long a background agent ran, in its completion notice
	durationRE = regexp.MustCompile(`<duration_ms>\d+</duration_ms>`)
)

func normalize(s string) string {
	s = hookPrefix.ReplaceAllString(s, "")
	s = agentIDRE.ReplaceAllLiteralString(s, "$AGENT")
	return durationRE.ReplaceAllString(s, "<duration_ms>$$MS</duration_ms>")
}
