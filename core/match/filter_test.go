package match

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFilter(t *testing.T) {
	f, err := CompileFilter([]string{"run_command", "write_file"}, []string{"src/**/*.ts", "lib/**/*.js"}, "/work/p")
	require.NoError(t, err)
	cases := []struct {
		tool, path string
		want       bool
	}{
		{"run_command", "src/a.ts", true},
		{"write_file", "src/deep/b.ts", true},
		{"write_file", "/work/p/lib/x/y.js", true},
		{"builtin:write_file", "src/a.ts", true}, // the bare name, however the host spells it
		{"read_file", "src/a.ts", false},         // tool list fails
		{"write_file", "src/a.js", false},        // path list fails
		{"write_file", "", false},                // a path list needs a path
		{"", "src/a.ts", false},                  // a tool list needs a tool
		{"write_file", "/elsewhere/src/a.ts", false},
		{"write_file", "../p/src/a.ts", false},
		{"write_file", "./src/a.ts", true},
	}
	for _, c := range cases {
		require.Equal(t, c.want, f.Match(c.tool, c.path), "%q %q", c.tool, c.path)
	}

	onlyPaths, err := CompileFilter(nil, []string{"**/*.ts"}, "/r")
	require.NoError(t, err)
	require.True(t, onlyPaths.Match("", "index.ts"), "** matches zero directories")
	require.True(t, onlyPaths.Match("anything", "/r/a/b/c.ts"))

	none, err := CompileFilter(nil, nil, "/r")
	require.NoError(t, err)
	require.Nil(t, none)
	require.True(t, none.Match("", ""), "a nil filter accepts every fire")

	_, err = CompileFilter(nil, []string{"src/[a"}, "/r")
	require.ErrorContains(t, err, `filter.path "src/[a" is not a valid glob`)
}

func TestCompileRegex(t *testing.T) {
	m, err := CompileRegex("read")
	require.NoError(t, err)
	require.Equal(t, Regex, m.Kind())
	require.True(t, m.Match("read_file"), "unanchored, unlike a Names matcher")
	m, err = CompileRegex("^(run_command|delete_path)$")
	require.NoError(t, err)
	require.True(t, m.Match("delete_path"))
	require.False(t, m.Match("delete_paths"))
	for _, all := range []string{"", " ", "*"} {
		m, err = CompileRegex(all)
		require.NoError(t, err)
		require.Equal(t, All, m.Kind(), "%q", all)
	}
	_, err = CompileRegex("(?i)x")
	require.ErrorIs(t, err, ErrInlineFlags)
}
