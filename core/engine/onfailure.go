package engine

import (
	"fmt"
	"strings"

	"github.com/hookexec/hookexec/core/decide"
)

// onFailureIgnored are the events on which Claude Code 2.1.330 ignores onFailure "block"
// (their block would stop nothing the hook guards); mcp_tool hooks add SessionStart and
// Setup.
var onFailureIgnored = map[string]bool{"Stop": true, "SubagentStop": true, "TaskCompleted": true, "TeammateIdle": true}

// onFailure applies Claude Code's onFailure "block": a hook that failed (did not start,
// timed out, exited with a code other than 0 and 2, or its evaluator erred) blocks the
// action its event guards, with the reason Claude Code gives the model; the failure itself
// stays in the hook's error.
func (j *job) onFailure(hr *HookResult, v *decide.Verdict) {
	typ := j.h.cfg.Type
	switch {
	case !j.h.cfg.OnFailureBlock, v.Blocked, !j.ev.CanBlock, v.Error == "" && hr.Error == "":
		return
	case onFailureIgnored[j.ev.Name], typ == "mcp_tool" && (j.ev.Name == "SessionStart" || j.ev.Name == "Setup"):
		v.Warnings = append(v.Warnings, fmt.Sprintf("onFailure \"block\" is ignored on %s; the failure does not block", j.ev.Name))
		return
	}
	what, label := "failed", j.h.command()
	if hr.TimedOut {
		what = "timed out"
	}
	why := `blocking because onFailure is "block"`
	if typ == "mcp_tool" {
		label = j.h.cfg.Server + "/" + j.h.cfg.Tool
		why += " and the hook got no usable answer from its MCP server."
	}
	v.Decision, v.Blocked = decide.Deny, true
	v.Reason = fmt.Sprintf("[%s]: %s; %s", label, what, why)
	if stderr := strings.TrimSpace(hr.Stderr); stderr != "" && typ != "mcp_tool" && !hr.TimedOut {
		// Claude Code adds a failed hook's stderr on the next line (not an MCP server's
		// words, nor a timed-out hook's).
		v.Reason += "\n" + stderr
	}
	if hr.Error == "" {
		hr.Error = v.Error
	}
}
