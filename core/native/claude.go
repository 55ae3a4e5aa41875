package native

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
)

// Claude Code reads one hook's answer as its hooks reference says: exit 0 with JSON on
// stdout, or exit 2 with the reason on stderr. The dispatcher answers with JSON wherever
// the event has a JSON form for what the fire decided, so that a block and the messages
// that came with it (systemMessage, additionalContext) all reach the agent; exit 2 only
// where a block has no JSON form.

// decisionBlock lists the events whose JSON block is a top-level {"decision": "block"}.
var decisionBlock = map[string]bool{
	"UserPromptSubmit": true, "PostToolUse": true, "PostToolUseFailure": true,
	"Stop": true, "SubagentStop": true, "ConfigChange": true,
}

// claudeOut is Claude Code's hook output, in its documented field order.
type claudeOut struct {
	Continue       *bool          `json:"continue,omitempty"`
	StopReason     string         `json:"stopReason,omitempty"`
	SystemMessage  string         `json:"systemMessage,omitempty"`
	Decision       string         `json:"decision,omitempty"`
	Reason         string         `json:"reason,omitempty"`
	HookSpecific   map[string]any `json:"hookSpecificOutput,omitempty"`
	SuppressOutput bool           `json:"suppressOutput,omitempty"`
}

func claudeAnswer(r *engine.Result) Answer { return claudeShaped(r, decisionBlock) }

// claudeShaped is Claude Code's answer, blocks on the events of blockJSON said as a
// top-level {"decision": "block"} (agents that read Claude Code's answers differ there).
func claudeShaped(r *engine.Result, blockJSON map[string]bool) Answer {
	if r.Event == "WorktreeCreate" {
		// The created directory's path on stdout is the answer; a failure is any non-zero exit.
		if r.Blocked || r.WorktreePath == "" {
			return Answer{ExitCode: 1, Stderr: []byte(orText(r.Reason, "hookexec: no hook created a worktree") + "\n")}
		}
		return Answer{Stdout: []byte(r.WorktreePath + "\n")}
	}
	var out claudeOut
	hs := map[string]any{}
	if !r.Continue {
		f := false
		out.Continue, out.StopReason = &f, r.StopReason
	}
	out.SystemMessage = r.SystemMessage
	if r.AdditionalContext != "" {
		hs["additionalContext"] = r.AdditionalContext
	}
	if r.SessionTitle != "" {
		hs["sessionTitle"] = r.SessionTitle
	}
	if r.InitialUserMessage != "" {
		hs["initialUserMessage"] = r.InitialUserMessage
	}
	if len(r.WatchPaths) > 0 {
		hs["watchPaths"] = r.WatchPaths
	}
	if r.ReloadSkills {
		hs["reloadSkills"] = true
	}
	if r.TerminalSequence != "" {
		hs["terminalSequence"] = r.TerminalSequence
	}
	if r.UpdatedToolOutput != nil {
		hs["updatedToolOutput"] = r.UpdatedToolOutput
	}
	if r.Retry {
		hs["retry"] = true
	}
	exit2 := false
	switch r.Event {
	case "PreToolUse", "PreModelSwitch", "PreSkillShellCommand":
		// PreModelSwitch reads permissionDecision as PreToolUse does (2.1.330): an ask
		// refuses the switch in a headless session, where exit 2 would only block it.
		if r.Decision != "none" {
			hs["permissionDecision"] = r.Decision
			if r.Reason != "" {
				hs["permissionDecisionReason"] = r.Reason
			}
		}
		if r.UpdatedInput != nil {
			hs["updatedInput"] = r.UpdatedInput
		}
	case "PermissionRequest":
		switch {
		case r.Decision == "deny":
			d := map[string]any{"behavior": "deny", "message": r.Reason}
			if r.Interrupt {
				d["interrupt"] = true
			}
			hs["decision"] = d
		case r.Decision == "allow":
			d := map[string]any{"behavior": "allow"}
			if r.UpdatedInput != nil {
				d["updatedInput"] = r.UpdatedInput
			}
			if r.UpdatedPermissions != nil {
				d["updatedPermissions"] = r.UpdatedPermissions
			}
			hs["decision"] = d
		}
	default:
		// Feedback events (the tool already ran) carry a hook's exit-2 reason unblocked.
		if r.Blocked || event.Lookup(r.Event).Feedback && r.Reason != "" {
			if blockJSON[r.Event] {
				out.Decision, out.Reason = "block", r.Reason
			} else {
				exit2 = true
			}
		}
	}
	if exit2 && out.Continue == nil {
		return Answer{ExitCode: 2, Stderr: []byte(orText(r.Reason, "blocked by hook") + "\n")}
	}
	if len(hs) == 1 && hs["additionalContext"] != nil && out.Continue == nil && out.SystemMessage == "" &&
		out.Decision == "" && textContext(r) {
		// Claude Code labels a SessionStart or UserPromptSubmit hook's plain stdout "hook
		// success" and JSON context "additional context" (live: sessionstart_context through
		// the dispatcher); plain text keeps the label the hooks' own output gets.
		return Answer{Stdout: []byte(r.AdditionalContext + "\n")}
	}
	if len(hs) > 0 {
		hs["hookEventName"] = r.Event
		out.HookSpecific = hs
	}
	if out.Continue == nil && out.SystemMessage == "" && out.Decision == "" && out.HookSpecific == nil {
		return Answer{} // nothing to say: exit 0, no output, as a hook that printed nothing
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return Answer{ExitCode: 1, Stderr: []byte("hookexec: encoding the answer: " + err.Error() + "\n")}
	}
	return Answer{Stdout: buf.Bytes()}
}

// textContext says whether the fire's additional context is exactly the plain stdout of its
// hooks (none answered in JSON), on the events where Claude Code reads plain stdout as
// context.
func textContext(r *engine.Result) bool {
	if r.Event != "SessionStart" && r.Event != "UserPromptSubmit" {
		return false
	}
	var texts []string
	for _, h := range r.Hooks {
		text := strings.TrimSpace(h.Stdout)
		if h.ExitCode != 0 || h.Error != "" || h.StdoutTruncated || text == "" || strings.HasPrefix(text, "{") ||
			len(h.Output) > 0 && string(h.Output) != "null" {
			continue
		}
		texts = append(texts, text)
	}
	return len(texts) > 0 && strings.Join(texts, "\n") == r.AdditionalContext
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
