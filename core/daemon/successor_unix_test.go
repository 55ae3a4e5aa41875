//go:build unix

package daemon

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSuccessorMustBeThisUsersOwn: the build a daemon executes in its place (a caller's
// executable, named in its replace request) must be one no other user can swap while the
// daemon drains; anything else is refused and the daemon runs its own path.
func TestSuccessorMustBeThisUsersOwn(t *testing.T) {
	root := t.TempDir()
	mk := func(dir string, dirMode, fileMode os.FileMode) string {
		d := filepath.Join(root, dir)
		require.NoError(t, os.MkdirAll(d, 0o700))
		f := filepath.Join(d, "hookexec")
		require.NoError(t, os.WriteFile(f, []byte("#!/bin/sh\n"), 0o700))
		require.NoError(t, os.Chmod(f, fileMode))
		require.NoError(t, os.Chmod(d, dirMode))
		return f
	}
	private := mk("private", 0o700, 0o755)
	assert.True(t, isExecutable(private), "this user's build in a private directory")
	assert.True(t, isExecutable(mk("sticky", os.ModeSticky|0o777, 0o755)), "in a sticky shared directory others cannot replace it")
	assert.False(t, isExecutable(mk("worldfile", 0o755, 0o777)), "a build anyone can write")
	assert.False(t, isExecutable(mk("groupfile", 0o755, 0o775)), "a build the group can write")
	assert.False(t, isExecutable(mk("worlddir", 0o777, 0o755)), "in a directory anyone can write into")
	assert.False(t, isExecutable(mk("noexec", 0o700, 0o644)), "not executable")
	assert.False(t, isExecutable("relative/hookexec"), "a relative path")
	link := filepath.Join(root, "link")
	require.NoError(t, os.Symlink(mk("linked", 0o755, 0o777), link))
	assert.False(t, isExecutable(link), "a link to a build anyone can write")
	if os.Getuid() == 0 {
		other := mk("other", 0o755, 0o755)
		require.NoError(t, os.Chown(other, 65534, 65534))
		assert.False(t, isExecutable(other), "another user's build")
	}
}
