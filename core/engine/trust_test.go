package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trustProject lays out a Claude project with a guard script and a user-level hook, and
// returns the options of an engine in trust mode "project" over it.
type trustProject struct {
	dir, home, store string
}

const guardScript = "#!/bin/sh\necho 'guard says no' >&2\nexit 2\n"

func newTrustProject(t *testing.T) *trustProject {
	t.Helper()
	tp := &trustProject{dir: t.TempDir(), home: t.TempDir()}
	tp.store = filepath.Join(tp.home, ".config", "hookexec", "trust.json")
	tp.write(t, ".claude/hooks/guard.sh", guardScript)
	tp.settings(t, `bash .claude/hooks/guard.sh`)
	user := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo user-ran","name":"user"}]}]}}`
	require.NoError(t, os.MkdirAll(filepath.Join(tp.home, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tp.home, ".claude/settings.json"), []byte(user), 0o644))
	return tp
}

func (tp *trustProject) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(tp.dir, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o755))
}

func (tp *trustProject) settings(t *testing.T, command string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": command, "name": "guard"}}}}}})
	tp.write(t, ".claude/settings.json", string(b))
}

func (tp *trustProject) open(t *testing.T, mutate ...func(*Options)) *Engine {
	t.Helper()
	o := Options{Profile: "claude", ProjectDir: tp.dir, Home: tp.home, Trust: "project"}
	for _, m := range mutate {
		m(&o)
	}
	e, err := Open(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

const bashPayload = `{"tool_name":"Bash","tool_input":{"command":"ls"}}`

func ranIDs(r *Result) []string {
	var out []string
	for _, h := range r.Hooks {
		out = append(out, h.ID)
	}
	return out
}

func TestTrustApproveEditRefuseReapprove(t *testing.T) {
	tp := newTrustProject(t)
	e := tp.open(t)

	r := fireT(t, e, "PreToolUse", bashPayload)
	assert.False(t, r.Blocked, "an unapproved hook neither blocks nor allows")
	assert.Equal(t, "none", r.Decision)
	assert.Equal(t, []string{"user"}, ranIDs(r), "user-level hooks run as before")
	require.Len(t, r.AwaitingApproval, 1)
	assert.Equal(t, Awaiting{ID: "guard", Source: filepath.Join(tp.dir, ".claude/settings.json"), Event: "PreToolUse",
		Matcher: "Bash", Command: "bash .claude/hooks/guard.sh", Reason: "new hook"}, r.AwaitingApproval[0])
	assert.Contains(t, r.Warnings, "guard: not run, awaiting approval (new hook)")
	n, err := e.Match("PreToolUse", "Bash")
	require.NoError(t, err)
	assert.Equal(t, 1, n, "a hook awaiting approval would not run")
	ids, err := e.MatchIDs("PreToolUse", "Bash")
	require.NoError(t, err)
	assert.Equal(t, []string{"user"}, ids)

	list, err := e.TrustList()
	require.NoError(t, err)
	require.Len(t, list.Hooks, 1)
	assert.Equal(t, "awaiting approval", list.Hooks[0].Status)
	require.Len(t, list.Hooks[0].Files, 1)
	assert.Equal(t, ".claude/hooks/guard.sh", list.Hooks[0].Files[0].Path)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, list.Hooks[0].Files[0].SHA256)

	list, err = e.Approve("guard")
	require.NoError(t, err)
	assert.Equal(t, "approved", list.Hooks[0].Status)
	assert.NotNil(t, list.Hooks[0].ApprovedAt)
	r = fireT(t, e, "PreToolUse", bashPayload)
	assert.True(t, r.Blocked)
	assert.Equal(t, "guard says no", r.Reason)
	assert.Empty(t, r.AwaitingApproval)

	// Edited after approval, with no reload in between: refused at fire time.
	tp.write(t, ".claude/hooks/guard.sh", "#!/bin/sh\necho pwned > pwned.txt\n")
	r = fireT(t, e, "PreToolUse", bashPayload)
	assert.False(t, r.Blocked)
	require.Len(t, r.AwaitingApproval, 1)
	assert.Equal(t, "script .claude/hooks/guard.sh changed", r.AwaitingApproval[0].Reason)
	assert.NoFileExists(t, filepath.Join(tp.dir, "pwned.txt"))
	cfg, err := e.Config()
	require.NoError(t, err)
	assert.Equal(t, "project", cfg.Trust)
	assert.Equal(t, tp.store, cfg.TrustStore)
	for _, h := range cfg.Hooks {
		if h.ID == "guard" {
			assert.Equal(t, "awaiting approval", h.Trust)
			assert.Equal(t, "script .claude/hooks/guard.sh changed", h.TrustReason)
		} else {
			assert.Empty(t, h.Trust, h.ID)
		}
	}

	// Put back byte for byte: the approval holds again.
	tp.write(t, ".claude/hooks/guard.sh", guardScript)
	assert.True(t, fireT(t, e, "PreToolUse", bashPayload).Blocked)

	// Editing the entry revokes too, and says so.
	tp.settings(t, `bash .claude/hooks/guard.sh --strict`)
	require.NoError(t, e.Reload())
	r = fireT(t, e, "PreToolUse", bashPayload)
	require.Len(t, r.AwaitingApproval, 1)
	assert.Equal(t, "command changed", r.AwaitingApproval[0].Reason)
	assert.False(t, r.Blocked)

	_, err = e.Approve() // all awaiting
	require.NoError(t, err)
	assert.True(t, fireT(t, e, "PreToolUse", bashPayload).Blocked)

	_, err = e.Revoke("guard")
	require.NoError(t, err)
	r = fireT(t, e, "PreToolUse", bashPayload)
	assert.False(t, r.Blocked)
	require.Len(t, r.AwaitingApproval, 1)

	_, err = e.Revoke("guard")
	assert.ErrorIs(t, err, ErrInvalid, "nothing left to revoke")
	_, err = e.Approve("user")
	assert.ErrorIs(t, err, ErrInvalid, "user-level hooks need no approval")
	assert.ErrorContains(t, err, `no project-level hook with id "user"`)
}

func TestTrustStoreIsReadableJSON(t *testing.T) {
	tp := newTrustProject(t)
	e := tp.open(t)
	_, err := e.Approve("guard")
	require.NoError(t, err)
	data, err := os.ReadFile(tp.store)
	require.NoError(t, err)
	var doc struct {
		Version  int `json:"version"`
		Projects map[string]struct {
			Approvals []map[string]any `json:"approvals"`
		} `json:"projects"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	real, _ := filepath.EvalSymlinks(tp.dir)
	a := doc.Projects[real].Approvals
	require.Len(t, a, 1)
	assert.Equal(t, "guard", a[0]["id"])
	assert.Equal(t, ".claude/settings.json", a[0]["source"])
	assert.Equal(t, "bash .claude/hooks/guard.sh", a[0]["command"])
	assert.Contains(t, a[0]["files"], ".claude/hooks/guard.sh")
	assert.NotEmpty(t, a[0]["approved_at"])
	assert.Contains(t, string(data), "\n      \"approvals\": [", "indented for a person")
}

func TestTrustUnreadableStoreFailsClosed(t *testing.T) {
	tp := newTrustProject(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(tp.store), 0o700))
	require.NoError(t, os.WriteFile(tp.store, []byte(`{"projects": [`), 0o600))
	e := tp.open(t)
	r := fireT(t, e, "PreToolUse", bashPayload)
	assert.Equal(t, []string{"user"}, ranIDs(r))
	require.Len(t, r.AwaitingApproval, 1)
	assert.Contains(t, r.AwaitingApproval[0].Reason, "trust store unreadable")
	cfg, err := e.Config()
	require.NoError(t, err)
	found := false
	for _, w := range cfg.Warnings {
		if w.Source == tp.store && w.Error {
			found = true
			assert.Contains(t, w.Message, "no project-level hook runs")
			assert.Contains(t, w.Message, "not valid JSON")
		}
	}
	assert.True(t, found, "a warning names the store: %v", cfg.Warnings)

	_, err = e.Approve("guard")
	require.ErrorIs(t, err, ErrTrust)
	data, _ := os.ReadFile(tp.store)
	assert.Equal(t, `{"projects": [`, string(data), "a store we cannot read is never overwritten")
	list, err := e.TrustList()
	require.NoError(t, err)
	assert.Contains(t, list.Error, "not valid JSON")
}

func TestTrustRevokedElsewhereTakesEffectWithoutReload(t *testing.T) {
	tp := newTrustProject(t)
	host := tp.open(t)
	_, err := host.Approve("guard")
	require.NoError(t, err)
	require.True(t, fireT(t, host, "PreToolUse", bashPayload).Blocked)

	cli := tp.open(t) // another process over the same store
	_, err = cli.Revoke("guard")
	require.NoError(t, err)
	r := fireT(t, host, "PreToolUse", bashPayload)
	assert.False(t, r.Blocked)
	require.Len(t, r.AwaitingApproval, 1)
	assert.Equal(t, "new hook", r.AwaitingApproval[0].Reason)
}

func TestTrustModeAllRunsEverythingAndStillLists(t *testing.T) {
	tp := newTrustProject(t)
	e := tp.open(t, func(o *Options) { o.Trust = "" }) // the claude profile's default
	r := fireT(t, e, "PreToolUse", bashPayload)
	assert.True(t, r.Blocked)
	assert.Empty(t, r.AwaitingApproval)
	list, err := e.TrustList()
	require.NoError(t, err)
	assert.Equal(t, "all", list.Mode)
	require.Len(t, list.Hooks, 1)
	assert.Equal(t, "awaiting approval", list.Hooks[0].Status)
	cfg, _ := e.Config()
	for _, h := range cfg.Hooks {
		assert.Empty(t, h.Trust, "not enforced: config() shows no trust state")
	}
}

func TestTrustUserCanTightenWithEnv(t *testing.T) {
	tp := newTrustProject(t)
	t.Setenv("HOOKEXEC_TRUST", "project")
	e := tp.open(t, func(o *Options) { o.Trust = "all" })
	r := fireT(t, e, "PreToolUse", bashPayload)
	assert.False(t, r.Blocked)
	assert.Len(t, r.AwaitingApproval, 1)
}

func TestTrustInlineAndExplicitSources(t *testing.T) {
	tp := newTrustProject(t)
	inline := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo inline","name":"inline"}]}]}}`
	outside := filepath.Join(t.TempDir(), "extra.json")
	require.NoError(t, os.WriteFile(outside, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo outside","name":"outside"}]}]}}`), 0o644))
	tp.write(t, "hooks/local.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo local","name":"local"}]}]}}`)
	e := tp.open(t, func(o *Options) {
		o.Config = json.RawMessage(inline)
		o.Sources = []string{"hooks/local.json", outside}
	})
	r := fireT(t, e, "Stop", `{}`)
	assert.Equal(t, []string{"inline", "outside"}, ranIDs(r))
	require.Len(t, r.AwaitingApproval, 1)
	assert.Equal(t, "local", r.AwaitingApproval[0].ID, "a project-relative source is project-level")
}

func TestTrustOptions(t *testing.T) {
	_, err := Open(Options{ProjectDir: t.TempDir(), Trust: "some"})
	require.ErrorIs(t, err, ErrInvalid)
	opts, err := ParseOptions([]byte(`{"trust":"project","trust_store":"/x/t.json"}`))
	require.NoError(t, err)
	assert.Equal(t, "project", opts.Trust)
	assert.Equal(t, "/x/t.json", opts.TrustStore)
}

func TestTrustScriptAddedLaterRevokes(t *testing.T) {
	tp := newTrustProject(t)
	tp.settings(t, `bash scripts/later.sh; true`)
	e := tp.open(t)
	_, err := e.Approve("guard")
	require.NoError(t, err)
	assert.Empty(t, fireT(t, e, "PreToolUse", bashPayload).AwaitingApproval)
	tp.write(t, "scripts/later.sh", "touch pwned.txt\n")
	r := fireT(t, e, "PreToolUse", bashPayload)
	require.Len(t, r.AwaitingApproval, 1)
	assert.Equal(t, "script scripts/later.sh added", r.AwaitingApproval[0].Reason)
	assert.NoFileExists(t, filepath.Join(tp.dir, "pwned.txt"))
}

func TestTrustOtherSettingsChangeRevokes(t *testing.T) {
	tp := newTrustProject(t)
	e := tp.open(t)
	_, err := e.Approve("guard")
	require.NoError(t, err)
	tp.write(t, ".claude/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
		{"type":"command","command":"bash .claude/hooks/guard.sh","name":"guard","timeout":5,"description":"renamed"}]}]}}`)
	require.NoError(t, e.Reload())
	assert.True(t, fireT(t, e, "PreToolUse", bashPayload).Blocked, "a timeout or description does not change what runs")

	tp.write(t, ".claude/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
		{"type":"command","command":"bash .claude/hooks/guard.sh","name":"guard","async":true}]}]}}`)
	require.NoError(t, e.Reload())
	r := fireT(t, e, "PreToolUse", bashPayload)
	require.Len(t, r.AwaitingApproval, 1)
	assert.Equal(t, "settings changed", r.AwaitingApproval[0].Reason)
}

func TestTrustHTTPHookURLChangeRevokes(t *testing.T) {
	tp := newTrustProject(t)
	hookAt := func(url string) string {
		return `{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"` + url + `","name":"notify"}]}]}}`
	}
	tp.write(t, ".claude/settings.json", hookAt("http://127.0.0.1:9/a"))
	e := tp.open(t)
	r := fireT(t, e, "Stop", `{}`)
	require.Len(t, r.AwaitingApproval, 1, "an http hook from the project sends data only once approved")
	_, err := e.Approve("notify")
	require.NoError(t, err)
	assert.Empty(t, fireT(t, e, "Stop", `{}`).AwaitingApproval)

	tp.write(t, ".claude/settings.json", hookAt("http://127.0.0.1:9/elsewhere"))
	require.NoError(t, e.Reload())
	r = fireT(t, e, "Stop", `{}`)
	require.Len(t, r.AwaitingApproval, 1)
	assert.Equal(t, "command changed", r.AwaitingApproval[0].Reason)
	list, err := e.TrustList()
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9/elsewhere", list.Hooks[0].URL)
}

func TestTrustIfRuleIsPartOfTheApproval(t *testing.T) {
	tp := newTrustProject(t)
	withIf := func(rule string) string {
		return `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"bash .claude/hooks/guard.sh","name":"guard","if":"` + rule + `"}]}]}}`
	}
	tp.write(t, ".claude/settings.json", withIf("Bash(ls*)"))
	e := tp.open(t)
	_, err := e.Approve("guard")
	require.NoError(t, err)
	list, err := e.TrustList()
	require.NoError(t, err)
	assert.Equal(t, "Bash(ls*)", list.Hooks[0].If)
	tp.write(t, ".claude/settings.json", withIf("Bash(*)"))
	require.NoError(t, e.Reload())
	list, err = e.TrustList()
	require.NoError(t, err)
	assert.Equal(t, "if changed", list.Hooks[0].Reason)
}
