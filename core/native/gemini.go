package native

import (
	"bytes"
	"encoding/json"

	"github.com/hookexec/hookexec/core/engine"
)

// Gemini CLI reads one hook's answer as its hookRunner does: JSON on stdout decides, with
// Claude Code's top-level fields (continue, stopReason, systemMessage, decision, reason)
// and hookSpecificOutput's additionalContext and, on BeforeTool, tool_input for a new tool
// input. The dispatcher always answers exit 0 with that JSON: every outcome has a JSON form.

// geminiOut is Gemini CLI's hook output.
type geminiOut struct {
	Continue      *bool          `json:"continue,omitempty"`
	StopReason    string         `json:"stopReason,omitempty"`
	SystemMessage string         `json:"systemMessage,omitempty"`
	Decision      string         `json:"decision,omitempty"`
	Reason        string         `json:"reason,omitempty"`
	HookSpecific  map[string]any `json:"hookSpecificOutput,omitempty"`
}

// geminiNames are Gemini CLI's names of the events hookexec names as Claude Code does.
var geminiNames = map[string]string{
	"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool", "UserPromptSubmit": "BeforeAgent",
	"Stop": "AfterAgent", "PreCompact": "PreCompress",
}

func geminiAnswer(r *engine.Result) Answer {
	name := r.Event
	if n, ok := geminiNames[name]; ok {
		name = n
	}
	var out geminiOut
	hs := map[string]any{}
	if !r.Continue {
		f := false
		out.Continue, out.StopReason = &f, r.StopReason
	}
	out.SystemMessage = r.SystemMessage
	switch {
	case r.Blocked:
		out.Decision, out.Reason = "deny", orText(r.Reason, "blocked by hook")
		if name != "BeforeTool" {
			out.Decision = "block"
		}
	case r.Decision == "allow" || r.Decision == "ask":
		out.Decision, out.Reason = r.Decision, r.Reason
	}
	if r.AdditionalContext != "" {
		hs["additionalContext"] = r.AdditionalContext
	}
	if r.UpdatedInput != nil && name == "BeforeTool" {
		hs["tool_input"] = r.UpdatedInput
	}
	if len(hs) > 0 {
		hs["hookEventName"] = name
		out.HookSpecific = hs
	}
	if out.Continue == nil && out.SystemMessage == "" && out.Decision == "" && out.HookSpecific == nil {
		return Answer{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return Answer{ExitCode: 1, Stderr: []byte("hookexec: encoding the answer: " + err.Error() + "\n")}
	}
	return Answer{Stdout: buf.Bytes()}
}
