package dialect

import (
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
)

// Claude is Claude Code's settings format: {"hooks": {"Event": [{matcher, hooks: [...]}]}}
// (a flat {matcher, type, command} entry is read too). Timeouts in seconds; hooks see
// session_id, transcript_path, cwd and hook_event_name around the payload; commands go to
// the shell exactly as written (Claude Code has no placeholders, so `{{.ID}}` stays
// literal); a matcher on an event without matcher support is ignored, and PermissionRequest
// is decided by the hookSpecificOutput.decision object only, as the hooks reference says.
// Any Claude-shaped file no other dialect claims is read as this one.
var Claude = &Dialect{
	Name:                "claude",
	Unit:                time.Second,
	Envelope:            payload.Claude,
	CanonicalOnStdin:    true,
	Templates:           false,
	StrayMatcherIgnored: true,
	DecisionObjects:     true,
	ContinueAfterTool:   true,
	Timeouts:            ClaudeCodeTimeout,
	Types:               []string{"http", "agent", "mcp_tool"},
	TypeOnEvent:         ClaudeCodeTypeOnEvent,
	Detect:              func(_ string, v *fastjson.Value) bool { return claudeShaped(v) },
	Load:                loadClaudeShape,
}
