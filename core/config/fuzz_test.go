package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/dialect"
)

// FuzzLoad loads arbitrary bytes as a configuration file of every profile (so in every
// dialect, detected from the file's place and shape) and as an inline config. Properties:
// Load never panics and never fails for a bad file (problems are warnings naming the
// source); every hook has an id, an event and a source; enabled hooks have unique ids, a
// positive timeout and a compiled command when they are commands; and loading is
// deterministic. Under plain go test only the seeds run.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo <<tool_name>>","timeout":5}]}]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"[","hooks":[{"command":"x"}]}],"Nope":[{"hooks":[{"command":"y"}]}]}}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":"ok?"},{"type":"command","command":"cat <<EOF\n<<x>>\nEOF"}]}]},"disableAllHooks":false,"disabledHooks":["a"]}`,
		`{"hooks":{"enabled":true,"hooks":[{"event":"pre-tool","command":"true","matcher":"read.*","filter":{"tool":["read_file"],"path":["src/**"]},"async":true}]}}`,
		`{"hooks":{"PreExecutionStart":[{"type":"git-commit","message":"wip {{sessionId}}"}]},"autoCommit":true}`,
		"session_start:\n  - command: echo hi\n    pipe_output: true\npre_iteration:\n  - command: true\n",
		`{"hooks":{"PreToolUse":[{"hooks":[{"command":"a","timeout":-1},{"command":"b","timeout":"x"},{"args":["c",1]}]}]}}`,
		`{"hooks":[]}`, `[]`, `{"hooks":{"PreToolUse":"x"}}`, "\xff\xfe", ``, `{"permissionDecision":"deny"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range append(dialect.All(), nil) {
			_, _ = dialect.Read("fuzz.json", data, d)
		}
		root := t.TempDir()
		project, home := filepath.Join(root, "project"), filepath.Join(root, "home")
		for _, name := range ProfileNames() {
			prof, err := LookupProfile(name)
			require.NoError(t, err)
			path := prof.File(project, home)
			for _, l := range prof.Locations(project, home, nil) {
				if strings.HasPrefix(l.Path, root) { // not a system file outside the test's tree
					path = l.Path
					break
				}
			}
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, data, 0o644))
			o := Options{Profile: name, ProjectDir: project, Home: home}
			first := checkLoad(t, o)
			require.Equal(t, first, checkLoad(t, o), "profile %s: loading is deterministic", name)
			require.NoError(t, os.Remove(path))
			o.Inline = data
			checkLoad(t, o)
		}
	})
}

// checkLoad loads o, checks the Set's invariants and returns its hook ids and warnings.
func checkLoad(t *testing.T, o Options) []string {
	set, err := Load(o)
	require.NoError(t, err, "a bad file is a warning, not an error")
	var out []string
	var enabled []string
	for _, h := range set.Hooks {
		require.NotEmpty(t, h.ID, "hook %+v has an id", h.Hook)
		require.NotEmpty(t, h.Event)
		require.NotEmpty(t, h.Source)
		out = append(out, h.ID+" "+h.Event+" "+h.Disabled)
		if !h.Enabled() {
			continue
		}
		require.False(t, slices.Contains(enabled, h.ID), "id %s is not unique", h.ID)
		enabled = append(enabled, h.ID)
		require.Positive(t, h.Timeout, "hook %s", h.ID)
		if h.Type == "command" {
			require.NotNil(t, h.Cmd, "enabled command hook %s is compiled", h.ID)
		}
	}
	for _, w := range set.Warnings {
		require.NotEmpty(t, w.Source, "warning %q names its source", w.Message)
		out = append(out, w.String())
	}
	for _, s := range set.Sources {
		require.Contains(t, []string{"loaded", "missing", "error"}, s.Status)
	}
	return out
}
