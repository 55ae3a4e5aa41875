package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// EnvRead names what loading read, with the values read: Gemini CLI's system settings
// path (profile locations), the trust mode, PATH; not a variable nothing reads.
func TestEnvReadNamesTheSystemSettingsPath(t *testing.T) {
	t.Parallel()
	sys := filepath.Join(t.TempDir(), "system.json")
	require.NoError(t, os.WriteFile(sys, []byte(`{}`), 0o644))
	e, err := Open(Options{Profile: "gemini", ProjectDir: t.TempDir(), Home: t.TempDir(), Environ: func() []string { return nil },
		Env: map[string]string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH": sys, "PATH": "/bin", "UNREAD": "x"}})
	require.NoError(t, err)
	defer e.Close()
	read := e.EnvRead()
	assert.Equal(t, sys, read["GEMINI_CLI_SYSTEM_SETTINGS_PATH"])
	assert.Equal(t, "/bin", read["PATH"])
	assert.Contains(t, read, "HOOKEXEC_TRUST")
	assert.NotContains(t, read, "UNREAD")
	require.NoError(t, e.Reload())
	assert.Equal(t, read, e.EnvRead(), "a reload reads the same")
}

// FireAs gives one-shot hooks the caller's environment in place of Options.Env.
func TestFireAsReplacesOptionsEnv(t *testing.T) {
	t.Parallel()
	e, err := Open(Options{ProjectDir: t.TempDir(), Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH")} },
		Env:    map[string]string{"OPENER": "first"},
		Config: []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo \"[${OPENER-unset}][${MINE-unset}][$CALL]\"; exit 2"}]}]}}`)})
	require.NoError(t, err)
	defer e.Close()
	r, err := e.FireAs("Stop", []byte(`{}`), []string{"MINE=me"}, []string{"CALL=c"})
	require.NoError(t, err)
	assert.Contains(t, r.Hooks[0].Stdout+r.Hooks[0].Stderr, "[unset][me][c]")
	r, err = e.FireEnv("Stop", []byte(`{}`), []string{"CALL=c"})
	require.NoError(t, err)
	assert.Contains(t, r.Hooks[0].Stdout+r.Hooks[0].Stderr, "[first][unset][c]")
}
