//go:build !unix

package audit_test

import "testing"

// holdLock needs flock, which the tests use to stand for a stuck writer; elsewhere the
// tests that need it skip.
func holdLock(t *testing.T, path string) (release func()) {
	t.Skip("holding the audit log's lock from a test needs flock (Unix)")
	return nil
}
