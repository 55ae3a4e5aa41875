package native

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
)

// Cline's answers (tests/live/cline checks them against cline 3.0.65): a PreToolUse block
// refuses the call only (overrideInput null), continue:false is Cline's cancel.
func TestClineAnswer(t *testing.T) {
	r := func(ev string, f func(*engine.Result)) *engine.Result {
		res := &engine.Result{Event: ev, Continue: true, Decision: "none"}
		f(res)
		return res
	}
	cases := []struct {
		name string
		r    *engine.Result
		want string
	}{
		{"a block refuses the call only", r("PreToolUse", func(r *engine.Result) { r.Blocked, r.Decision, r.Reason = true, "deny", "no" }),
			`{"overrideInput":null,"contextModification":"Blocked by hook: no"}`},
		{"an ask is refused too", r("PreToolUse", func(r *engine.Result) { r.Decision, r.Reason = "ask", "sure?" }),
			`{"overrideInput":null,"contextModification":"Blocked by hook: sure?"}`},
		{"the block keeps the context", r("PreToolUse", func(r *engine.Result) { r.Blocked, r.Reason, r.AdditionalContext = true, "no", "ctx" }),
			`{"overrideInput":null,"contextModification":"Blocked by hook: no\nctx"}`},
		{"a Cline hook's refusal keeps its context as it was", r("PreToolUse", func(r *engine.Result) {
			r.Blocked, r.Reason, r.AdditionalContext = true, "no refusals", "no refusals"
		}), `{"overrideInput":null,"contextModification":"no refusals"}`},
		{"continue false cancels the run", r("PreToolUse", func(r *engine.Result) { r.Continue, r.StopReason = false, "halt" }),
			`{"cancel":true,"errorMessage":"halt"}`},
		{"a rewrite", r("PreToolUse", func(r *engine.Result) { r.UpdatedInput = json.RawMessage(`{"command":"ls"}`) }),
			`{"overrideInput":{"command":"ls"}}`},
		{"context", r("PreToolUse", func(r *engine.Result) { r.AdditionalContext = "c" }), `{"contextModification":"c"}`},
		{"allow is nothing", r("PreToolUse", func(r *engine.Result) { r.Decision = "allow" }), `{}`},
		{"a PostToolUse block is feedback", r("PostToolUse", func(r *engine.Result) { r.Blocked, r.Reason = true, "lint failed" }),
			`{"contextModification":"lint failed"}`},
		{"a PostToolUse stop cancels", r("PostToolUse", func(r *engine.Result) { r.Continue, r.Reason = false, "enough" }),
			`{"cancel":true,"errorMessage":"enough"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := AnswerAs("cline", "PreToolUse", tc.r)
			require.NoError(t, err)
			require.Zero(t, a.ExitCode, "Cline never reads the exit code")
			require.JSONEq(t, tc.want, string(a.Stdout))
		})
	}
}
