//go:build unix

package audit_test

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// holdLock takes the log's lock as another writer would, until release.
func holdLock(t *testing.T, path string) (release func()) {
	lk, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	t.Cleanup(func() { lk.Close() })
	require.NoError(t, syscall.Flock(int(lk.Fd()), syscall.LOCK_EX))
	return func() { require.NoError(t, syscall.Flock(int(lk.Fd()), syscall.LOCK_UN)) }
}
