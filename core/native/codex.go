package native

import (
	"github.com/hookexec/hookexec/core/engine"
)

// Codex reads Claude Code's answers strictly (codex-rs/hooks output_parser): an answer an
// event does not support fails the hook instead of deciding. So the dispatcher gives
// Claude Code's answer without what Codex rejects: on PreToolUse, a new input always with
// allow, allow only with a new input and no ask (the call proceeds as Codex decides); on PreToolUse and
// PermissionRequest, no continue:false; on PermissionRequest, no new input, permissions or
// interrupt. A block always keeps its reason (Codex requires one).
func codexAnswer(r *engine.Result) Answer {
	c := *r
	switch c.Event {
	case "PreToolUse":
		switch {
		case c.Blocked:
			c.UpdatedInput = nil // a deny with a new input fails the hook
		case c.UpdatedInput != nil:
			c.Decision = "allow" // a new input goes only with permissionDecision allow
		case c.Decision == "ask" || c.Decision == "allow":
			c.Decision, c.Reason = "none", ""
		}
		c.Continue, c.StopReason = true, ""
	case "PermissionRequest":
		c.UpdatedInput, c.UpdatedPermissions, c.Interrupt = nil, nil, false
		c.Continue, c.StopReason = true, ""
	}
	if c.Blocked && c.Reason == "" {
		c.Reason = "blocked by hook"
	}
	return claudeAnswer(&c)
}
