package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/bundle"
	"github.com/hookexec/hookexec/core/bundle/bundletest"
	"github.com/hookexec/hookexec/core/bundle/fetch"
)

// teamBundle is a served bundle, its bundle.json in a fresh home, and a project.
type teamBundle struct {
	srv           *bundletest.Server
	key           bundletest.Key
	home, project string
	cfg           *bundle.Config
}

func newTeamBundle(t *testing.T, onMissing string) *teamBundle {
	t.Helper()
	tb := &teamBundle{srv: bundletest.Serve(t), key: bundletest.EC(t), home: t.TempDir(), project: t.TempDir()}
	path := bundle.ConfigPath(tb.home, os.Getenv)
	c, _ := json.Marshal(map[string]any{"url": tb.srv.BundleURL(), "public_key": tb.key.Public, "algorithm": "ES256", "on_missing": onMissing})
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, c, 0o600))
	var err error
	tb.cfg, err = bundle.LoadConfig(path)
	require.NoError(t, err)
	return tb
}

// publish serves settings as revision rev and has the cache fetch it.
func (tb *teamBundle) publish(t *testing.T, rev string, settings map[string]any) {
	t.Helper()
	tb.srv.Set(bundletest.TarGz(t, bundletest.Sign(t, bundletest.Settings(t, rev, settings), tb.key, bundle.DefaultKeyID)))
	tb.fetch(t)
}

// fetch has the cache fetch what the server serves now.
func (tb *teamBundle) fetch(t *testing.T) {
	t.Helper()
	_, err := fetch.Check(context.Background(), tb.cfg, nil)
	require.NoError(t, err)
}

// project writes the project's .claude/settings.json.
func (tb *teamBundle) projectSettings(t *testing.T, settings map[string]any) {
	t.Helper()
	data, _ := json.Marshal(settings)
	require.NoError(t, os.MkdirAll(filepath.Join(tb.project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tb.project, ".claude", "settings.json"), data, 0o644))
}

func (tb *teamBundle) open(t *testing.T, mutate ...func(*Options)) *Engine {
	t.Helper()
	o := Options{Profile: "claude", ProjectDir: tb.project, Home: tb.home, ManagedSettings: filepath.Join(tb.home, "no-managed.json")}
	for _, m := range mutate {
		m(&o)
	}
	e, err := Open(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func guardSettings(name, reason string) map[string]any {
	return map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "command", "name": name, "command": "echo '" + reason + "' >&2; exit 2"}}}}}}
}

const bashRm = `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`

func TestBundleFailsClosedBeforeTheFirstFetch(t *testing.T) {
	tb := newTeamBundle(t, "")
	marker := filepath.Join(tb.project, "stop-ran")
	tb.projectSettings(t, map[string]any{"hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "true"}}}},
		"Stop":       []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "touch " + marker}}}},
	}})
	e := tb.open(t)
	for _, ev := range []struct{ name, payload string }{
		{"PreToolUse", bashRm},
		{"UserPromptSubmit", `{"prompt":"hi"}`},
		{"PermissionRequest", `{"tool_name":"Bash"}`},
	} {
		r := fireT(t, e, ev.name, ev.payload)
		require.True(t, r.Blocked, ev.name)
		require.Equal(t, "deny", r.Decision)
		require.Contains(t, r.Reason, tb.srv.BundleURL())
		require.Contains(t, r.Reason, "on_missing is closed")
		require.Empty(t, r.Hooks, "nothing runs while closed")
	}
	x, err := e.Explain("PreToolUse", []byte(bashRm))
	require.NoError(t, err)
	require.Equal(t, 0, x.Runs)
	require.Equal(t, CheckBundle, x.Hooks[0].Check, "explain says why the project's hook does not run")
	require.Contains(t, x.Hooks[0].Reason, "blocked until the policy bundle")
	// ConfigChange of policy_settings cannot be blocked, closed or not.
	require.False(t, fireT(t, e, "ConfigChange", `{"source":"policy_settings"}`).Blocked)
	require.True(t, fireT(t, e, "ConfigChange", `{"source":"project_settings"}`).Blocked)

	// Stop is not blocked: blocking it would keep the agent working.
	r := fireT(t, e, "Stop", `{}`)
	require.False(t, r.Blocked)
	require.FileExists(t, marker)
	rep, err := e.Config()
	require.NoError(t, err)
	require.Contains(t, rep.Warnings[len(rep.Warnings)-1].Message, "blocked until the policy bundle")

	// Once fetched, a reload applies the bundle and the block is gone.
	tb.publish(t, "r1", guardSettings("team-guard", "team says no"))
	require.NoError(t, e.Reload())
	r = fireT(t, e, "UserPromptSubmit", `{"prompt":"hi"}`)
	require.False(t, r.Blocked)
	r = fireT(t, e, "PreToolUse", bashRm)
	require.True(t, r.Blocked)
	require.Equal(t, "team says no", r.Reason)
}

