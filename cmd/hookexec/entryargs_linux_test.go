package main

// Hostile dispatcher entries: --scope and --event values an install never writes (path
// separators, "..", newlines, JSON metacharacters, 120 KiB — an argument cannot be longer
// than 128 KiB on Linux; a 1 MiB event reaches the daemon on its socket, core/dispatch
// TestCheckEvent), and Copilot CLI payloads that name an event other than their entry's
// --event. Through the built C client and the Go dispatcher, with a running daemon and a
// written no-match index, so that a wrong "no match" would show.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copilotGuards denies rm -rf on preToolUse, blocks a prompt saying "forbidden" and
// denies every permission request.
const copilotGuards = `{
  "version": 1,
  "hooks": {
    "preToolUse": [{"type": "command", "matcher": "^(bash)$", "bash": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0", "timeoutSec": 5}],
    "userPromptSubmitted": [{"type": "command", "bash": "grep -q forbidden && echo '{\"decision\": \"block\", \"reason\": \"no forbidden prompts\"}'; exit 0"}],
    "permissionRequest": [{"type": "command", "bash": "echo '{\"behavior\": \"deny\", \"message\": \"asked nobody\"}'"}]
  }
}
`

// copilotReady installs the guards, starts the daemon through the C client and waits for
// the scope's no-match index: a call of "view" on preToolUse is then answered from it.
func copilotReady(t *testing.T) (*scenario, string) {
	s := installedDaemonScenario(t, "copilot", map[string]string{"project/.github/hooks/guard.json": copilotGuards})
	s.killDaemons()
	fast := buildFastClient(t)
	time.Sleep(2100 * time.Millisecond) // install's files settle (nomatch.Settle)
	args := []string{"--agent", "copilot", "--scope", "project", "--event", "preToolUse"}
	first := s.agentHook(binary, args, nil, copilotCall(s.project, "s0", "bash", "rm -rf /"))
	require.Contains(t, first.stdout, `"permissionDecision":"deny"`, first.stderr)
	eventually(t, "the daemon started on demand", func() bool { _, ok := s.status(); return ok })
	require.Contains(t, s.agentHook(fast, args, nil, copilotCall(s.project, "s1", "bash", "rm -rf /")).stdout, `"permissionDecision":"deny"`)
	s.waitIndex()
	before, _ := s.status()
	require.Equal(t, output{}, s.agentHook(fast, args, nil, copilotCall(s.project, "s1", "view", "README.md")))
	after, _ := s.status()
	require.Equal(t, before.Requests, after.Requests, "a call no hook matches is answered from the index")
	return s, fast
}

// killDaemons kills, at the end of the test, the daemons its calls started: the C client's
// fallback starts those of the build beside it, which a shutdown may not reach first.
func (s *scenario) killDaemons() {
	run := filepath.Join(s.root, "run")
	s.t.Cleanup(func() { killWithEnv("HOOKEXEC_RUNTIME_DIR=" + run) })
}

// waitIndex waits for a no-match index in the scenario's runtime directory.
func (s *scenario) waitIndex() {
	eventually(s.t, "the no-match index", func() bool {
		idx, _ := filepath.Glob(filepath.Join(s.root, "run", "nomatch-*"))
		return len(idx) > 0
	})
}

// blocked reports whether out is a refusal the agent blocks on: exit 2, or Copilot's deny
// of a preToolUse call.
func blocked(out output) bool {
	return out.code == 2 || out.code == 0 && strings.Contains(out.stdout, `"permissionDecision":"deny"`)
}

