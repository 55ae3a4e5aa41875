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
	entries, _ := os.ReadDir(filepath.Join(dir, "a", "b"))
	assert.Len(t, entries, 1, "no temporary files left")
}