func TestBundleOpenBeforeTheFirstFetch(t *testing.T) {
	tb := newTeamBundle(t, "open")
	e := tb.open(t)
	r := fireT(t, e, "PreToolUse", bashRm)
	require.False(t, r.Blocked)
	rep, err := e.Config()
	require.NoError(t, err)
	found := false
	for _, w := range rep.Warnings {
		found = found || !w.Error && w.Source == tb.cfg.Path()
	}
	require.True(t, found, "on_missing open says the bundle is missing: %+v", rep.Warnings)
}

func TestBundleConfigThatDoesNotReadFailsClosed(t *testing.T) {
	tb := newTeamBundle(t, "")
	require.NoError(t, os.WriteFile(tb.cfg.Path(), []byte(`{"url": "https://x"}`), 0o600))
	e := tb.open(t)
	r := fireT(t, e, "PreToolUse", bashRm)
	require.True(t, r.Blocked)
	require.Contains(t, r.Reason, "public_key")
}

// Nothing a project (or the user) writes switches a bundle's hooks off: disableAllHooks
// and disabledHooks reach only their own hooks, and the agent running its own settings
// files (AgentRuns) leaves the bundle's hooks to hookexec.
func TestBundleHooksAreManaged(t *testing.T) {
	tb := newTeamBundle(t, "")
	tb.publish(t, "r1", guardSettings("team-guard", "team says no"))
	tb.projectSettings(t, map[string]any{"disableAllHooks": true, "disabledHooks": []string{"team-guard"},
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "name": "mine", "command": "true"}}}}}})
	for name, mutate := range map[string]func(*Options){
		"profile":    func(*Options) {},
		"agent runs": func(o *Options) { o.AgentRuns = []string{filepath.Join(tb.project, ".claude", "settings.json")} },
		"cli-agent": func(o *Options) {
			o.Profile = "cli-agent"
			o.Sources = []string{filepath.Join(tb.project, ".claude", "settings.json")}
		},
	} {
		t.Run(name, func(t *testing.T) {
			e := tb.open(t, mutate)
			r := fireT(t, e, "PreToolUse", bashRm)
			require.True(t, r.Blocked)
			require.Equal(t, "team says no", r.Reason)
			require.Len(t, r.Hooks, 1, "the project's own hook is off, the bundle's runs")
			require.Equal(t, "team-guard", r.Hooks[0].ID)
			require.Equal(t, tb.cfg.SettingsPath(), r.Hooks[0].Source)
			rep, err := e.Config()
			require.NoError(t, err)
			for _, h := range rep.Hooks {
				if h.ID == "team-guard" {
					require.True(t, h.Managed)
					require.Empty(t, h.Disabled)
				}
			}
		})
	}
}

func TestBundleAllowManagedHooksOnly(t *testing.T) {
	tb := newTeamBundle(t, "")
	s := guardSettings("team-guard", "team says no")
	s["allowManagedHooksOnly"] = true
	tb.publish(t, "r1", s)
	tb.projectSettings(t, map[string]any{"hooks": map[string]any{"PostToolUse": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "name": "mine", "command": "true"}}}}}})
	e := tb.open(t)
	r := fireT(t, e, "PostToolUse", `{"tool_name":"Bash"}`)
	require.Equal(t, 0, r.Matched)
	rep, err := e.Config()
	require.NoError(t, err)
	for _, h := range rep.Hooks {
		if h.ID == "mine" {
			require.Contains(t, h.Disabled, "allowManagedHooksOnly is set in managed settings "+tb.cfg.SettingsPath())
		}
	}
}

func TestBundleOffWithDash(t *testing.T) {
	tb := newTeamBundle(t, "")
	e := tb.open(t, func(o *Options) { o.BundleConfig = "-" })
	require.False(t, fireT(t, e, "PreToolUse", bashRm).Blocked)
}
