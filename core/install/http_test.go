package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/native"
)

var testHTTP = HTTP{URL: "http://127.0.0.1:40000/hookexec/hook/claude",
	SessionCommand: "/opt/hookexec/bin/hookexec hook --agent claude" + SessionFlag, Secret: "00112233445566778899aabbccddeeff"}

// The http transport: PreToolUse becomes an http hook failing closed, Stop keeps a command
// (Claude Code does not fail an http Stop hook closed): the session command, as
// SessionStart, which checks who holds the port on each of the session's command entries; the secret goes into env with the file closed to others; the rest of
// the settings stay, and uninstall puts the file back byte for byte.
func TestInstallHTTP(t *testing.T) {
	l := newLayout(t)
	claude, err := native.Lookup("claude")
	require.NoError(t, err)
	path := filepath.Join(l.home, ".claude", "settings.json")
	before := read(t, path)
	h := testHTTP
	changes, err := InstallWith(claude, native.User, l.home, dispatcher, &h)
	require.NoError(t, err)
	require.Len(t, changes, 1)
	assert.Equal(t, "installed", changes[0].Action)
	assert.Equal(t, []string{"PreToolUse", "Stop", "SessionStart"}, changes[0].Events)

	var got struct {
		Model string `json:"model"`
		Env   map[string]string
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		}
		StatusLine map[string]any `json:"statusLine"`
	}
	require.NoError(t, json.Unmarshal([]byte(read(t, path)), &got))
	assert.Equal(t, "opus", got.Model)
	assert.NotNil(t, got.StatusLine)
	assert.Equal(t, h.Secret, got.Env[SecretEnv])
	pre := got.Hooks["PreToolUse"][0].Hooks[0]
	assert.Equal(t, "http", pre["type"])
	assert.Equal(t, h.URL, pre["url"])
	assert.Equal(t, "block", pre["onFailure"])
	assert.Equal(t, map[string]any{"Authorization": "Bearer $" + SecretEnv}, pre["headers"])
	assert.Equal(t, []any{SecretEnv}, pre["allowedEnvVars"])
	assert.Equal(t, "prompt", got.Hooks["PreToolUse"][1].Hooks[0]["type"], "the agent's own handler stays")
	assert.Equal(t, h.SessionCommand, got.Hooks["Stop"][0].Hooks[0]["command"], "Stop checks the port too")
	assert.Equal(t, h.SessionCommand, got.Hooks["SessionStart"][0].Hooks[0]["command"])
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the settings hold the secret")

	again, err := InstallWith(claude, native.User, l.home, dispatcher, &h)
	require.NoError(t, err)
	assert.Equal(t, "already installed", again[0].Action)

	_, err = Uninstall(claude, native.User, l.home)
	require.NoError(t, err)
	assert.Equal(t, before, read(t, path), "uninstall restores the file exactly")
}

// A user whose settings have no hooks still gets the secret and the session entry (a
// project's http entries need them); a project's install never gets the secret.
func TestInstallHTTPNoHooks(t *testing.T) {
	home := t.TempDir()
	claude, err := native.Lookup("claude")
	require.NoError(t, err)
	h := testHTTP
	changes, err := InstallWith(claude, native.User, home, dispatcher, &h)
	require.NoError(t, err)
	assert.Equal(t, "installed", changes[0].Action)
	text := read(t, filepath.Join(home, ".claude", "settings.json"))
	assert.Contains(t, text, h.Secret)
	assert.Contains(t, text, h.SessionCommand)

	codex, err := native.Lookup("codex")
	require.NoError(t, err)
	_, err = InstallWith(codex, native.User, home, dispatcher, &h)
	assert.ErrorContains(t, err, "no http hooks")
}
