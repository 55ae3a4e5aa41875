package dialect

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/policy"
)

// policyFile writes handler (a JSON object's fields, without "type") as a PreToolUse
// (or, for iteratr, session_start) policy hook in each dialect's own shape.
func policyFile(d *Dialect, handler map[string]any) (string, []byte) {
	h := map[string]any{"type": "policy"}
	for k, v := range handler {
		h[k] = v
	}
	js := func(v any) []byte { b, _ := json.Marshal(v); return b }
	group := func(event string) []byte {
		return js(map[string]any{"hooks": map[string]any{event: []any{map[string]any{"matcher": "Bash", "hooks": []any{h}}}}})
	}
	switch d {
	case Autohand:
		h["event"] = "pre-tool"
		return "/p/.autohand/config.json", js(map[string]any{"hooks": map[string]any{"hooks": []any{h}}})
	case Cursor:
		return "/p/.cursor/hooks.json", js(map[string]any{"version": 1, "hooks": map[string]any{"beforeShellExecution": []any{h}}})
	case Copilot:
		return "/p/.github/hooks/hooks.json", js(map[string]any{"version": 1, "hooks": map[string]any{"preToolUse": []any{h}}})
	case Windsurf:
		return "/p/.windsurf/hooks.json", js(map[string]any{"hooks": map[string]any{"pre_run_command": []any{h}}})
	case Kiro:
		return "/p/.kiro/hooks/guard.kiro.hook", js(map[string]any{"name": "guard", "when": map[string]any{"type": "preToolUse", "toolTypes": []any{"shell"}}, "then": h})
	case Iteratr:
		var b strings.Builder
		b.WriteString("version: 1\nhooks:\n  session_start:\n    - type: policy\n")
		for _, k := range []string{"cel", "rego", "query", "decision", "reason"} {
			if v, ok := handler[k]; ok {
				b.WriteString("      " + k + ": " + string(js(v)) + "\n")
			}
		}
		return "/p/.iteratr.hooks.yml", []byte(b.String())
	case Crush:
		h["matcher"] = "^bash$"
		return "/p/crush.json", js(map[string]any{"hooks": map[string]any{"PreToolUse": []any{h}}})
	case Antigravity:
		return "/p/.agents/hooks.json", js(map[string]any{"guard": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "run_command", "hooks": []any{h}}}}})
	case Gemini:
		return "/p/.gemini/settings.json", group("BeforeTool")
	case Codex:
		return "/p/.codex/hooks.json", group("PreToolUse")
	}
	return "/p/settings.json", group("PreToolUse")
}

// TestPolicyHandlerInEveryDialect: every dialect whose handlers are objects reads a policy
// handler, and a wrong one is an error of the load that leaves the hook enabled.
func TestPolicyHandlerInEveryDialect(t *testing.T) {
	for _, d := range All() {
		if d.Script {
			continue // Cline's hooks are executables: no handler object to hold a policy
		}
		t.Run(d.Name, func(t *testing.T) {
			src, data := policyFile(d, map[string]any{"cel": `tool_input.command.contains("rm -rf")`, "decision": "ask", "reason": "sure?"})
			f, err := Read(src, data, d)
			require.NoError(t, err)
			for _, w := range f.Warnings {
				require.False(t, w.Error, "%s", w)
			}
			require.Len(t, f.Hooks, 1)
			h := f.Hooks[0]
			require.Equal(t, "policy", h.Type)
			require.True(t, h.Enabled(), h.Disabled)
			require.Equal(t, &policy.Spec{CEL: `tool_input.command.contains("rm -rf")`, Decision: "ask", Reason: "sure?"}, h.Policy)
			require.Empty(t, h.PolicyError)

			src, data = policyFile(d, map[string]any{"rego": "guard.rego", "query": "data.guard.decision"})
			f, err = Read(src, data, d)
			require.NoError(t, err)
			require.Equal(t, &policy.Spec{Rego: "guard.rego", Query: "data.guard.decision"}, f.Hooks[0].Policy)

			for _, bad := range []struct {
				fields map[string]any
				msg    string
			}{
				{map[string]any{}, `type policy needs "cel"`},
				{map[string]any{"cel": "true", "rego": "x.rego", "query": "data.x"}, "not both"},
				{map[string]any{"rego": "x.rego"}, `needs "query"`},
				{map[string]any{"cel": "true", "decision": "dney"}, `decision "dney" is not one of deny, ask, block, allow, defer`},
			} {
				src, data = policyFile(d, bad.fields)
				f, err = Read(src, data, d)
				require.NoError(t, err)
				require.Len(t, f.Hooks, 1)
				require.True(t, f.Hooks[0].Enabled(), "a broken guard is not switched off")
				require.Contains(t, f.Hooks[0].PolicyError, bad.msg)
				var errs []string
				for _, w := range f.Warnings {
					if w.Error {
						errs = append(errs, w.Message)
					}
				}
				require.Len(t, errs, 1, "%v", f.Warnings)
				require.Contains(t, errs[0], bad.msg)
			}
		})
	}
}

// TestPolicyFieldsOnAnotherType: a command hook's cel is a mistake worth a warning.
func TestPolicyFieldsOnAnotherType(t *testing.T) {
	f, err := Read("/p/settings.json", []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","cel":"true"}]}]}}`), Claude)
	require.NoError(t, err)
	require.Nil(t, f.Hooks[0].Policy)
	require.Len(t, f.Warnings, 1)
	require.Contains(t, f.Warnings[0].Message, "cel applies to type policy only")
}
