package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trustScenario is a cloned repository with a project guard script, and a user-level hook.
func trustScenario(t *testing.T) *scenario {
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "bash .claude/hooks/guard.sh", "name": "guard"}]}
]}}`)
	s.write("project/.claude/hooks/guard.sh", "echo 'guard says no' >&2\nexit 2\n")
	s.write("home/.claude/settings.json", `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo user-ran", "name": "user"}]}
]}}`)
	return s
}

const bashPayload = `{"tool_name":"Bash","tool_input":{"command":"ls"}}`

func TestTrustApproveEditRefuseReapprove(t *testing.T) {
	t.Parallel()
	s := trustScenario(t)
	s.env = append(s.env, "HOOKEXEC_TRUST=project") // the user's own switch: any host, the CLI too

	out := s.run("--profile", "claude", "trust", "list", "--show")
	require.Equal(t, 0, out.code, out.stderr)
	golden(t, "trust_list_new.txt", s.normalise(out.stdout))

	out = s.run("--profile", "claude", "fire", "PreToolUse", "--payload", bashPayload)
	assert.Equal(t, 0, out.code, "not blocked: the guard awaits approval\n%s", out.stdout)
	assert.Contains(t, out.stdout, "guard: not run, awaiting approval (new hook)")
	assert.Contains(t, out.stdout, "user")

	out = s.run("--profile", "claude", "trust", "approve", "guard")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "approved guard  PreToolUse Bash  bash .claude/hooks/guard.sh")
	out = s.run("--profile", "claude", "fire", "PreToolUse", "--payload", bashPayload)
	assert.Equal(t, exitBlocked, out.code, out.stdout)

	s.write("project/.claude/hooks/guard.sh", "echo changed\n")
	out = s.run("--profile", "claude", "fire", "PreToolUse", "--payload", bashPayload)
	assert.Equal(t, 0, out.code, out.stdout)
	assert.Contains(t, out.stdout, "guard: not run, awaiting approval (script .claude/hooks/guard.sh changed)")
	out = s.run("--profile", "claude", "trust", "list")
	require.Equal(t, 0, out.code, out.stderr)
	golden(t, "trust_list_changed.txt", s.normalise(out.stdout))

	out = s.run("--profile", "claude", "trust", "approve", "--all")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "approved guard")
	out = s.run("--profile", "claude", "fire", "PreToolUse", "--payload", bashPayload, "--json")
	require.Equal(t, 0, out.code, out.stderr)
	var res struct {
		Hooks            []struct{ ID, Stdout string }
		AwaitingApproval []any `json:"awaiting_approval"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &res), out.stdout)
	assert.Empty(t, res.AwaitingApproval)
	assert.Len(t, res.Hooks, 2, "the edited guard runs again once re-approved")

	out = s.run("--profile", "claude", "trust", "approve", "--all")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, "Nothing awaits approval.\n", out.stdout)

	out = s.run("--profile", "claude", "trust", "revoke", "guard")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, "revoked guard\n", out.stdout)
	out = s.run("--profile", "claude", "trust", "list", "--json")
	require.Equal(t, 0, out.code, out.stderr)
	var rep struct {
		Mode  string
		Hooks []struct{ ID, Status, Reason string }
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &rep))
	assert.Equal(t, "project", rep.Mode)
	require.Len(t, rep.Hooks, 1)
	assert.Equal(t, "awaiting approval", rep.Hooks[0].Status)
	assert.Equal(t, "new hook", rep.Hooks[0].Reason)
}

