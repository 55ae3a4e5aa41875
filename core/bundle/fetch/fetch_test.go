package fetch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/bundle"
	"github.com/hookexec/hookexec/core/bundle/bundletest"
	"github.com/hookexec/hookexec/core/bundle/fetch"
)

// team is a bundle's settings: one PreToolUse guard whose command names the revision.
func team(rev string) map[string]any {
	return map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "echo guard-" + rev}}}}}}
}

type env struct {
	srv *bundletest.Server
	key bundletest.Key
	cfg *bundle.Config
}

func setup(t *testing.T, key bundletest.Key, extra map[string]any) *env {
	t.Helper()
	srv := bundletest.Serve(t)
	dir := t.TempDir()
	c := map[string]any{"url": srv.BundleURL(), "public_key": key.Public, "algorithm": key.Alg, "key_id": "team"}
	for k, v := range extra {
		c[k] = v
	}
	data, _ := json.Marshal(c)
	path := filepath.Join(dir, bundle.ConfigName)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	cfg, err := bundle.LoadConfig(path)
	require.NoError(t, err)
	return &env{srv: srv, key: key, cfg: cfg}
}

func (e *env) serve(t *testing.T, rev string) {
	e.srv.Set(bundletest.TarGz(t, bundletest.Sign(t, bundletest.Settings(t, rev, team(rev)), e.key, "team")))
}

func (e *env) check(t *testing.T) (bundle.Status, error) {
	return fetch.Check(context.Background(), e.cfg, nil)
}

// activeSettings is the active bundle's settings file as engines read it.
func (e *env) activeSettings(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(e.cfg.SettingsPath())
	require.NoError(t, err)
	return string(data)
}

func TestUpdateAppliesNewRevision(t *testing.T) {
	for _, key := range []bundletest.Key{bundletest.RSA(t), bundletest.EC(t), bundletest.HMAC("team secret")} {
		t.Run(key.Alg, func(t *testing.T) {
			e := setup(t, key, nil)
			e.serve(t, "r1")
			st, err := e.check(t)
			require.NoError(t, err)
			require.Equal(t, "r1", st.Revision)
			require.Contains(t, e.activeSettings(t), "echo guard-r1")
			require.Empty(t, st.LastError)
			require.False(t, st.FetchedAt.IsZero())

			e.serve(t, "r2")
			st, err = e.check(t)
			require.NoError(t, err)
			require.Equal(t, "r2", st.Revision)
			require.Contains(t, e.activeSettings(t), "echo guard-r2")
			require.Empty(t, st.RolledBackFrom)
			require.Equal(t, []string{"r1", "r2"}, st.Seen)
		})
	}
}

func TestETagNotModified(t *testing.T) {
	e := setup(t, bundletest.RSA(t), nil)
	e.serve(t, "r1")
	first, err := e.check(t)
	require.NoError(t, err)
	require.NotEmpty(t, first.ETag)
	second, err := e.check(t)
	require.NoError(t, err)
	require.Equal(t, int64(1), e.srv.NotMod.Load(), "the second check sends If-None-Match and gets 304")
	require.Equal(t, first.FetchedAt, second.FetchedAt, "a 304 fetches nothing")
	require.True(t, second.CheckedAt.After(first.CheckedAt) || second.CheckedAt.Equal(first.CheckedAt))
	require.Equal(t, "r1", second.Revision)

	// A cache that lost its bundle asks without If-None-Match.
	require.NoError(t, os.Remove(filepath.Join(e.cfg.Cache(), bundle.Current)))
	_, err = e.check(t)
	require.NoError(t, err)
	require.Equal(t, int64(1), e.srv.NotMod.Load())
	require.True(t, e.cfg.Active())
}

// A server that goes back to a revision it served before is followed, as OPA does, and
// the state says so.
func TestRollbackIsAppliedAndRecorded(t *testing.T) {
	e := setup(t, bundletest.RSA(t), nil)
	for _, rev := range []string{"r1", "r2"} {
		e.serve(t, rev)
		_, err := e.check(t)
		require.NoError(t, err)
	}
	e.serve(t, "r1")
	st, err := e.check(t)
	require.NoError(t, err)
	require.Equal(t, "r1", st.Revision)
	require.Equal(t, "r2", st.RolledBackFrom)
	require.Contains(t, e.activeSettings(t), "echo guard-r1")
	require.Equal(t, []string{"r2", "r1"}, st.Seen)

	e.serve(t, "r3")
	st, err = e.check(t)
	require.NoError(t, err)
	require.Empty(t, st.RolledBackFrom, "a new revision is not a rollback")
}

