package dispatch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bundle.json written after an engine was opened reloads it: the dispatcher watches the
// file whether or not it exists.
func TestBundleConfigWrittenLaterReloads(t *testing.T) {
	t.Parallel()
	project, home := setup(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	d := New()
	defer d.Close()
	req := Request{Agent: "claude", Project: project, Home: home,
		Payload: payloadOf(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}})}
	r, err := d.Dispatch(req)
	require.NoError(t, err)
	assert.NotContains(t, r.Stdout+r.Stderr, "policy bundle")

	path := BundleConfig(req)
	require.Equal(t, filepath.Join(home, ".config", "hookexec", "bundle.json"), path)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(`{"url": "http://127.0.0.1:9/b.tar.gz", "public_key": "k"}`), 0o600))
	r, err = d.Dispatch(req)
	require.NoError(t, err)
	assert.Contains(t, r.Stdout+r.Stderr, "blocked until the policy bundle from http://127.0.0.1:9/b.tar.gz is fetched")
	assert.Equal(t, 1, d.Engines())
}
