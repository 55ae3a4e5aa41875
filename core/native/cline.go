package native

import (
	"strings"

	"github.com/hookexec/hookexec/core/engine"
)

// clineAnswer answers in Cline's words as cline 3.0.65 reads them (core/dialect/cline.go):
// exit 0 always (Cline never reads the exit code) and one JSON object on stdout.
//
// A PreToolUse block refuses that call only: {"overrideInput": null, "contextModification":
// reason}. Cline hands the tool a null input, which no Cline tool accepts, so the call
// fails ("Invalid input") without running, the reason reaches the model as hook context
// and the run goes on. Cline's own {"cancel": true} would end the whole run: it is used
// only where the fire stops the agent (continue: false). A PostToolUse block (the tool
// already ran) is its reason as context. The answers of the other events are never read by
// Cline (it runs those hooks detached); they carry the context anyway.
func clineAnswer(spelled string, r *engine.Result) Answer {
	out := map[string]any{}
	ctx := r.AdditionalContext
	if !r.Continue {
		out["cancel"] = true
		out["errorMessage"] = orText(r.StopReason, orText(r.Reason, "stopped by hook"))
		return jsonAnswer(out)
	}
	pre := r.Event == "PreToolUse"
	switch {
	case pre && (r.Blocked || r.Decision == "ask"):
		// Cline's file hooks cannot ask: an ask is refused too (fail closed).
		out["overrideInput"] = nil
		ctx = joinText("Blocked by hook: "+orText(r.Reason, "blocked by hook"), ctx)
	case pre && len(r.UpdatedInput) > 0 && string(r.UpdatedInput) != "null":
		out["overrideInput"] = r.UpdatedInput
	case r.Blocked && r.Reason != "":
		ctx = joinText(r.Reason, ctx)
	}
	if ctx != "" {
		out["contextModification"] = ctx
	}
	return jsonAnswer(out)
}

func joinText(a, b string) string {
	if strings.TrimSpace(b) == "" {
		return a
	}
	return a + "\n" + b
}
