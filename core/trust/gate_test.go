package trust

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/config"
)

func gateFor(t *testing.T, p *Policy, id, command string) *Gate {
	t.Helper()
	c := &config.Hook{}
	c.ID, c.Type, c.Command, c.Event = id, "command", command, "Stop"
	c.Source = filepath.Join(p.Project, ".claude", "settings.json")
	gates := p.Gates([]*config.Hook{c}, func(c *config.Hook) string { return c.Command })
	require.Len(t, gates, 1)
	return gates[0]
}

// TestChangeRefusesWhatCannotBePinned: a hook whose pinned tree is too large to check at
// every fire cannot be approved, and the error says why; one that can, can.
func TestChangeRefusesWhatCannotBePinned(t *testing.T) {
	old := MaxTreeEntries
	MaxTreeEntries = 5
	t.Cleanup(func() { MaxTreeEntries = old })
	dir := t.TempDir()
	for i := range 6 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), nil, 0o644))
	}
	p := &Policy{Mode: Project, Project: dir, Home: t.TempDir(), Store: Store{Path: filepath.Join(t.TempDir(), "trust.json")}}
	big := gateFor(t, p, "big", `sh "$(pwd)/x.sh"`)
	small := gateFor(t, p, "small", `sh f1`)

	err := p.Change([]*Gate{big, small}, []string{"big"}, true)
	require.ErrorIs(t, err, ErrRefused)
	assert.ErrorContains(t, err, "too many files to pin")
	assert.Contains(t, big.Verdict().Reason, "cannot be pinned")
	assert.NoFileExists(t, p.Store.Path, "nothing written")

	require.NoError(t, p.Change([]*Gate{big, small}, []string{"small"}, true))
	s, err := p.NewState([]*Gate{big, small})
	require.NoError(t, err)
	assert.Equal(t, "", p.Admit(s, small))
	assert.Contains(t, p.Admit(s, big), "too many files to pin")
}

// TestAdmitNoticesAFileAddedUnderAPinnedTree without judging again: the next Admit sees it.
func TestAdmitNoticesAFileAddedUnderAPinnedTree(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "hooks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hooks", "a.sh"), []byte("echo a\n"), 0o755))
	p := &Policy{Mode: Project, Project: dir, Home: t.TempDir(), Store: Store{Path: filepath.Join(t.TempDir(), "trust.json")}}
	g := gateFor(t, p, "glob", `cat hooks/*.sh | sh`)
	require.NoError(t, p.Change([]*Gate{g}, nil, true))
	s, err := p.NewState([]*Gate{g})
	require.NoError(t, err)
	require.Equal(t, "", p.Admit(s, g))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hooks", "b.sh"), []byte("echo b\n"), 0o755))
	assert.Equal(t, "files under hooks/ changed", p.Admit(s, g))
	require.NoError(t, os.Remove(filepath.Join(dir, "hooks", "b.sh")))
	assert.Equal(t, "", p.Admit(s, g), "put back as approved: the approval holds again")
}
