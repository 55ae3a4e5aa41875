//go:build unix

package daemon

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The runtime directory is the daemon's only protection on systems without SO_PEERCRED:
// anything but a 0700 directory of this user is refused.
func TestPrivateDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	fresh := filepath.Join(root, "fresh")
	require.NoError(t, PrivateDir(fresh))
	st, err := os.Stat(fresh)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())

	open := filepath.Join(root, "open")
	require.NoError(t, os.Mkdir(open, 0o755))
	require.NoError(t, os.Chmod(open, 0o755))
	assert.ErrorContains(t, PrivateDir(open), "open to others")

	link := filepath.Join(root, "link")
	require.NoError(t, os.Symlink(fresh, link))
	assert.ErrorContains(t, PrivateDir(link), "not a directory")

	file := filepath.Join(root, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	assert.Error(t, PrivateDir(file))
}

// A second daemon in the same directory finds the lock taken and does not start.
func TestOneDaemonPerDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	done := make(chan error, 1)
	go func() { done <- Run(Options{Dir: dir, Idle: time.Hour, Identity: "a"}) }()
	deadline := time.Now().Add(time.Minute) // a hang guard
	for {
		if _, err := Ask(dir, "status"); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the daemon did not start")
		time.Sleep(10 * time.Millisecond)
	}
	err := Run(Options{Dir: dir, Idle: time.Hour, Identity: "b"})
	if err == nil {
		t.Fatal("a second daemon ran")
	}
	assert.ErrorIs(t, err, ErrRunning)
	_, err = Ask(dir, "shutdown")
	require.NoError(t, err)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the daemon did not shut down")
	}
}

// The daemon hands freed memory back once per quiet period: not while a request is recent
// or a connection is open, once when both have passed, and again only after a new request.
func TestReleaseMemoryWhenQuiet(t *testing.T) {
	calls := 0
	saved := releaseMemory
	releaseMemory = func() { calls++ }
	t.Cleanup(func() { releaseMemory = saved })
	d := &daemon{}
	d.touch()
	at := time.Unix(0, d.last.Load())
	mark := d.releaseIfQuiet(0, at.Add(quietRelease/2))
	assert.Equal(t, 0, calls, "a request less than quietRelease ago")
	d.active.Add(1)
	mark = d.releaseIfQuiet(mark, at.Add(2*quietRelease))
	assert.Equal(t, 0, calls, "a connection open")
	d.active.Add(-1)
	mark = d.releaseIfQuiet(mark, at.Add(2*quietRelease))
	assert.Equal(t, 1, calls, "quiet: released")
	mark = d.releaseIfQuiet(mark, at.Add(10*quietRelease))
	assert.Equal(t, 1, calls, "still quiet, nothing new to release")
	d.last.Store(at.Add(20 * quietRelease).UnixNano()) // a request
	mark = d.releaseIfQuiet(mark, at.Add(20*quietRelease+quietRelease/2))
	assert.Equal(t, 1, calls, "the new request is recent")
	d.releaseIfQuiet(mark, at.Add(22*quietRelease))
	assert.Equal(t, 2, calls, "quiet again after it: released")
}
