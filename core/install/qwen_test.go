package install

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/native"
)

// Factory Droid: install moves the hooks of .factory/settings.json, and refuses while a
// hooks.json of the scope holds hooks (Droid would let them replace the dispatcher's events).
func TestFactoryInstall(t *testing.T) {
	t.Parallel()
	a, err := native.Lookup("factory")
	require.NoError(t, err)
	home := t.TempDir()
	settings := filepath.Join(home, ".factory", "settings.json")
	write(t, settings, `{"cloudSessionSync":false,"hooks":{"PreToolUse":[{"matcher":"Execute","hooks":[{"type":"command","command":"./guard.sh","timeout":10}]}]}}`)
	changes, err := Install(a, native.User, home, "/opt/hookexec/bin/hookexec hook --agent factory")
	require.NoError(t, err)
	require.Len(t, changes, 1)
	assert.Equal(t, "installed", changes[0].Action)
	s := read(t, settings)
	assert.Contains(t, s, "hook --agent factory")
	assert.Contains(t, s, `"timeout": 15`, "10 s plus the margin")
	assert.Contains(t, s, `"cloudSessionSync":false`)
	assert.Contains(t, read(t, filepath.Join(home, ".factory", "hookexec-hooks.json")), "./guard.sh")

	other := t.TempDir()
	write(t, filepath.Join(other, ".factory", "settings.json"), `{"hooks":{}}`)
	write(t, filepath.Join(other, ".factory", "hooks.json"), `{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}`)
	_, err = Install(a, native.Project, other, "hookexec hook --agent factory")
	assert.ErrorContains(t, err, "move them into")
	assert.Equal(t, `{"hooks":{}}`, read(t, filepath.Join(other, ".factory", "settings.json")), "nothing written")
}
