package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const policyModule = `package guard

deny if startswith(input.tool_input.command, "rm -rf")
`

const policySettings = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "policy", "rego": "policy/guard.rego", "query": "data.guard.deny", "reason": "no rm -rf"}
      ]}
    ]
  }
}
`

// TestValidatePolicyErrors: a policy that does not compile is an error at its field's
// file:line, with the Rego module's own file:line, and validate exits 1.
func TestValidatePolicyErrors(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", policySettings)
	module := s.write("project/.claude/policy/guard.rego", "package guard\n\ndeny if {\n  input.tool_input.command ==\n}\n")
	out := s.run("--profile", "claude", "validate")
	assert.Equal(t, 1, out.code, out.stdout+out.stderr)
	assert.Contains(t, out.stdout, ".claude/settings.json:5 hooks.PreToolUse[0].hooks[0].rego (", out.stdout)
	assert.Contains(t, out.stdout, "): policy does not compile: rego: "+module+":5: unexpected } token (rego_parse_error)", out.stdout)
	assert.Contains(t, out.stdout, "1 error")

	s.write("project/.claude/policy/guard.rego", policyModule)
	out = s.run("--profile", "claude", "validate")
	assert.Equal(t, 0, out.code, out.stdout)
	assert.Equal(t, "ok: no problems found\n", out.stdout)
}

// TestInstallDispatchPolicyGuard: a Rego guard installed for Claude Code runs in the built
// command's hook dispatcher, its module found beside the moved hooks.
func TestInstallDispatchPolicyGuard(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", policySettings)
	s.write("project/.claude/policy/guard.rego", policyModule)
	x := s.run("--profile", "claude", "explain", "PreToolUse", "--payload", `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	assert.Equal(t, 0, x.code, x.stderr)
	assert.Contains(t, x.stdout, `policy/guard.rego query data.guard.deny (true: deny "no rm -rf")`)

	tried := s.run("--profile", "claude", "test", "PreToolUse")
	assert.Equal(t, 0, tried.code, "the sample call (ls -la) is not stopped: %s", tried.stdout+tried.stderr)
	assert.Contains(t, tried.stdout, `policy/guard.rego query data.guard.deny (true: deny "no rm -rf")`)

	out := s.run("install", "--agent", "claude")
	require.Equal(t, 0, out.code, out.stderr)
	hook := func(command string) output {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": s.project,
			"tool_name": "Bash", "tool_input": map[string]any{"command": command}})
		return s.runIn(string(b), "hook", "--agent", "claude")
	}
	deny := hook("rm -rf /")
	assert.Equal(t, 0, deny.code, deny.stderr)
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"}}`, deny.stdout)
	assert.Equal(t, output{code: 0}, hook("ls"), "no answer: exit 0 and nothing said")

	// Through the daemon: the same answer, the policy evaluated there.
	s.env = append(s.env, "HOOKEXEC_DAEMON=", "HOOKEXEC_RUNTIME_DIR="+filepath.Join(s.root, "run"), "HOOKEXEC_DAEMON_IDLE=10m")
	t.Cleanup(func() { _ = s.runQuiet("daemon", "--ask", "shutdown") })
	call := func(command string) output {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": s.project,
			"tool_name": "Bash", "tool_input": map[string]any{"command": command}})
		return s.hookWith(binary, string(b))
	}
	assert.Contains(t, call("rm -rf /").stdout, `"permissionDecisionReason":"no rm -rf"`, "in-process, starting the daemon")
	eventually(t, "the daemon started on demand", func() bool { _, ok := s.status(); return ok })
	before, _ := s.status()
	byDaemon := call("rm -rf ~")
	assert.JSONEq(t, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"}}`, byDaemon.stdout, byDaemon.stderr)
	after, _ := s.status()
	assert.Equal(t, before.Requests+1, after.Requests, "answered by the daemon")
}
