package dialect

import (
	"time"

	"github.com/hookexec/hookexec/core/payload"
)

// CliAgent is mcp-cli-agent's settings format: Claude Code's shape, read by the cli-agent
// profile, with <<expr>>/{{expr}} placeholders substituted into commands (quoted for their
// shell context). Its shape is Claude Code's, so it is never detected: the cli-agent
// profile's own files and inline config are read in it.
var CliAgent = &Dialect{
	Name:             "cli-agent",
	Unit:             time.Second,
	Envelope:         payload.Claude,
	CanonicalOnStdin: true,
	Templates:        true,
	Load:             loadClaudeShape,
}