// Every refused bundle leaves the last good one active and says why in the state.
func TestRefusedBundlesKeepTheLastGood(t *testing.T) {
	key := bundletest.RSA(t)
	signed := func(t *testing.T, rev string) bundletest.Files {
		return bundletest.Sign(t, bundletest.Settings(t, rev, team(rev)), key, "team")
	}
	cases := []struct {
		name string
		body func(t *testing.T) []byte
		want string
	}{
		{"data changed after signing", func(t *testing.T) []byte {
			f := signed(t, "r2")
			f["hookexec/data.json"] = bytes.Replace(f["hookexec/data.json"], []byte("guard-r2"), []byte("guard-r3"), 1)
			return bundletest.TarGz(t, f)
		}, "digest mismatch"},
		{"a byte of the archive changed", func(t *testing.T) []byte {
			b := bundletest.TarGz(t, signed(t, "r2"))
			b[len(b)/2] ^= 0x40
			return b
		}, "refused"},
		{"a file added after signing", func(t *testing.T) []byte {
			f := signed(t, "r2")
			f["extra/policy.rego"] = []byte("package extra\nallow := true\n")
			return bundletest.TarGz(t, f)
		}, "not included in bundle signature"},
		{"unsigned", func(t *testing.T) []byte {
			return bundletest.TarGz(t, bundletest.Settings(t, "r2", team("r2")))
		}, "missing .signatures.json"},
		{"signed by another key", func(t *testing.T) []byte {
			return bundletest.TarGz(t, bundletest.Sign(t, bundletest.Settings(t, "r2", team("r2")), bundletest.RSA(t), "team"))
		}, "failed to verify JWT signature"},
		{"signed with another algorithm's key", func(t *testing.T) []byte {
			return bundletest.TarGz(t, bundletest.Sign(t, bundletest.Settings(t, "r2", team("r2")), bundletest.HMAC(key.Public), "team"))
		}, "refused"},
		{"no hookexec settings", func(t *testing.T) []byte {
			f := signed(t, "r2")
			delete(f, "hookexec/data.json")
			return bundletest.TarGz(t, bundletest.Sign(t, bundletest.Files{".manifest": f[".manifest"], "other/data.json": []byte(`{"x":1}`)}, key, "team"))
		}, "no hookexec settings"},
		{"settings that do not read", func(t *testing.T) []byte {
			return bundletest.TarGz(t, bundletest.Sign(t, bundletest.Settings(t, "r2", map[string]any{"hooks": []any{1}}), key, "team"))
		}, "hookexec settings"},
		{"not a tar.gz", func(t *testing.T) []byte { return []byte("<html>captive portal</html>") }, "refused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t, key, nil)
			e.serve(t, "r1")
			good, err := e.check(t)
			require.NoError(t, err)
			e.srv.Set(tc.body(t))
			st, err := e.check(t)
			require.ErrorIs(t, err, fetch.ErrRefused)
			require.Contains(t, err.Error(), tc.want)
			require.Equal(t, "r1", st.Revision)
			require.Equal(t, good.SHA256, st.SHA256)
			require.Contains(t, e.activeSettings(t), "echo guard-r1")
			require.Contains(t, st.LastError, tc.want)
			read, err := e.cfg.ReadStatus()
			require.NoError(t, err)
			require.Equal(t, st.LastError, read.LastError, "the refusal is in state.json for hookexec status")

			// The next good bundle clears the error.
			e.serve(t, "r3")
			st, err = e.check(t)
			require.NoError(t, err)
			require.Empty(t, st.LastError)
			require.Equal(t, "r3", st.Revision)
		})
	}
}

func TestServerDownKeepsTheCache(t *testing.T) {
	e := setup(t, bundletest.RSA(t), nil)
	e.serve(t, "r1")
	_, err := e.check(t)
	require.NoError(t, err)
	e.srv.Down(true)
	st, err := e.check(t)
	require.Error(t, err)
	require.Contains(t, st.LastError, "503")
	require.Equal(t, "r1", st.Revision)
	require.Contains(t, e.activeSettings(t), "echo guard-r1")

	e.srv.Close() // nothing listens any more
	st, err = e.check(t)
	require.Error(t, err)
	require.Contains(t, st.LastError, "connect")
	require.True(t, e.cfg.Active())
}

