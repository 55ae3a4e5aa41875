package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/bundle"
	"github.com/hookexec/hookexec/core/bundle/bundletest"
)

// bundleScenario is a scenario whose home configures a policy bundle served on 127.0.0.1.
type bundleScenario struct {
	*scenario
	srv *bundletest.Server
	key bundletest.Key
}

func newBundleScenario(t *testing.T, extra map[string]any) *bundleScenario {
	s := &bundleScenario{scenario: newScenario(t), srv: bundletest.Serve(t), key: bundletest.RSA(t)}
	s.write("home/.config/hookexec/team.pem", s.key.Public)
	c := map[string]any{"url": s.srv.BundleURL(), "public_key": "team.pem", "poll_interval": "1s"}
	for k, v := range extra {
		c[k] = v
	}
	data, _ := json.Marshal(c)
	s.write("home/.config/hookexec/bundle.json", string(data))
	return s
}

// publish serves a bundle whose PreToolUse guard blocks Bash with reason.
func (s *bundleScenario) publish(rev, reason string) {
	settings := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "command", "name": "team-guard", "command": "echo '" + reason + "' >&2; exit 2"}}}}}}
	s.srv.Set(bundletest.TarGz(s.t, bundletest.Sign(s.t, bundletest.Settings(s.t, rev, settings), s.key, bundle.DefaultKeyID)))
}

type bundleReport struct {
	Configured  bool
	Active      bool
	URL         string
	OnMissing   string `json:"on_missing"`
	DaemonPolls bool   `json:"daemon_polls"`
	State       struct {
		Revision       string
		LastError      string `json:"last_error"`
		RolledBackFrom string `json:"rolled_back_from"`
		FetchedAt      string `json:"fetched_at"`
		CheckedAt      string `json:"checked_at"`
	}
}

func (s *bundleScenario) report() bundleReport {
	s.t.Helper()
	out := s.run("status", "--bundle", "--json")
	require.Equal(s.t, 0, out.code, out.stderr)
	var r bundleReport
	require.NoError(s.t, json.Unmarshal([]byte(out.stdout), &r), out.stdout)
	return r
}

const rmPayload = `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`

