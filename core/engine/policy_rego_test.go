package engine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/policy"
)

// The engine links Rego unless built with -tags hookexec_norego; without it a Rego policy
// does not compile, with the error saying why. `go test -tags hookexec_norego -run
// TestRegoBuilt ./core/engine` checks the other build.
func TestRegoBuilt(t *testing.T) {
	assert.Equal(t, regoBuilt, slices.Contains(policy.Languages(), "rego"))
	dir := t.TempDir()
	file := filepath.Join(dir, "guard.rego")
	require.NoError(t, os.WriteFile(file, []byte("package guard\n\ndecision := {\"decision\": \"block\"}\n"), 0o600))
	p, err := policy.Compile(policy.Spec{Rego: file, Query: "data.guard.decision"})
	if !regoBuilt {
		require.Error(t, err)
		assert.True(t, errors.Is(err, policy.ErrNoLanguage))
		assert.Contains(t, err.Error(), "rego policies need a hookexec built with Rego; this one was built without it")
		return
	}
	require.NoError(t, err)
	out, err := p.Eval(t.Context(), &policy.Input{Payload: []byte(`{}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"decision":"block"}`, string(out))
}
