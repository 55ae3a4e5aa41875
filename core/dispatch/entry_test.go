package dispatch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/native"
)

// A dispatcher entry's --event is checked before anything uses it (the daemon's dispatch
// method gets it from any client of this user, the C client from argv): an identifier of
// at most EventMax bytes, for an agent whose payloads do not name their event only. The
// error quotes a bounded part of it. A 1 MiB event (more than one argv string can carry:
// it reaches the daemon on its socket) is refused like any other.
func TestCheckEvent(t *testing.T) {
	t.Parallel()
	copilot, err := native.Lookup("copilot")
	require.NoError(t, err)
	claude, err := native.Lookup("claude")
	require.NoError(t, err)
	for _, ok := range []string{"", "preToolUse", "PreToolUse", "agentStop", "a", "x_1", strings.Repeat("a", EventMax)} {
		assert.NoError(t, CheckEvent(copilot, ok), "%q", ok)
	}
	for _, bad := range []string{"../../etc/passwd", "pre/ToolUse", "preToolUse\n", "preToolUse\x00", `a","b":"c`, "1event", "_x",
		"pré", " preToolUse", strings.Repeat("a", EventMax+1), strings.Repeat("a", 1<<20), strings.Repeat(`"\`, 1<<19)} {
		err := CheckEvent(copilot, bad)
		require.Error(t, err, "%.40q", bad)
		assert.Less(t, len(err.Error()), 400, "the message quotes a bounded part")
		assert.Contains(t, err.Error(), "--event")
		// Dispatch refuses it before reading the payload, and the refusal blocks.
		req := Request{Agent: "copilot", Scope: "project", Event: bad, Project: t.TempDir(), Home: t.TempDir(),
			Payload: []byte(`{"timestamp":1,"sessionId":"s","toolName":"view","toolArgs":{}}`)}
		_, err = Once(req, nil)
		require.Error(t, err)
		r := Refuse(req, err)
		assert.Equal(t, 2, r.ExitCode, "the event cannot be told: exit 2")
		assert.Less(t, len(r.Stderr), 600)
	}
	assert.Error(t, CheckEvent(claude, "PreToolUse"), "Claude Code's payloads name their event")
	assert.NoError(t, CheckEvent(claude, ""))
}

// A Copilot CLI call refused because its payload names another event than its entry's is
// answered as a block of the entry's event, which is the one Copilot reads the answer as:
// never the payload's event's laxer answer.
func TestRefuseTakesTheEntrysEvent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ entry, claimed, want string }{
		{"preToolUse", "sessionStart", `"permissionDecision":"deny"`},
		{"userPromptSubmitted", "SessionEnd", `"decision":"block"`},
		{"userPromptSubmitted", "PreToolUse", `"decision":"block"`},
		{"permissionRequest", "Notification", `"behavior":"deny"`},
	} {
		req := Request{Agent: "copilot", Event: c.entry, Payload: []byte(`{"hook_event_name":"` + c.claimed + `","sessionId":"s"}`)}
		_, err := readSpelled(mustAgent(t, "copilot"), c.entry, req.Payload)
		require.Error(t, err, "the payload contradicts the entry")
		r := Refuse(req, err)
		assert.Equal(t, 0, r.ExitCode, "%s claiming %s", c.entry, c.claimed)
		assert.Contains(t, r.Stdout, c.want, "%s claiming %s", c.entry, c.claimed)
	}
}

func mustAgent(t *testing.T, name string) *native.Agent {
	ag, err := native.Lookup(name)
	require.NoError(t, err)
	return ag
}

// A dispatcher entry's --scope is checked before anything uses it: exactly user or project,
// and only for an agent that runs every scope's entry (native.Agent.Scoped); elsewhere a
// scope would make the call run fewer hooks than the agent's one entry must. Refused, the
// call blocks.
func TestScopeOnlyForScopedAgents(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	pre := []byte(`{"hook_event_name":"PreToolUse","session_id":"s","cwd":"` + project + `","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	for _, c := range []struct {
		agent, scope, want string
	}{
		{"claude", "user", "runs one"},
		{"codex", "project", "runs one"},
		{"factory", "users", "unknown scope"},
		{"factory", "Project", "unknown scope"},
	} {
		req := Request{Agent: c.agent, Scope: c.scope, Project: project, Home: home, Payload: pre}
		_, err := Once(req, nil)
		require.Error(t, err, "%s --scope %s", c.agent, c.scope)
		assert.Contains(t, err.Error(), c.want)
		r := Refuse(req, err)
		assert.True(t, r.ExitCode == 2 || strings.Contains(string(r.Stdout), `"permissionDecision":"deny"`), "refused, the call blocks: %d %s", r.ExitCode, r.Stdout)
	}
	for _, agent := range []string{"factory", "cline", "copilot"} {
		assert.True(t, mustAgent(t, agent).Scoped, agent)
	}
	_, err := Once(Request{Agent: "factory", Scope: "project", Project: project, Home: home, Payload: pre}, nil)
	assert.NoError(t, err, "a Scoped agent's entry of a scope runs")
}
