package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Hooks see the host's environment as it is at the fire, as subprocess does, not a copy taken
// at Open: a variable set, changed or removed after Open reaches (or leaves) the next fire.
// Options.Env still comes after it.
func TestHooksSeeTheEnvironmentAtFireTime(t *testing.T) {
	e, _ := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":"echo \"${HX_LATE-unset} $HX_OPT\""}]}]}}`,
		func(o *Options) { o.Env = map[string]string{"HX_OPT": "opt"} })
	require.Equal(t, "unset opt\n", fireT(t, e, "Stop", `{}`).Hooks[0].Stdout)
	t.Setenv("HX_LATE", "v1")
	require.Equal(t, "v1 opt\n", fireT(t, e, "Stop", `{}`).Hooks[0].Stdout)
	t.Setenv("HX_LATE", "v2")
	t.Setenv("HX_OPT", "host")
	require.Equal(t, "v2 opt\n", fireT(t, e, "Stop", `{}`).Hooks[0].Stdout, "Options.Env wins over the host's")
}

// Options.Environ replaces os.Environ (the C library passes the C environ).
func TestEnvironOption(t *testing.T) {
	env := []string{"HX_FROM_HOST=1", "PATH=/usr/bin:/bin"}
	e, _ := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":"echo \"$HX_FROM_HOST\""}]}]}}`,
		func(o *Options) { o.Environ = func() []string { return env } })
	require.Equal(t, "1\n", fireT(t, e, "Stop", `{}`).Hooks[0].Stdout)
	env = []string{"HX_FROM_HOST=2", "PATH=/usr/bin:/bin"}
	require.Equal(t, "2\n", fireT(t, e, "Stop", `{}`).Hooks[0].Stdout)
	require.Equal(t, []string{"HX_FROM_HOST=2", "PATH=/usr/bin:/bin"}, env, "the engine never modifies the snapshot")
}
