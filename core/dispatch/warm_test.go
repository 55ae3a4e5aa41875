package dispatch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// warmHooks: a one-shot hook that blocks with its session variable and a persistent one
// that answers with its pid, the variable it started with and its count of requests.
const warmHooks = `{"hooks": {"PreToolUse": [{"hooks": [
	{"type": "command", "command": "echo \"one-shot $SESSION_VAR $RANDOM_VAR\" >&2; exit 2"},
	{"type": "command", "persistent": true, "command": "n=0; while IFS= read -r line; do n=$((n+1)); printf '{\"stdout\":\"{\\\\\"systemMessage\\\\\":\\\\\"pid=%s start=%s n=%s\\\\\"}\"}\\n' $$ \"$SESSION_VAR\" $n; done"}]}]}}`

func warmCall(t *testing.T, d *Dispatcher, project, home string, env ...string) Reply {
	t.Helper()
	r, err := d.Dispatch(Request{Agent: "claude", Project: project, Home: home, Env: env,
		Payload: payloadOf(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}})})
	require.NoError(t, err)
	return r
}

// persistentPid is the pid the persistent hook gave in its systemMessage.
func persistentPid(t *testing.T, r Reply) string {
	t.Helper()
	i := strings.Index(r.Stdout+r.Stderr, "pid=")
	require.GreaterOrEqual(t, i, 0, "the persistent hook answered: %s %s", r.Stdout, r.Stderr)
	return strings.Fields((r.Stdout + r.Stderr)[i:])[0]
}

// Sessions whose environments differ only in variables no configuration reads share one
// engine and one persistent process, and each one-shot hook sees its own session's values.
func TestSessionsShareOneEngine(t *testing.T) {
	t.Parallel()
	project, home := setup(t, warmHooks)
	d := New()
	defer d.Close()
	pids := map[string]bool{}
	for i := range 20 {
		env := []string{"PATH=" + os.Getenv("PATH"), fmt.Sprintf("SESSION_VAR=s%d", i), fmt.Sprintf("RANDOM_VAR=%x", i*7919)}
		if i%2 == 1 {
			env = append(env, fmt.Sprintf("ONLY_ODD_%d=1", i)) // a variable only some sessions have
		}
		r := warmCall(t, d, project, home, env...)
		assert.Contains(t, r.Stderr+r.Stdout, fmt.Sprintf("one-shot s%d %x", i, i*7919), "the one-shot hook sees its own session's variables")
		pids[persistentPid(t, r)] = true
	}
	assert.Equal(t, 1, d.Engines(), "one engine for every session")
	assert.Len(t, pids, 1, "one persistent process for every session")
}

// A one-shot hook of a shared engine does not see a variable of the session that opened
// it which its own session lacks.
func TestSessionsDoNotLeakVariables(t *testing.T) {
	t.Parallel()
	project, home := setup(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo \"[${FIRST_ONLY-unset}]\" >&2; exit 2"}]}]}}`)
	d := New()
	defer d.Close()
	r := warmCall(t, d, project, home, "FIRST_ONLY=secret")
	assert.Contains(t, r.Stdout+r.Stderr, "[secret]")
	r = warmCall(t, d, project, home, "OTHER=1")
	assert.Contains(t, r.Stdout+r.Stderr, "[unset]")
	assert.Equal(t, 1, d.Engines())
}

// What can change an engine's behaviour keeps engines apart: a variable the engine read
// while loading (the trust mode, telemetry, the audit log, Claude Code's SessionEnd
// timeout), the home, the project. (The dispatcher names the agent's files itself, so
// Gemini CLI's system settings path is not read there: core/engine's
// TestEnvReadNamesTheSystemSettingsPath.)
func TestWhatTheEngineReadsSeparates(t *testing.T) {
	t.Parallel()
	project, home := setup(t, warmHooks)
	other, otherHome := setup(t, warmHooks)
	for _, tc := range []struct {
		name          string
		agent         string
		project, home string
		a, b          []string
	}{
		{"trust mode", "claude", project, home, []string{"X=1"}, []string{"X=1", "HOOKEXEC_TRUST=project"}},
		{"telemetry", "claude", project, home, nil, []string{"HOOKEXEC_TELEMETRY=0"}},
		{"gemini trust mode", "gemini", project, home, nil, []string{"HOOKEXEC_TRUST=project"}},
		{"audit log", "claude", project, home, nil, []string{"HOOKEXEC_AUDIT_LOG=" + filepath.Join(t.TempDir(), "audit.log")}},
		{"session end timeout", "claude", project, home, nil, []string{"CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=5000"}},
		{"home", "claude", project, otherHome, nil, nil},
		{"project", "claude", other, home, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := New()
			defer d.Close()
			ev := "PreToolUse"
			if tc.agent == "gemini" {
				ev = "BeforeTool"
			}
			call := func(project, home string, env []string) {
				_, err := d.Dispatch(Request{Agent: tc.agent, Project: project, Home: home, Env: env,
					Payload: payloadOf(map[string]any{"hook_event_name": ev, "session_id": "s", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}})})
				require.NoError(t, err)
			}
			call(project, home, tc.a)
			call(tc.project, tc.home, tc.b)
			assert.Equal(t, 2, d.Engines(), "a separate engine")
			call(tc.project, tc.home, append(tc.b, "SESSION_VAR=again"))
			assert.Equal(t, 2, d.Engines(), "the second engine is shared in turn")
		})
	}
}

// The engine reports what it read: the trust mode and PATH at least.
func TestEngineReportsWhatItRead(t *testing.T) {
	t.Parallel()
	project, home := setup(t, warmHooks)
	d := New()
	defer d.Close()
	warmCall(t, d, project, home, "SESSION_VAR=x")
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, g := range d.engines {
		for _, e := range g {
			b, _ := json.Marshal(e.read)
			assert.Contains(t, e.read, "HOOKEXEC_TRUST", string(b))
			assert.Contains(t, e.read, "PATH", string(b))
			assert.NotContains(t, e.read, "SESSION_VAR", string(b))
		}
	}
}

// A persistent hook declared "persistent": "session" keeps its engine, and its process, to
// callers of one environment; a value other than true, false or "session" disables it.
func TestPersistentPerSession(t *testing.T) {
	t.Parallel()
	project, home := setup(t, strings.Replace(warmHooks, `"persistent": true`, `"persistent": "session"`, 1))
	d := New()
	defer d.Close()
	pids := map[string]bool{}
	for _, v := range []string{"a", "b", "a", "c"} {
		pids[persistentPid(t, warmCall(t, d, project, home, "PATH="+os.Getenv("PATH"), "SESSION_VAR="+v))] = true
	}
	assert.Len(t, pids, 3, "a process per environment")
	assert.Equal(t, 3, d.Engines())

	project, home = setup(t, strings.Replace(warmHooks, `"persistent": true`, `"persistent": "yes"`, 1))
	r := warmCall(t, d, project, home, "SESSION_VAR=a")
	assert.NotContains(t, r.Stdout+r.Stderr, "pid=", "the hook with a bad persistent is disabled")
}