// Without the daemon: the CLI's engine reads the cache, status --fetch fills it.
func TestBundleStatusFetchAndFire(t *testing.T) {
	t.Parallel()
	s := newBundleScenario(t, nil)
	s.write("project/.config/agent/settings.json", `{"disableAllHooks": true, "hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)

	r := s.report()
	assert.True(t, r.Configured)
	assert.False(t, r.Active)
	assert.Equal(t, "closed", r.OnMissing)

	// First start, no cache, fail closed: blocked with the reason.
	out := s.run("fire", "PreToolUse", "--payload", rmPayload)
	require.Equal(t, 2, out.code, out.stdout+out.stderr)
	assert.Contains(t, out.stdout, "blocked until the policy bundle from "+s.srv.BundleURL()+" is fetched")

	// Nothing served yet: the check fails and says so.
	out = s.run("status", "--fetch")
	require.Equal(t, exitFail, out.code)
	assert.Contains(t, out.stderr, "404")
	assert.Contains(t, out.stdout, "last error    hookexec: bundle fetch: "+s.srv.BundleURL()+" answered 404 Not Found")

	s.publish("r1", "team says no (r1)")
	out = s.run("status", "--fetch")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "revision      r1 (active; sha256 ")
	assert.Contains(t, out.stdout, "last error    none")
	r = s.report()
	assert.True(t, r.Active)
	assert.Equal(t, "r1", r.State.Revision)
	assert.NotEmpty(t, r.State.FetchedAt)

	// The project's disableAllHooks does not reach the bundle's guard.
	out = s.run("fire", "PreToolUse", "--payload", rmPayload)
	require.Equal(t, 2, out.code, out.stdout+out.stderr)
	assert.Contains(t, out.stdout, "team says no (r1)")

	// Plain status has the one line.
	out = s.run("status")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "policy bundle: revision r1 from "+s.srv.BundleURL())

	// A tampered bundle is refused: r1 stays and status says why.
	s.srv.Set(tampered(t, s))
	out = s.run("status", "--fetch")
	require.Equal(t, exitFail, out.code)
	assert.Contains(t, out.stdout, "revision      r1 (active")
	assert.Contains(t, out.stdout, "digest mismatch")
	out = s.run("fire", "PreToolUse", "--payload", rmPayload)
	assert.Contains(t, out.stdout, "team says no (r1)")

	// A rollback is applied and reported.
	s.publish("r2", "team says no (r2)")
	require.Equal(t, 0, s.run("status", "--fetch").code)
	s.publish("r1", "team says no (r1)")
	out = s.run("status", "--fetch")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "rolled back   from revision r2")
}

// tampered is a bundle signed by the scenario's key whose guard was changed afterwards.
func tampered(t *testing.T, s *bundleScenario) []byte {
	settings := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "command", "command": "exit 0"}}}}}}
	f := bundletest.Sign(t, bundletest.Settings(t, "r9", settings), s.key, bundle.DefaultKeyID)
	f["hookexec/data.json"] = []byte(strings.Replace(string(f["hookexec/data.json"]), "exit 0", "exit 1", 1))
	return bundletest.TarGz(t, f)
}

func TestBundleOpenWithoutCache(t *testing.T) {
	t.Parallel()
	s := newBundleScenario(t, map[string]any{"on_missing": "open"})
	out := s.run("fire", "PreToolUse", "--payload", rmPayload)
	require.Equal(t, 0, out.code, out.stdout+out.stderr)
	out = s.run("status", "--bundle")
	assert.Contains(t, out.stdout, "none fetched yet: hooks run without it (on_missing open)")
}

// Through the daemon: the first call (no daemon yet, no cache) fails closed; the daemon
// fetches on its first dispatch, polls, and its engines reload when the bundle changes;
// with the server down the cached bundle keeps guarding.
func TestBundleThroughTheDaemon(t *testing.T) {
	t.Parallel()
	s := &bundleScenario{scenario: daemonScenario(t, "10m"), srv: bundletest.Serve(t), key: bundletest.EC(t)}
	c, _ := json.Marshal(map[string]any{"url": s.srv.BundleURL(), "public_key": s.key.Public, "algorithm": "ES256", "poll_interval": "1s"})
	s.write("home/.config/hookexec/bundle.json", string(c))
	s.publish("r1", "team says no (r1)")
	s.srv.Down(true)

	pre := func() string {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": s.project,
			"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf /"}})
		out := s.hookWith(binary, string(b))
		return out.stdout + out.stderr
	}
	first := pre()
	assert.Contains(t, first, "blocked until the policy bundle", "no daemon, no cache, server down: the in-process engine fails closed")
	eventually(t, "the daemon started on demand", func() bool { _, ok := s.status(); return ok })
	s.srv.Down(false)
	eventually(t, "the daemon fetched r1 and its engine blocks with it", func() bool {
		return strings.Contains(pre(), "team says no (r1)")
	})
	r := s.report()
	assert.True(t, r.DaemonPolls)
	assert.Equal(t, "r1", r.State.Revision)

	s.publish("r2", "team says no (r2)")
	eventually(t, "the daemon polled r2 and reloaded", func() bool { return strings.Contains(pre(), "team says no (r2)") })

	s.srv.Down(true)
	eventually(t, "a poll found the server down", func() bool { return strings.Contains(s.report().State.LastError, "503") })
	assert.Contains(t, pre(), "team says no (r2)", "the cached bundle guards while the server is down")
	assert.Equal(t, "r2", s.report().State.Revision)

	// The cache is what a restarted daemon, or no daemon at all, loads.
	require.NoError(t, s.runQuiet("daemon", "--ask", "shutdown"))
	s.env = append(s.env, "HOOKEXEC_DAEMON=off")
	assert.Contains(t, pre(), "team says no (r2)")
	_, err := os.Stat(filepath.Join(s.home, ".config/hookexec/bundle/current/settings.json"))
	require.NoError(t, err)
}

// A hook call in-process for a home that never fetched its bundle fetches it first.
func TestBundleFirstHookCallFetches(t *testing.T) {
	t.Parallel()
	s := newBundleScenario(t, nil)
	s.env = append(s.env, "HOOKEXEC_DAEMON=off")
	s.publish("r1", "team says no (r1)")
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": s.project,
		"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf /"}})
	out := s.hookWith(binary, string(b))
	assert.Contains(t, out.stdout+out.stderr, "team says no (r1)")
	assert.Equal(t, "r1", s.report().State.Revision)
	before := s.srv.Requests.Load()
	out = s.hookWith(binary, string(b))
	assert.Contains(t, out.stdout+out.stderr, "team says no (r1)")
	assert.Equal(t, before, s.srv.Requests.Load(), "with a bundle cached, a hook call does not ask the server")
}
