package config

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hooks and warnings carry the JSON path and line they come from, so a user can jump to it.
func TestHooksAndWarningsAreLocated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	write(t, path, `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "(",
        "hooks": [{"type": "command", "command": "true"}]
      },
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "echo ok"},
          {"type": "command", "command": "echo two", "if": "Bash(", "colour": 1}
        ]
      }
    ]
  }
}`)
	set, err := Load(Options{ProjectDir: dir, Home: dir, Sources: []string{path}})
	require.NoError(t, err)
	require.Len(t, set.Hooks, 3)
	assert.Equal(t, "hooks.PreToolUse[0].hooks[0]", set.Hooks[0].Path)
	assert.Equal(t, 6, set.Hooks[0].Line)
	assert.Equal(t, "hooks.PreToolUse[1].hooks[1]", set.Hooks[2].Path)
	assert.Equal(t, 12, set.Hooks[2].Line)

	type loc struct {
		Path  string
		Line  int
		Error bool
	}
	var got []loc
	for _, w := range set.Warnings {
		got = append(got, loc{w.Path, w.Line, w.Error})
	}
	assert.ElementsMatch(t, []loc{
		{"hooks.PreToolUse[0].matcher", 5, true},      // invalid regex, found when compiling
		{"hooks.PreToolUse[1].hooks[1]", 12, false},   // unknown field
		{"hooks.PreToolUse[1].hooks[1].if", 12, true}, // invalid if rule, found when compiling
	}, got)

	b, err := json.Marshal(set.Warnings[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"severity":"`)
	assert.Contains(t, set.Warnings[0].String(), filepath.Base(path)+":")
}
