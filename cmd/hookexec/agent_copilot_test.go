package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A project's Copilot CLI hooks: an exit-2 guard on bash, a postToolUse hook that replaces
// the result, and a prompt hook Copilot runs itself; a second file without hooks.
const copilotGuard = `{
  "version": 1,
  "hooks": {
    "sessionStart": [{"type": "prompt", "prompt": "read the README first"}],
    "preToolUse": [{"type": "command", "matcher": "^(bash)$", "bash": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0", "timeoutSec": 5}],
    "postToolUse": [{"type": "command", "bash": "echo '{\"modifiedResult\": {\"textResultForLlm\": \"replaced\"}}'"}]
  }
}
`

const copilotOther = "{\"version\": 1, \"comment\": \"no hooks here\"}\n"

// copilotCall is a camelCase payload as Copilot CLI 1.0.102 sends it (no event name).
func copilotCall(cwd, session, tool, command string) string {
	b, _ := json.Marshal(map[string]any{"timestamp": 1764300000000, "cwd": cwd, "sessionId": session,
		"toolName": tool, "toolArgs": map[string]any{"command": command}})
	return string(b)
}

func TestCopilotInstallDispatchUninstall(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.github/hooks/guard.json", copilotGuard)
	s.write("project/.github/hooks/other.json", copilotOther)
	out := s.run("install", "--agent", "copilot")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, ".github/hooks/hookexec.json: installed (2 matcher groups moved to hookexec-copilot-hooks.json; dispatcher for preToolUse, postToolUse; 1 group left with the agent)")
	dispatcher := s.read("project/.github/hooks/hookexec.json")
	assert.Contains(t, dispatcher, "hook --agent copilot --scope project --event preToolUse")
	assert.Contains(t, dispatcher, `"timeoutSec": 10`, "the guard's 5 s and the margin")
	guard := s.read("project/.github/hooks/guard.json")
	assert.NotContains(t, guard, "rm -rf")
	assert.Contains(t, guard, "read the README first", "the prompt hook stays with Copilot")
	assert.Equal(t, copilotOther, s.read("project/.github/hooks/other.json"), "a file without hooks is not touched")
	assert.Equal(t, copilotGuard, s.read("project/.github/hooks/.guard.json.hookexec-backup"))
	again := s.run("install", "--agent", "copilot")
	require.Equal(t, 0, again.code, again.stderr)
	assert.Contains(t, again.stdout, "already installed")
	assert.Equal(t, guard, s.read("project/.github/hooks/guard.json"))

	hook := func(event, payload string) output {
		return s.runIn(payload, "hook", "--agent", "copilot", "--scope", "project", "--event", event)
	}
	deny := hook("preToolUse", copilotCall(s.project, "s1", "bash", "rm -rf /"))
	assert.Equal(t, 0, deny.code, deny.stderr)
	assert.JSONEq(t, `{"permissionDecision": "deny", "permissionDecisionReason": "hook exited with code 2"}`, deny.stdout,
		"exit 2 denies in Copilot's own words")
	assert.Equal(t, output{}, hook("preToolUse", copilotCall(s.project, "s1", "bash", "ls")))
	assert.Equal(t, output{}, hook("preToolUse", copilotCall(s.project, "s1", "view", "rm -rf /")), "the matcher is the guard's")
	post := hook("postToolUse", `{"timestamp": 1, "cwd": "`+s.project+`", "sessionId": "s1", "toolName": "bash", "toolArgs": {"command": "ls"}, "toolResult": {"resultType": "success", "textResultForLlm": "a b"}}`)
	assert.Equal(t, 0, post.code, post.stderr)
	assert.JSONEq(t, `{"modifiedResult": {"textResultForLlm": "replaced"}}`, post.stdout)
	unnamed := s.runIn(copilotCall(s.project, "s1", "bash", "ls"), "hook", "--agent", "copilot")
	assert.Equal(t, 2, unnamed.code, "a payload whose event is not told is blocked")
	assert.Contains(t, unnamed.stderr, "--event")

	un := s.run("uninstall", "--agent", "copilot")
	require.Equal(t, 0, un.code, un.stderr)
	assert.Contains(t, un.stdout, "restored")
	assert.Equal(t, copilotGuard, s.read("project/.github/hooks/guard.json"))
	entries, err := os.ReadDir(filepath.Join(s.project, ".github", "hooks"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"guard.json", "other.json"}, names)
	_, err = os.Stat(filepath.Join(s.project, ".github", "hookexec-copilot-hooks.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// The user's hooks (in $COPILOT_HOME/hooks) and the project's each get their dispatcher
// file; each entry runs its own scope's hooks only, since Copilot runs both files.
func TestCopilotScopesRunTheirOwnHooks(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	copilotHome := filepath.Join(s.root, "copilot-home")
	s.env = append(s.env, "COPILOT_HOME="+copilotHome)
	logFile := filepath.Join(s.root, "ran.log")
	hookFile := func(name string) string {
		return fmt.Sprintf(`{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "echo %s >> %s"}]}}`, name, logFile)
	}
	s.write("copilot-home/hooks/mine.json", hookFile("user"))
	s.write("project/.github/hooks/team.json", hookFile("project"))
	for _, scope := range [][]string{{"--user"}, nil} {
		out := s.run(append([]string{"install", "--agent", "copilot"}, scope...)...)
		require.Equal(t, 0, out.code, out.stderr)
		assert.Contains(t, out.stdout, "installed")
	}
	assert.Contains(t, s.read("copilot-home/hooks/hookexec.json"), "--scope user --event preToolUse")
	for _, scope := range []string{"user", "project"} {
		out := s.runIn(copilotCall(s.project, "s1", "bash", "ls"), "hook", "--agent", "copilot", "--scope", scope, "--event", "preToolUse")
		require.Equal(t, output{}, out)
	}
	assert.Equal(t, "user\nproject\n", s.read("ran.log"), "each hook once, the user's first")
	st := s.run("--json", "status")
	require.Equal(t, 0, st.code, st.stderr)
	var rows []struct {
		Agent, Scope string
		Installed    bool
		Managed      int
	}
	require.NoError(t, json.Unmarshal([]byte(st.stdout), &rows))
	n := 0
	for _, r := range rows {
		if r.Agent == "copilot" {
			n++
			assert.True(t, r.Installed, r.Scope)
			assert.Equal(t, 1, r.Managed, r.Scope)
		}
	}
	assert.Equal(t, 2, n)
}

// An edit after install is kept: a hooks file changed since gets its moved entries back
// behind its own; a changed managed file goes back whole as hookexec-moved.json.
func TestCopilotUninstallMerges(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.github/hooks/guard.json", copilotGuard)
	require.Equal(t, 0, s.run("install", "--agent", "copilot").code)
	edited := strings.Replace(s.read("project/.github/hooks/guard.json"), `"version": 1`, `"version": 1, "note": "mine"`, 1)
	s.write("project/.github/hooks/guard.json", edited)
	un := s.run("uninstall", "--agent", "copilot")
	require.Equal(t, 0, un.code, un.stderr)
	assert.Contains(t, un.stdout, "merged")
	merged := s.read("project/.github/hooks/guard.json")
	assert.Contains(t, merged, `"note": "mine"`)
	assert.Contains(t, merged, "rm -rf", "the guard is back")
	assert.Contains(t, merged, "modifiedResult")

	s2 := newScenario(t)
	s2.write("project/.github/hooks/guard.json", copilotGuard)
	require.Equal(t, 0, s2.run("install", "--agent", "copilot").code)
	managed := s2.read("project/.github/hookexec-copilot-hooks.json")
	s2.write("project/.github/hookexec-copilot-hooks.json", strings.Replace(managed, "no rm -rf here", "not here", 1))
	un2 := s2.run("uninstall", "--agent", "copilot")
	require.Equal(t, 0, un2.code, un2.stderr)
	assert.Contains(t, s2.read("project/.github/hooks/hookexec-moved.json"), "not here")
	assert.NotContains(t, s2.read("project/.github/hooks/guard.json"), "rm -rf", "moved once, not twice")
}

// A hookexec.json that is not hookexec's is never overwritten.
func TestCopilotInstallRefusesAForeignDispatcherFile(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.github/hooks/guard.json", copilotGuard)
	s.write("project/.github/hooks/hookexec.json", `{"version": 1, "hooks": {}}`)
	out := s.run("install", "--agent", "copilot")
	assert.NotEqual(t, 0, out.code)
	assert.Contains(t, out.stderr, "not hookexec's dispatcher file")
	assert.Equal(t, copilotGuard, s.read("project/.github/hooks/guard.json"))
}

// agentHook runs bin (the built hookexec or the C client) as an agent runs its dispatcher
// entry, with the daemon of the scenario's runtime directory.
func (s *scenario) agentHook(bin string, args, env []string, payload string) output {
	s.t.Helper()
	if filepath.Base(bin) != "hookexec-hook" {
		args = append([]string{"hook"}, args...)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = s.project
	cmd.Env = append(append(append(os.Environ(), "HOME="+s.home, "HOOKEXEC_LOG=", "HOOKEXEC_AUDIT_LOG="), s.env...), env...)
	return runCmd(s.t, cmd, payload)
}

// installedDaemonScenario installs the agent's hooks written by write and gives its hook
// calls a daemon in a runtime directory of the test's own.
func installedDaemonScenario(t *testing.T, agent string, files map[string]string) *scenario {
	s := newScenario(t)
	for rel, text := range files {
		s.write(rel, text)
	}
	out := s.run("install", "--agent", agent)
	require.Equal(t, 0, out.code, out.stderr)
	require.Contains(t, out.stdout, "installed")
	s.env = append(s.env, "HOOKEXEC_DAEMON=", "HOOKEXEC_RUNTIME_DIR="+filepath.Join(s.root, "run"), "HOOKEXEC_DAEMON_IDLE=10m")
	t.Cleanup(func() { _ = s.runQuiet("daemon", "--ask", "shutdown") })
	return s
}

// warmAndNoMatch checks, through the real daemon and the C client, what issue 30 asks of
// every agent install supports: sessions of the same project (other session ids, other
// variables no configuration reads) are served by one engine, and a call no hook can match
// is answered from the no-match index without reaching the daemon, while a matching one
// reaches it and is decided there. call(session, matching) is a payload; args the entry's.
func warmAndNoMatch(t *testing.T, s *scenario, args []string, call func(session string, matching bool) string, wantDeny string) {
	fast := buildFastClient(t)
	time.Sleep(2100 * time.Millisecond) // install's files settle (nomatch.Settle)
	first := s.agentHook(binary, args, nil, call("s0", true))
	assert.Contains(t, first.stdout+first.stderr, wantDeny, "in-process, starting the daemon")
	eventually(t, "the daemon started on demand", func() bool { _, ok := s.status(); return ok })
	for i := 1; i <= 3; i++ {
		env := []string{fmt.Sprintf("SESSION_VAR_%d=x", i), fmt.Sprintf("OTHER=session-%d", i)}
		out := s.agentHook(fast, args, env, call(fmt.Sprint("s", i), true))
		assert.Contains(t, out.stdout+out.stderr, wantDeny, "session %d", i)
	}
	st, _ := s.status()
	assert.Equal(t, 1, st.Engines, "one engine serves every session of the project")
	assert.GreaterOrEqual(t, st.Requests, 3)
	idx, err := filepath.Glob(filepath.Join(s.root, "run", "nomatch-*"))
	require.NoError(t, err)
	require.NotEmpty(t, idx, "the daemon wrote the no-match index")
	before, _ := s.status()
	for i := range 3 {
		out := s.agentHook(fast, args, []string{fmt.Sprintf("OTHER=n%d", i)}, call("s9", false))
		assert.Equal(t, output{}, out, "no hook matches")
	}
	after, _ := s.status()
	assert.Equal(t, before.Requests, after.Requests, "answered from the index, not by the daemon")
	assert.Equal(t, output{}, s.agentHook(binary, args, nil, call("s9", false)), "the Go dispatcher answers the same")
	out := s.agentHook(fast, args, nil, call("s10", true))
	assert.Contains(t, out.stdout+out.stderr, wantDeny)
	after2, _ := s.status()
	assert.Equal(t, after.Requests+2, after2.Requests, "the Go dispatcher's call and the matching call reached the daemon")
}

func TestCopilotDaemonWarmAndNoMatch(t *testing.T) {
	t.Parallel()
	s := installedDaemonScenario(t, "copilot", map[string]string{"project/.github/hooks/guard.json": copilotGuard})
	warmAndNoMatch(t, s, []string{"--agent", "copilot", "--scope", "project", "--event", "preToolUse"},
		func(session string, matching bool) string {
			if matching {
				return copilotCall(s.project, session, "bash", "rm -rf /")
			}
			return copilotCall(s.project, session, "view", "README.md")
		}, `"permissionDecision":"deny"`)
	// The index is the scope's: the user scope's entry finds none and asks the daemon.
	idx, _ := filepath.Glob(filepath.Join(s.root, "run", "nomatch-*"))
	data, err := os.ReadFile(idx[0])
	require.NoError(t, err)
	assert.Contains(t, string(data), "agent copilot\nproject "+s.project+"\n")
	assert.Contains(t, string(data), "\nscope project\n")
	assert.Contains(t, string(data), "event preToolUse ")
	assert.True(t, slices.Contains(strings.Split(string(data), "\n"), "subject toolName"), string(data))
}
