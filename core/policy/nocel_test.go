//go:build hookexec_nocel

package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Built with -tags hookexec_nocel, the library has no CEL (and no cel-go): a CEL policy
// is a load error that says so, and the facts still work.
func TestNoCEL(t *testing.T) {
	_, err := Compile(Spec{CEL: "true"})
	assert.ErrorIs(t, err, ErrNoLanguage)
	assert.NotContains(t, Languages(), "cel")
	assert.Equal(t, [][]string{{"ls"}}, NewFacts("/p", "/p", "ls").Commands())
}
