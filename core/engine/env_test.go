package engine

import (
	"os"
	"path/filepath"
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

// Gemini CLI's and Qwen Code's system settings are found from the environment the engine is
// opened with (Environ, then Env over it), not from this process's: the daemon, whose own
// environment is empty, loads the files an in-process engine of the same agent loads.
func TestSystemSettingsFromTheEnginesEnvironment(t *testing.T) {
	dir := t.TempDir()
	gemini, qwen := filepath.Join(dir, "gemini.json"), filepath.Join(dir, "qwen.json")
	for _, p := range []string{gemini, qwen} {
		require.NoError(t, os.WriteFile(p, []byte(`{"hooks":{}}`), 0o600))
	}
	t.Setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", filepath.Join(dir, "process.json")) // not the engine's
	t.Setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", filepath.Join(dir, "process.json"))
	for _, tc := range []struct {
		profile, path string
		opts          func(o *Options)
	}{
		{"gemini", gemini, func(o *Options) {
			o.Environ = func() []string { return []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + gemini} }
		}},
		{"qwen", qwen, func(o *Options) {
			o.Environ = func() []string { return []string{"QWEN_CODE_SYSTEM_SETTINGS_PATH=/elsewhere.json"} }
			o.Env = map[string]string{"QWEN_CODE_SYSTEM_SETTINGS_PATH": qwen}
		}},
	} {
		o := Options{Profile: tc.profile, ProjectDir: dir, Home: dir}
		tc.opts(&o)
		e, err := Open(o)
		require.NoError(t, err)
		cfg, err := e.Config()
		require.NoError(t, err)
		var loaded []string
		for _, s := range cfg.Sources {
			if s.Status == "loaded" {
				loaded = append(loaded, s.Path)
			}
		}
		require.Equal(t, []string{tc.path}, loaded, tc.profile)
		require.NoError(t, e.Close())
	}
}