func TestTrustStoreFlagAndFailures(t *testing.T) {
	t.Parallel()
	s := trustScenario(t)
	store := filepath.Join(s.root, "elsewhere", "trust.json")
	out := s.run("--profile", "claude", "trust", "approve", "guard", "--store", store)
	require.Equal(t, 0, out.code, out.stderr)
	data, err := os.ReadFile(store)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"command": "bash .claude/hooks/guard.sh"`)
	assert.NoFileExists(t, filepath.Join(s.home, ".config", "hookexec", "trust.json"))

	require.NoError(t, os.WriteFile(store, []byte("{broken"), 0o600))
	out = s.run("--profile", "claude", "trust", "list", "--store", store)
	assert.Equal(t, exitFail, out.code)
	assert.Contains(t, out.stderr, "not valid JSON")
	assert.Contains(t, out.stderr, "no project-level hook runs until it can be read")
	out = s.run("--profile", "claude", "trust", "approve", "guard", "--store", store)
	assert.Equal(t, exitFail, out.code)
	assert.Contains(t, out.stderr, "not valid JSON")
	data, _ = os.ReadFile(store)
	assert.Equal(t, "{broken", string(data))

	out = s.run("--profile", "claude", "trust", "approve", "user")
	assert.Equal(t, exitFail, out.code)
	assert.Contains(t, out.stderr, `no project-level hook with id "user"`)
}

func TestTrustUsage(t *testing.T) {
	t.Parallel()
	s := trustScenario(t)
	for _, args := range [][]string{
		{"trust"},
		{"trust", "bless"},
		{"trust", "list", "x"},
		{"trust", "approve"},
		{"trust", "approve", "guard", "--all"},
		{"trust", "revoke"},
		{"trust", "list", "--all"},
		{"trust", "approve", "guard", "--show"},
	} {
		out := s.run(args...)
		assert.Equal(t, exitUsage, out.code, "%v: %s", args, out.stderr)
		assert.Regexp(t, `^hookexec: trust`, out.stderr, args)
	}
	out := s.run("trust", "--help")
	require.Equal(t, 0, out.code)
	assert.Contains(t, out.stdout, "Usage: hookexec trust [flags] list | approve ID... | approve --all | revoke ID...")
	assert.Contains(t, out.stdout, "hookexec --profile claude trust approve guard")
}

// TestTrustListShowSaysWhatIsPinned: list --show says what an approval pins exactly, what
// it pins whole and why, and what it cannot pin.
func TestTrustListShowSaysWhatIsPinned(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{"hooks": {"PostToolUse": [
  {"matcher": "Edit", "hooks": [{"type": "command", "name": "fmt",
    "command": "cat .claude/hooks/*.sh | sh -s \"$FILE_PATH\"; sh check.sh"}]}
]}}`)
	s.write("project/.claude/hooks/a.sh", "echo a\n")
	s.write("project/.claude/hooks/b.sh", "echo b\n")
	out := s.run("--profile", "claude", "trust", "list", "--show")
	require.Equal(t, 0, out.code, out.stderr)
	golden(t, "trust_list_pinned.txt", s.normalise(out.stdout))

	out = s.run("--profile", "claude", "trust", "list", "--json")
	require.Equal(t, 0, out.code, out.stderr)
	var rep struct {
		Hooks []struct {
			Files []struct {
				Path string
				Tree bool
				Why  string
			}
			Unpinned []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &rep), out.stdout)
	require.Len(t, rep.Hooks, 1)
	require.Len(t, rep.Hooks[0].Files, 2, out.stdout)
	assert.Equal(t, ".claude/hooks/", rep.Hooks[0].Files[0].Path)
	assert.True(t, rep.Hooks[0].Files[0].Tree)
	assert.Contains(t, rep.Hooks[0].Files[0].Why, "pattern")
	assert.Equal(t, "check.sh", rep.Hooks[0].Files[1].Path)
	assert.Len(t, rep.Hooks[0].Unpinned, 1)
}

// TestTrustProjectEditsSayTheUsersHooksStayOn: under trust "project", disable and
// toggle-all write the project's local file, which cannot turn off the user's hooks; the
// CLI says so instead of claiming it did.
func TestTrustProjectEditsSayTheUsersHooksStayOn(t *testing.T) {
	t.Parallel()
	s := trustScenario(t)
	s.env = append(s.env, "HOOKEXEC_TRUST=project")
	out := s.run("--profile", "claude", "disable", "user")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "still on: with trust \"project\"")
	out = s.run("--profile", "claude", "toggle-all", "off")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "1 hook still on")
	out = s.run("--profile", "claude", "fire", "PreToolUse", "--payload", bashPayload)
	assert.Contains(t, out.stdout, "user-ran", "the user's own hook still runs")
}
