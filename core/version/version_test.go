package version

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOneVersion checks that every copy of the version agrees with the top-level VERSION
// file: this package's constant and the macros of the public C header.
func TestOneVersion(t *testing.T) {
	b, err := os.ReadFile("../../VERSION")
	require.NoError(t, err)
	want := strings.TrimSpace(string(b))
	require.Regexp(t, `^\d+\.\d+\.\d+$`, want, "VERSION holds MAJOR.MINOR.PATCH")
	require.Equal(t, want, Version, "core/version.Version")
	require.Equal(t, want, strings.Join([]string{strconv.Itoa(Major), strconv.Itoa(Minor), strconv.Itoa(Patch)}, "."))

	h, err := os.ReadFile("../../include/hookexec.h")
	require.NoError(t, err)
	macro := func(name string) string {
		m := regexp.MustCompile(`(?m)^#define ` + name + `\s+(\S+)`).FindSubmatch(h)
		require.NotNil(t, m, "include/hookexec.h defines %s", name)
		return string(m[1])
	}
	require.Equal(t, strconv.Itoa(Major), macro("HOOKEXEC_VERSION_MAJOR"))
	require.Equal(t, strconv.Itoa(Minor), macro("HOOKEXEC_VERSION_MINOR"))
	require.Equal(t, strconv.Itoa(Patch), macro("HOOKEXEC_VERSION_PATCH"))
	require.Equal(t, `"`+want+`"`, macro("HOOKEXEC_VERSION"))
	require.Equal(t, strconv.Itoa(Number), macro("HOOKEXEC_VERSION_NUMBER"))

	// The symbol version node of the shared library names the major version.
	m, err := os.ReadFile("../../capi/exports.map")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^HOOKEXEC_`+strconv.Itoa(Major)+` \{`, string(m), "capi/exports.map's version node")
}
