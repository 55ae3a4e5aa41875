package native

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/hookexec/hookexec/core/engine"
)

// Gemini CLI reads one hook's answer as its hookRunner does: JSON on stdout decides, with
// Claude Code's top-level fields (continue, stopReason, systemMessage, decision, reason)
// and hookSpecificOutput's additionalContext and, on BeforeTool, tool_input for a new tool
// input; what Gemini CLI alone acts on (a model request or response, a tool selection,
// clearContext, tailToolCallRequest) is handed on as the hooks answered it (geminiPassed). The dispatcher always answers exit 0 with that JSON: every outcome has a JSON form.

// geminiOut is Gemini CLI's hook output.
type geminiOut struct {
	Continue      *bool          `json:"continue,omitempty"`
	StopReason    string         `json:"stopReason,omitempty"`
	SystemMessage string         `json:"systemMessage,omitempty"`
	Decision      string         `json:"decision,omitempty"`
	Reason        string         `json:"reason,omitempty"`
	HookSpecific  map[string]any `json:"hookSpecificOutput,omitempty"`
}

// geminiPassThrough are the hookSpecificOutput fields hookexec has no verdict for, by
// event: Gemini CLI acts on them itself, so the dispatcher hands them on as its hooks
// answered them, merged as Gemini CLI merges several hooks' answers (hookAggregator): the
// later hook's field replaces the earlier's; toolConfig has its own merge (geminiToolConfig).
var geminiPassThrough = map[string][]string{
	"BeforeModel": {"llm_request", "llm_response"},
	"AfterModel":  {"llm_response"},
	"AfterTool":   {"tailToolCallRequest"},
	"AfterAgent":  {"clearContext"},
}

// geminiPassed is what the dispatcher hands on of its hooks' hookSpecificOutput.
func geminiPassed(name string, hooks []engine.HookResult) map[string]any {
	out := map[string]any{}
	if name == "BeforeToolSelection" {
		if tc := geminiToolConfig(hooks); tc != nil {
			out["toolConfig"] = tc
		}
		return out
	}
	for _, h := range hooks {
		specific := geminiSpecific(h)
		for _, k := range geminiPassThrough[name] {
			if v, ok := specific[k]; ok && string(v) != "null" {
				out[k] = v
			}
		}
	}
	return out
}

// geminiSpecific is a hook's hookSpecificOutput (nil when it answered none).
func geminiSpecific(h engine.HookResult) map[string]json.RawMessage {
	var doc struct {
		Specific map[string]json.RawMessage `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(h.Output, &doc) != nil {
		return nil
	}
	return doc.Specific
}

// geminiToolConfig merges the hooks' BeforeToolSelection toolConfigs as Gemini CLI does
// (mergeToolSelectionOutputs): NONE if any hook says NONE (no names), else ANY if any says
// ANY, else AUTO, with the sorted union of the allowed function names; nil when no hook
// answered a toolConfig.
func geminiToolConfig(hooks []engine.HookResult) map[string]any {
	mode, names, seen := "AUTO", map[string]bool{}, false
	for _, h := range hooks {
		var tc struct {
			Mode  string   `json:"mode"`
			Names []string `json:"allowedFunctionNames"`
		}
		raw, ok := geminiSpecific(h)["toolConfig"]
		if !ok || string(raw) == "null" || json.Unmarshal(raw, &tc) != nil {
			continue
		}
		seen = true
		switch {
		case tc.Mode == "NONE":
			mode = "NONE"
		case tc.Mode == "ANY" && mode != "NONE":
			mode = "ANY"
		}
		for _, n := range tc.Names {
			names[n] = true
		}
	}
	if !seen {
		return nil
	}
	list := []string{}
	if mode != "NONE" {
		for n := range names {
			list = append(list, n)
		}
		sort.Strings(list)
	}
	return map[string]any{"mode": mode, "allowedFunctionNames": list}
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
	if name == "AfterModel" && r.Blocked && r.Continue {
		// Gemini CLI 0.61.0 warns about a blocked AfterModel response but still acts on it
		// (its tool calls run: live, after_model_deny_deliberate); it does honour a stop,
		// which ends the turn with nothing of the response acted on, so a block is said as both.
		c := *r
		c.Continue, c.StopReason = false, orText(r.Reason, "blocked by hook")
		r = &c
	}
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
	case name == "AfterTool" && r.Reason != "" && len(r.UpdatedToolOutput) > 0 && string(r.UpdatedToolOutput) != "null":
		// A withheld result (decide.Gemini: the output replaced by the error) is said as
		// Gemini CLI's own block, which withholds it (live: after_tool_deny_withholds through
		// the dispatcher; without it the model got the real output).
		out.Decision, out.Reason = "block", r.Reason
	case r.Decision == "allow" || r.Decision == "ask":
		out.Decision, out.Reason = r.Decision, r.Reason
	}
	if r.AdditionalContext != "" {
		hs["additionalContext"] = r.AdditionalContext
	}
	if r.UpdatedInput != nil && name == "BeforeTool" {
		hs["tool_input"] = r.UpdatedInput
	}
	for k, v := range geminiPassed(name, r.Hooks) {
		hs[k] = v
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
