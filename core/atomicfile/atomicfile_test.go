package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "settings.json")
	require.NoError(t, Write(p, []byte("one"), 0o600))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	require.NoError(t, os.Chmod(p, 0o640))
	require.NoError(t, Write(p, []byte("two"), 0o600))
	b, _ := os.ReadFile(p)
	assert.Equal(t, "two", string(b))
	st, _ = os.Stat(p)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "an existing file keeps its mode")

	// A directory where the file should be: the write fails, nothing is left behind.
	require.Error(t, Write(filepath.Join(dir, "a"), []byte("x"), 0o600))
	entries, _ := os.ReadDir(dir) // where that write's temporary file was made
	require.Len(t, entries, 1, "no temporary files left")
	assert.Equal(t, "a", entries[0].Name())
}

// A settings file that is a link (into a dotfiles repository, say) stays a link: the write
// replaces the file it points to.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	require.NoError(t, Write(real, []byte("one"), 0o644))
	link := filepath.Join(dir, "home", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
	require.NoError(t, os.Symlink("../dotfiles/settings.json", link))

	require.NoError(t, Write(link, []byte("two"), 0o600))
	st, err := os.Lstat(link)
	require.NoError(t, err)
	assert.True(t, st.Mode()&os.ModeSymlink != 0, "the link is still a link")
	b, _ := os.ReadFile(real)
	assert.Equal(t, "two", string(b))
	entries, _ := os.ReadDir(filepath.Dir(link))
	assert.Len(t, entries, 1, "nothing left beside the link")
}

// WritePrivate gives the file its mode whatever mode it had: a secret written over a 0644
// file is never readable by others, not even before a chmod after the rename.
func TestWritePrivate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, Write(p, []byte("{}"), 0o644))
	require.NoError(t, WritePrivate(p, []byte(`{"env":{"SECRET":"s"}}`), 0o600))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	b, _ := os.ReadFile(p)
	assert.Equal(t, `{"env":{"SECRET":"s"}}`, string(b))
}
