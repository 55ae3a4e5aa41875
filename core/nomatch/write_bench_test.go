package nomatch_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/nomatch"
)

// BenchmarkWrite: what a load adds to the daemon's call that made it: the index of a
// project with one Bash guard, computed and compared with the file already there (the
// write itself only when it changed).
func BenchmarkWrite(b *testing.B) {
	saved := nomatch.Settle
	nomatch.Settle = 0
	defer func() { nomatch.Settle = saved }()
	w := newWorld(b, "", "id")
	w.hooks(map[string][]string{"PreToolUse": {"Bash"}})
	claude, _ := native.Lookup("claude")
	eng, err := engine.Open(engine.Options{Profile: "claude", ProjectDir: w.project, Home: w.home,
		Sources: claude.Sources(w.project, w.home), AgentRuns: claude.Settings(w.project, w.home)})
	require.NoError(b, err)
	defer eng.Close()
	answer := func(r *engine.Result) (int, []byte, []byte) {
		a := claude.Answer(r)
		return a.ExitCode, a.Stdout, a.Stderr
	}
	key := nomatch.Key{Agent: "claude", Project: w.project, Home: w.home}
	for b.Loop() {
		nm, err := eng.NoMatch()
		require.NoError(b, err)
		require.NoError(b, nomatch.Write(w.run, "id", key, nm, answer))
	}
}
