package engine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/bundle"
	"github.com/hookexec/hookexec/core/bundle/bundletest"
)

// A bundle carries Rego modules and a policy hook naming one relative to the bundle's root;
// a new revision with only the module changed applies it.
func TestBundleRegoPolicy(t *testing.T) {
	tb := newTeamBundle(t, "")
	settings := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "policy", "name": "team-rego", "rego": "policies/guard.rego",
			"query": "data.guard.deny", "reason": "the team's Rego says no"}}}}}}
	serve := func(rev, word string) {
		f := bundletest.Settings(t, rev, settings)
		f["policies/guard.rego"] = []byte("package guard\n\ndeny if contains(input.tool_input.command, \"" + word + "\")\n")
		tb.srv.Set(bundletest.TarGz(t, bundletest.Sign(t, f, tb.key, bundle.DefaultKeyID)))
		tb.fetch(t)
	}
	serve("r1", "rm -rf")
	e := tb.open(t)
	r := fireT(t, e, "PreToolUse", bashRm)
	require.True(t, r.Blocked, "%+v", r)
	require.Equal(t, "the team's Rego says no", r.Reason)
	require.Equal(t, "policy", r.Hooks[0].Exec)
	require.False(t, fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"curl x"}}`).Blocked)

	serve("r2", "curl")
	require.NoError(t, e.Reload())
	require.False(t, fireT(t, e, "PreToolUse", bashRm).Blocked)
	require.True(t, fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"curl x"}}`).Blocked)
}
