package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/hookexec/hookexec/core/policy/rego" // a real Rego compiler's errors
)

// TestPolicyRegoPathAndLoadError: a Rego path is relative to the declaring file's
// directory; a policy that cannot be compiled (here: its module does not exist) is an
// error at the line of its "rego" field, and the hook stays enabled.
func TestPolicyRegoPathAndLoadError(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	settings := filepath.Join(project, ".claude", "settings.json")
	write(t, settings, `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "policy",
         "rego": "policy/guard.rego",
         "query": "data.guard.decision"}
      ]}
    ]
  }
}`)
	set, err := Load(Options{Profile: "claude", ProjectDir: project, Home: home, Sources: []string{settings}})
	require.NoError(t, err)
	require.Len(t, set.Hooks, 1)
	h := set.Hooks[0]
	require.Equal(t, filepath.Join(project, ".claude", "policy", "guard.rego"), h.Policy.Rego)
	require.True(t, h.Enabled())
	require.Nil(t, h.Guard)
	require.Contains(t, h.PolicyError, "policy does not compile")
	var found bool
	for _, w := range set.Warnings {
		if strings.Contains(w.Message, "policy does not compile") {
			found = true
			require.True(t, w.Error)
			require.Equal(t, 6, w.Line, "the line of the \"rego\" field")
			require.Contains(t, w.String(), settings+":6 hooks.PreToolUse[0].hooks[0].rego: policy does not compile")
		}
	}
	require.True(t, found, "%v", set.Warnings)
}

// TestPolicyIdentity: two policies differing only in their expression are two hooks.
func TestPolicyIdentity(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	cfg := `{"hooks":{"Stop":[{"hooks":[{"type":"policy","cel":"true"},{"type":"policy","cel":"false"},{"type":"policy","cel":"true"}]}]}}`
	set, err := Load(Options{Profile: "claude", ProjectDir: project, Home: home, Sources: []string{}, Inline: []byte(cfg)})
	require.NoError(t, err)
	require.Len(t, set.Hooks, 3)
	require.NotEqual(t, set.Hooks[0].ID, set.Hooks[1].ID)
	require.Equal(t, set.Hooks[0].ID, set.Hooks[2].DuplicateOf)
}

// TestPolicyRegoModuleErrorNamesItsLine: a Rego module that does not parse is an error of
// the load at the "rego" field's line, and its message names the module's own file:line.
func TestPolicyRegoModuleErrorNamesItsLine(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	settings := filepath.Join(project, ".claude", "settings.json")
	module := filepath.Join(project, ".claude", "guard.rego")
	write(t, module, "package guard\n\ndeny if {\n  input.tool_input.command ==\n}\n")
	write(t, settings, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "policy", "rego": "guard.rego", "query": "data.guard.deny"}]}]}}`)
	set, err := Load(Options{Profile: "claude", ProjectDir: project, Home: home, Sources: []string{settings}})
	require.NoError(t, err)
	var msgs []string
	for _, w := range set.Warnings {
		if w.Error {
			msgs = append(msgs, w.String())
		}
	}
	require.Len(t, msgs, 1)
	require.Contains(t, msgs[0], settings+":2 hooks.PreToolUse[0].hooks[0].rego: policy does not compile: rego: "+module+":")
	require.True(t, set.Hooks[0].Enabled())
}