func TestFirstStartWithNothingServed(t *testing.T) {
	e := setup(t, bundletest.RSA(t), nil)
	st, err := e.check(t)
	require.Error(t, err)
	require.Contains(t, st.LastError, "404")
	require.False(t, e.cfg.Active())
	require.Empty(t, st.Revision)
}

// The bundle's modules are unpacked at their paths beside the settings, where a policy
// handler's relative path finds them; old revisions are pruned but the one before stays.
func TestModulesUnpackedAndOldRevisionsPruned(t *testing.T) {
	e := setup(t, bundletest.RSA(t), nil)
	for i, rev := range []string{"r1", "r2", "r3"} {
		f := bundletest.Settings(t, rev, team(rev))
		f["policies/guard.rego"] = []byte("package guard\nrev := \"" + rev + "\"\n")
		e.srv.Set(bundletest.TarGz(t, bundletest.Sign(t, f, e.key, "team")))
		_, err := e.check(t)
		require.NoError(t, err)
		mod, err := os.ReadFile(filepath.Join(e.cfg.Cache(), bundle.Current, "policies", "guard.rego"))
		require.NoError(t, err)
		require.Contains(t, string(mod), rev)
		entries, _ := filepath.Glob(filepath.Join(e.cfg.Cache(), "rev-*"))
		require.Len(t, entries, min(i+1, 2))
	}
	leftovers, _ := filepath.Glob(filepath.Join(e.cfg.Cache(), ".*-*"))
	require.Empty(t, leftovers)
}

// The stamp changes the settings file with every revision, even when only .rego changed,
// so that engines watching the file reload.
func TestSettingsStampedWithRevision(t *testing.T) {
	e := setup(t, bundletest.RSA(t), nil)
	same := team("same")
	var seen []string
	for _, rev := range []string{"r1", "r2"} {
		e.srv.Set(bundletest.TarGz(t, bundletest.Sign(t, bundletest.Settings(t, rev, same), e.key, "team")))
		_, err := e.check(t)
		require.NoError(t, err)
		seen = append(seen, e.activeSettings(t))
	}
	require.NotEqual(t, seen[0], seen[1])
	require.Contains(t, seen[1], `"revision": "r2"`)
}

func TestHeadersAreSent(t *testing.T) {
	e := setup(t, bundletest.RSA(t), map[string]any{"headers": map[string]string{"Authorization": "Bearer t0ken"}})
	want := "Bearer t0ken"
	e.srv.Auth.Store(&want)
	e.serve(t, "r1")
	_, err := e.check(t)
	require.NoError(t, err)
}

func TestScopeMustMatch(t *testing.T) {
	e := setup(t, bundletest.RSA(t), map[string]any{"scope": "write"})
	e.serve(t, "r1") // signed without a scope
	_, err := e.check(t)
	require.ErrorIs(t, err, fetch.ErrRefused)
	require.Contains(t, err.Error(), "scope mismatch")
}

func TestConfigErrors(t *testing.T) {
	cases := map[string]string{
		`{}`:                                 `"url" is required`,
		`{"url":"ftp://x","public_key":"k"}`: "not an http(s) URL",
		`{"url":"https://x"}`:                `"public_key" is required`,
		`{"url":"https://x","public_key":"k","algorithm":"none"}`:      "is not one of",
		`{"url":"https://x","public_key":"k","on_missing":"maybe"}`:    `want "closed" or "open"`,
		`{"url":"https://x","public_key":"k","poll_interval":"10ms"}`:  "below 1s",
		`{"url":"https://x","public_key":"k","poll_interval":"often"}`: "poll_interval",
		`{"url":"https://x","public_key":"k","pol_interval":"1m"}`:     "unknown field",
		`{"url":"https://x","public_key":"k"} trailing`:                "",
	}
	for in, want := range cases {
		_, err := bundle.ParseConfig("/etc/x/bundle.json", []byte(in))
		if want == "" {
			continue
		}
		require.ErrorIs(t, err, bundle.ErrConfig, in)
		require.Contains(t, err.Error(), want, in)
		require.True(t, strings.Contains(err.Error(), "/etc/x/bundle.json"), in)
	}
	c, err := bundle.ParseConfig("/etc/x/bundle.json", []byte(`{"url":"https://x","public_key":"keys/team.pem"}`))
	require.NoError(t, err)
	require.Equal(t, "/etc/x/bundle", c.Cache())
	require.Equal(t, bundle.DefaultPollInterval, c.Interval())
	require.True(t, c.Closed(), "fail closed is the default")
	require.Equal(t, "RS256", c.Alg())
}
