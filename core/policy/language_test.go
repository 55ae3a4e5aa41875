package policy_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/policy"
)

// This package's tests link no language: a Rego policy is the load error a build without
// Rego gives (-tags hookexec_norego), naming what to do.
func TestRegoNotBuilt(t *testing.T) {
	require.NotContains(t, policy.Languages(), "rego")
	_, err := policy.Compile(policy.Spec{Rego: "/p/guard.rego", Query: "data.guard.decision"})
	require.Error(t, err)
	assert.True(t, errors.Is(err, policy.ErrNoLanguage))
	assert.Equal(t, "rego policies need a hookexec built with Rego; this one was built without it (the hookexec_norego build tag): "+
		policy.ErrNoLanguage.Error(), err.Error())
}
