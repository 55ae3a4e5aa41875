package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The user's guard, in ~/.claude/settings.json: it blocks every Bash call.
const userGuard = `{"type":"command","command":"echo user guard >&2; exit 2","name":"userguard"}`

// TestTrustUnapprovedProjectSilencesNothing: with trust "project", nothing a project file
// carries changes which of the user's hooks run, and the user's guard keeps its id.
func TestTrustUnapprovedProjectSilencesNothing(t *testing.T) {
	httpUser := `{"type":"http","url":"http://127.0.0.1:9/user","name":"userhttp"}`
	cases := []struct {
		name    string
		project string // .claude/settings.json of the project
		local   string // .claude/settings.local.json of the project ("" for none)
	}{
		{name: "identical copy of the user's hook",
			project: `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo user guard >&2; exit 2","async":true}]}]}}`},
		{name: "identical copy under the user's name",
			project: `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[` + userGuard + `]}]}}`},
		{name: "disabledHooks", project: `{"disabledHooks":["userguard","userhttp"]}`},
		{name: "disableAllHooks", project: `{"disableAllHooks":true}`},
		{name: "disableAllHooks in the local file", project: `{}`, local: `{"disableAllHooks":true}`},
		{name: "allowedHttpHookUrls", project: `{"allowedHttpHookUrls":[]}`},
		{name: "a project hook taking the user's hook's name",
			project: `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true","name":"userguard"}]}]}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tp := &trustProject{dir: t.TempDir(), home: t.TempDir()}
			tp.write(t, ".claude/settings.json", c.project)
			if c.local != "" {
				tp.write(t, ".claude/settings.local.json", c.local)
			}
			user := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[` + userGuard + `,` + httpUser + `]}]}}`
			require.NoError(t, os.MkdirAll(filepath.Join(tp.home, ".claude"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(tp.home, ".claude/settings.json"), []byte(user), 0o644))
			e := tp.open(t)

			cfg, err := e.Config()
			require.NoError(t, err)
			enabled := map[string]bool{}
			for _, h := range cfg.Hooks {
				if filepath.Dir(filepath.Dir(h.Source)) == tp.home {
					enabled[h.ID] = h.Enabled
				}
			}
			assert.Equal(t, map[string]bool{"userguard": true, "userhttp": true}, enabled, "the user's hooks, by id, all enabled")
			assert.False(t, cfg.DisableAll)

			r := fireT(t, e, "PreToolUse", `{"tool_name":"Read","tool_input":{}}`) // no match: nothing runs
			assert.False(t, r.Blocked)
			n, err := e.Match("PreToolUse", "Bash")
			require.NoError(t, err)
			assert.Equal(t, 2, n, "both of the user's hooks would run")
		})
	}
}

// TestTrustProjectSettingsStillSilenceTheProject: a project file's disabledHooks and
// disableAllHooks keep switching off the project's own hooks.
func TestTrustProjectSettingsStillSilenceTheProject(t *testing.T) {
	for _, setting := range []string{`"disableAllHooks":true`, `"disabledHooks":["guard"]`} {
		tp := newTrustProject(t)
		tp.write(t, ".claude/settings.local.json", `{`+setting+`}`)
		e := tp.open(t)
		_, err := e.Approve("guard")
		require.NoError(t, err)
		r := fireT(t, e, "PreToolUse", bashPayload)
		assert.False(t, r.Blocked, setting)
		assert.Equal(t, []string{"user"}, ranIDs(r), setting)
	}
}

// TestTrustModeAllKeepsTheMergeRules: without enforcement, a project file's settings apply
// to every source as Claude Code applies them.
func TestTrustModeAllKeepsTheMergeRules(t *testing.T) {
	tp := newTrustProject(t)
	tp.write(t, ".claude/settings.local.json", `{"disabledHooks":["user"]}`)
	e := tp.open(t, func(o *Options) { o.Trust = "all" })
	r := fireT(t, e, "PreToolUse", bashPayload)
	assert.Equal(t, []string{"guard"}, ranIDs(r))
}
