package dialect

import (
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
)

// Claude is Claude Code's settings format: {"hooks": {"Event": [{matcher, hooks: [...]}]}}
// (a flat {matcher, type, command} entry is read too). Timeouts in seconds; hooks see
// session_id, transcript_path, cwd and hook_event_name around the payload.
// Any Claude-shaped file no other dialect claims is read as this one.
var Claude = &Dialect{
	Name:             "claude",
	Unit:             time.Second,
	Envelope:         payload.Claude,
	CanonicalOnStdin: true,
	Templates:        true,
	Timeouts:         ClaudeCodeTimeout,
	Types:            []string{"http", "agent", "mcp_tool"},
	TypeOnEvent:      ClaudeCodeTypeOnEvent,
	Detect:           func(_ string, v *fastjson.Value) bool { return claudeShaped(v) },
	Load:             loadClaudeShape,
}
