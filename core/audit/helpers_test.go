package audit_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/audit"
)

// verifyOK verifies the log at path and requires it whole.
func verifyOK(t testing.TB, path string) *audit.Report {
	t.Helper()
	rep, err := audit.Verify(path, audit.VerifyOptions{})
	require.NoError(t, err)
	require.Nil(t, rep.Problem)
	return rep
}

func sha256hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
