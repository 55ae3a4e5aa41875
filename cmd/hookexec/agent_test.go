package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A project whose .claude links to the user's own directory cannot make install write there.
func TestInstallRefusesPlantedLink(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("home/.claude/settings.json", claudeProject)
	require.NoError(t, os.Symlink(filepath.Join(s.home, ".claude"), filepath.Join(s.project, ".claude")))
	out := s.run("install", "--agent", "claude")
	assert.Equal(t, exitFail, out.code)
	assert.Contains(t, out.stderr, "outside")
	assert.Equal(t, claudeProject, s.read("home/.claude/settings.json"))
	assert.False(t, strings.Contains(s.read("home/.claude/settings.json"), installMarker))
}

const installMarker = "hook --agent claude"
