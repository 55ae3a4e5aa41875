package engine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// config_dialect reads the inline config in the named dialect: a Cursor hook given inline
// sees Cursor's payload (beforeShellExecution, its fields) and answers in Cursor's words.
func TestConfigDialect(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"version":1,"hooks":{"beforeShellExecution":[{"command":"cat >/dev/null; echo '{\"permission\":\"deny\",\"agent_message\":\"not here\"}'"}]}}`
	e, err := Open(Options{Profile: "cli-agent", ProjectDir: dir, Home: dir, Sources: []string{}, Config: json.RawMessage(cfg), ConfigDialect: "cursor", Trust: "all"})
	require.NoError(t, err)
	defer e.Close()
	r, err := e.Fire("PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf x"}}`))
	require.NoError(t, err)
	require.True(t, r.Blocked, r.JSON())
	require.Contains(t, r.Reason, "not here")

	_, err = Open(Options{ProjectDir: dir, Home: dir, Sources: []string{}, Config: json.RawMessage(cfg), ConfigDialect: "nope"})
	require.ErrorIs(t, err, ErrInvalid)
}