func TestHostileEntryArgs(t *testing.T) {
	t.Parallel()
	s, fast := copilotReady(t)
	escape := filepath.Join(os.TempDir(), "hookexec-escape-"+filepath.Base(s.root))
	big := strings.Repeat("a", 120<<10)
	cases := []struct {
		name, scope, event, why string
	}{
		{"scope climbing out", "../../../../.." + escape, "preToolUse", "--scope"},
		{"scope with a separator", "user/../project", "preToolUse", "--scope"},
		{"scope with a newline", "project\n", "preToolUse", "--scope"},
		{"scope of JSON", `project","scope":"user`, "preToolUse", "--scope"},
		{"scope of 120 KiB", big, "preToolUse", "--scope"},
		{"event climbing out", "project", "../../../../.." + escape, "--event"},
		{"event with a separator", "project", "pre/ToolUse", "--event"},
		{"event with a newline", "project", "preToolUse\nsubject toolName", "--event"},
		{"event of JSON", "project", `preToolUse","event":"sessionStart`, "--event"},
		{"event with a NUL-free control byte", "project", "preToolUse\x01", "--event"},
		{"event of 120 KiB", "project", big, "--event"},
		{"event of 120 KiB of JSON", "project", strings.Repeat(`"\`, 60<<10), "--event"},
		{"event empty", "project", "", "event"},
	}
	// A call no hook matches, so that a client wrongly taking the entry for a valid one
	// answers "no match" (nothing, exit 0).
	call := copilotCall(s.project, "s2", "view", "README.md")
	for _, c := range cases {
		for _, bin := range []string{fast, binary} {
			out := s.agentHook(bin, []string{"--agent", "copilot", "--scope", c.scope, "--event", c.event}, nil, call)
			what := c.name + " through " + filepath.Base(bin)
			assert.True(t, blocked(out), "%s: refused and blocked, not a no-match: %+v", what, out)
			assert.Contains(t, out.stdout+out.stderr, c.why, "%s: the reason names the flag", what)
			assert.Less(t, len(out.stdout)+len(out.stderr), 4096, "%s: the reason quotes a bounded part of the value", what)
		}
	}
	// Nothing was written outside the runtime directory, and in it only the index's own names.
	_, err := os.Lstat(escape)
	assert.True(t, os.IsNotExist(err), "no file at %s", escape)
	names, _ := os.ReadDir(filepath.Join(s.root, "run"))
	for _, n := range names {
		ok := n.Name() == "daemon.sock" || n.Name() == "daemon.lock" || strings.HasPrefix(n.Name(), "nomatch-") && len(n.Name()) == len("nomatch-")+16
		assert.True(t, ok, "an unexpected file in the runtime directory: %s", n.Name())
	}
	// A Copilot entry without --event, whose payload names an event the index lists: not
	// a no-match from the payload's word, but the Go dispatcher's refusal.
	named := `{"hook_event_name":"preToolUse","timestamp":1,"cwd":"` + s.project + `","sessionId":"s3","toolName":"view","toolArgs":{}}`
	for _, bin := range []string{fast, binary} {
		out := s.agentHook(bin, []string{"--agent", "copilot", "--scope", "project"}, nil, named)
		assert.Equal(t, 2, out.code, "%s: a Copilot entry without --event is blocked: %+v", bin, out)
		assert.Contains(t, out.stderr, "--event", bin)
	}
}

// An agent whose payloads name their event takes no --event: the C client must not read the
// no-match index for the event --event names when the payload names none (the Go
// dispatcher refuses such an entry).
func TestEventFlagOnlyForCopilot(t *testing.T) {
	t.Parallel()
	s := installedDaemonScenario(t, "claude", map[string]string{"project/.claude/settings.json": `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm' >&2; exit 2; }; exit 0"}]}]
}}`})
	s.env = append(s.env, "CLAUDE_PROJECT_DIR="+s.project)
	s.killDaemons()
	fast := buildFastClient(t)
	time.Sleep(2100 * time.Millisecond)
	call := `{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"` + s.project + `","tool_name":"Read","tool_input":{"file_path":"x"}}`
	require.Equal(t, output{}, s.agentHook(binary, []string{"--agent", "claude"}, nil, call), "in-process, starting the daemon")
	eventually(t, "the daemon started on demand", func() bool { _, ok := s.status(); return ok })
	require.Equal(t, output{}, s.agentHook(fast, []string{"--agent", "claude"}, nil, call))
	s.waitIndex()
	unnamed := `{"session_id":"s1","cwd":"` + s.project + `","tool_name":"Read","tool_input":{"file_path":"x"}}`
	for _, bin := range []string{fast, binary} {
		out := s.agentHook(bin, []string{"--agent", "claude", "--event", "PreToolUse"}, nil, unnamed)
		assert.Equal(t, 2, out.code, "%s: refused, not a no-match: %+v", bin, out)
		assert.Contains(t, out.stderr, "--event", bin)
	}
}

// A Copilot CLI payload that names an event other than its entry's --event: the entry's
// event is the one Copilot reads the answer as, so the call is refused and answered as a
// block of that event — never the laxer answer of the payload's event (an exit 1 Copilot
// lets pass on permissionRequest, a preToolUse deny it ignores on userPromptSubmitted),
// never a no-match, never the hooks of the payload's event.
func TestCopilotPayloadEventContradictsEntry(t *testing.T) {
	t.Parallel()
	s, fast := copilotReady(t)
	with := func(payload, field string) string {
		return strings.TrimSuffix(payload, "}") + `,"hook_event_name":"` + field + `"}`
	}
	prompt := `{"timestamp":1,"cwd":"` + s.project + `","sessionId":"s4","prompt":"say hi"}`
	permission := `{"timestamp":1,"cwd":"` + s.project + `","sessionId":"s4","hookName":"permissionRequest","toolName":"bash","toolInput":{"command":"ls"},"permissionSuggestions":[]}`
	cases := []struct {
		name, event, payload, want string
	}{
		{"a guarded tool call claiming sessionStart", "preToolUse", with(copilotCall(s.project, "s4", "bash", "rm -rf /"), "sessionStart"), `"permissionDecision":"deny"`},
		{"an unguarded tool claiming sessionStart (no no-match)", "preToolUse", with(copilotCall(s.project, "s4", "view", "x"), "sessionStart"), `"permissionDecision":"deny"`},
		{"a tool call claiming its twin PreToolUse", "preToolUse", with(copilotCall(s.project, "s4", "view", "x"), "PreToolUse"), `"permissionDecision":"deny"`},
		{"a prompt claiming PreToolUse", "userPromptSubmitted", with(prompt, "PreToolUse"), `"decision":"block"`},
		{"a prompt claiming SessionEnd", "userPromptSubmitted", with(prompt, "SessionEnd"), `"decision":"block"`},
		{"a permission request claiming Notification", "permissionRequest", with(permission, "Notification"), `"behavior":"deny"`},
		{"a permission request claiming preToolUse", "permissionRequest", with(permission, "preToolUse"), `"behavior":"deny"`},
	}
	for _, c := range cases {
		var answers []output
		for _, bin := range []string{fast, binary} {
			out := s.agentHook(bin, []string{"--agent", "copilot", "--scope", "project", "--event", c.event}, nil, c.payload)
			assert.Equal(t, 0, out.code, "%s through %s: %+v", c.name, filepath.Base(bin), out)
			assert.Contains(t, out.stdout, c.want, "%s through %s: blocked in the entry's event's words", c.name, filepath.Base(bin))
			assert.Contains(t, out.stdout, "the payload is for", "%s: the reason says why", c.name)
			answers = append(answers, out)
		}
		assert.Equal(t, answers[0], answers[1], "%s: the C client and the Go dispatcher answer alike", c.name)
	}
	// The payload naming the entry's own event is no contradiction: its hooks run.
	same := s.agentHook(fast, []string{"--agent", "copilot", "--scope", "project", "--event", "preToolUse"}, nil,
		with(copilotCall(s.project, "s4", "bash", "rm -rf /"), "preToolUse"))
	assert.Contains(t, same.stdout, `"permissionDecision":"deny","permissionDecisionReason":"hook exited with code 2"`, "%+v", same)
	ok := s.agentHook(fast, []string{"--agent", "copilot", "--scope", "project", "--event", "userPromptSubmitted"}, nil, with(prompt, "userPromptSubmitted"))
	assert.Equal(t, output{}, ok, "a prompt the guard lets pass")
}
