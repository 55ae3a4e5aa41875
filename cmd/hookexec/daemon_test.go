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

// A persistent guard that counts its calls, a PreToolUse rewrite, and a PostToolUse hook that
// reports what it was given as original_tool_input.
const daemonProject = `{
  "hooks": {
    "UserPromptSubmit": [{"hooks": [{"type": "command", "persistent": true,
      "command": "python3 -c 'import json,os,sys\nn=0\nfor line in sys.stdin:\n  n+=1\n  print(json.dumps({\"stdout\": \"call %d pid %d\" % (n, os.getpid())}), flush=True)'"}]}],
    "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"file_path\": \"safe.txt\"}}}'"}]}],
    "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "python3 -c 'import json,sys; p=json.load(sys.stdin); print(json.dumps({\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"original \" + json.dumps(p.get(\"original_tool_input\")) + \" ran \" + json.dumps(p[\"tool_input\"])}}))'"}]}]
  }
}
`

// daemonScenario is an installed project whose hook calls may use a daemon in a runtime
// directory of the test's own, idle after idle.
func daemonScenario(t *testing.T, idle string) *scenario {
	s := newScenario(t)
	s.write("project/.claude/settings.json", daemonProject)
	out := s.run("install", "--agent", "claude")
	require.Equal(t, 0, out.code, out.stderr)
	run := filepath.Join(s.root, "run")
	s.env = append(s.env, "HOOKEXEC_DAEMON=", "HOOKEXEC_RUNTIME_DIR="+run, "HOOKEXEC_DAEMON_IDLE="+idle)
	t.Cleanup(func() { _ = s.runQuiet("daemon", "--ask", "shutdown") })
	return s
}

// runQuiet runs hookexec and ignores how it ended (cleanup).
func (s *scenario) runQuiet(args ...string) error {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(append(os.Environ(), "HOME="+s.home), s.env...)
	return cmd.Run()
}

func (s *scenario) prompt(bin, session string) string {
	s.t.Helper()
	b, _ := json.Marshal(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": s.project, "prompt": "hi"})
	out := s.hookWith(bin, string(b))
	require.Equal(s.t, 0, out.code, out.stderr)
	// Context that is only a hook's plain stdout is answered in plain text, as Claude Code
	// labels it natively (TestClaudeAnswerPlainContext); JSON context as JSON.
	if !strings.HasPrefix(out.stdout, "{") {
		return strings.TrimSuffix(out.stdout, "\n")
	}
	var r struct {
		HookSpecificOutput struct{ AdditionalContext string }
	}
	require.NoError(s.t, json.Unmarshal([]byte(out.stdout), &r), out.stdout)
	return r.HookSpecificOutput.AdditionalContext
}

// hookWith runs bin (the built hookexec or a copy) as Claude Code runs the dispatcher.
func (s *scenario) hookWith(bin, payload string) output {
	s.t.Helper()
	return s.startHook(bin, payload)()
}

// startHook starts bin as Claude Code starts the dispatcher and returns the wait for its
// output.
func (s *scenario) startHook(bin, payload string) func() output {
	s.t.Helper()
	args := []string{"hook", "--agent", "claude"}
	if filepath.Base(bin) == "hookexec-hook" { // the C client: the verb is its name
		args = args[1:]
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = s.project
	cmd.Env = append(append(os.Environ(), "HOME="+s.home, "CLAUDE_PROJECT_DIR="+s.project, "HOOKEXEC_LOG=", "HOOKEXEC_AUDIT_LOG="), s.env...)
	cmd.Stdin = strings.NewReader(payload)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	require.NoError(s.t, cmd.Start())
	return func() output {
		s.t.Helper()
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(s.t, err)
		}
		return output{stdout: o.String(), stderr: e.String(), code: code}
	}
}

type daemonStatus struct {
	Identity  string
	PID       int
	Requests  int
	Engines   int
	HTTPPort  int    `json:"http_port"`
	HTTPError string `json:"http_error"`
	Sessions  int
	// HandoverError: why the last build the daemon tried to execute in its place did not start.
	HandoverError string `json:"handover_error"`
}

// status asks the daemon; ok false when none answers.
func (s *scenario) status() (daemonStatus, bool) {
	cmd := exec.Command(binary, "daemon", "--ask", "status")
	cmd.Env = append(append(os.Environ(), "HOME="+s.home), s.env...)
	out, err := cmd.Output()
	var st daemonStatus
	if err != nil || json.Unmarshal(out, &st) != nil {
		return st, false
	}
	return st, true
}

// eventually polls cond; the bound is a hang guard only.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not after a minute", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDaemonLifecycle(t *testing.T) {
	t.Parallel()
	s := daemonScenario(t, "10m")
	// No daemon yet: the first call runs in-process (a fresh guard: call 1) and starts one.
	_, running := s.status()
	require.False(t, running)
	first := s.prompt(binary, "s1")
	assert.True(t, strings.HasPrefix(first, "call 1 pid "), first)
	eventually(t, "the daemon started on demand", func() bool { _, ok := s.status(); return ok })

	// Through the daemon the persistent guard stays up: the same process counts on.
	c1 := s.prompt(binary, "s1")
	c2 := s.prompt(binary, "s1")
	pid := strings.TrimPrefix(c1, "call 1 ")
	assert.Equal(t, "call 1 "+pid, c1)
	assert.Equal(t, "call 2 "+pid, c2, "the persistent hook is warm across calls")
	st, _ := s.status()
	assert.Equal(t, 2, st.Requests)

	// A change of the managed file reloads the engine.
	managed := filepath.Join(s.project, ".claude", "hookexec-hooks.json")
	text := s.read("project/.claude/hookexec-hooks.json")
	require.NoError(t, os.WriteFile(managed, []byte(strings.Replace(text, `"hooks": {`,
		`"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"added later\"}'"}]}],`, 1)), 0o644))
	stop := s.hookWith(binary, `{"hook_event_name": "Stop", "session_id": "s1", "cwd": "`+s.project+`"}`)
	assert.JSONEq(t, `{"decision": "block", "reason": "added later"}`, stop.stdout, stop.stderr)
	assert.Equal(t, "call 3 "+pid, s.prompt(binary, "s1"), "a reload keeps an unchanged persistent hook")

	// PostToolUse gets the input the model asked for when PreToolUse rewrote it.
	call := func(ev string) output {
		b, _ := json.Marshal(map[string]any{"hook_event_name": ev, "session_id": "s1", "cwd": s.project, "tool_name": "Write",
			"tool_use_id": "toolu_1", "tool_input": map[string]any{"file_path": map[string]string{"PreToolUse": "x.txt", "PostToolUse": "safe.txt"}[ev]},
			"tool_response": map[string]any{}})
		return s.hookWith(binary, string(b))
	}
	pre := call("PreToolUse")
	assert.Contains(t, pre.stdout, `"updatedInput":{"file_path":"safe.txt"}`)
	post := call("PostToolUse")
	assert.Contains(t, post.stdout, `original {\"file_path\": \"x.txt\"} ran {\"file_path\": \"safe.txt\"}`)
	again := call("PostToolUse")
	assert.Contains(t, again.stdout, `original null`, "remembered for one PostToolUse only")

	// Another build (a copy of the binary: another identity) replaces the daemon.
	other := filepath.Join(s.root, "hookexec-other")
	data, err := os.ReadFile(binary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(other, data, 0o755))
	require.NoError(t, os.Chtimes(other, time.Now(), time.Now().Add(-time.Hour)))
	answered := s.prompt(other, "s1")
	assert.True(t, strings.HasPrefix(answered, "call 1 pid "), "answered in-process: %s", answered)
	eventually(t, "a daemon of the new build", func() bool {
		now, ok := s.status()
		return ok && now.PID != st.PID && now.Identity != st.Identity
	})
}

// Sessions whose environments differ only in what no configuration reads (as Claude Code
// gives each session's hooks) share the daemon's engine and its persistent guard; a trust
// mode of their own gets another engine (core/dispatch tests the rest).
func TestDaemonSessionsShareTheGuard(t *testing.T) {
	t.Parallel()
	s := daemonScenario(t, "10m")
	base := s.env
	s.prompt(binary, "s0") // in-process; starts the daemon
	eventually(t, "the daemon started on demand", func() bool { _, ok := s.status(); return ok })
	var pid string
	for i := 1; i <= 5; i++ {
		s.env = append(slices.Clip(base), fmt.Sprintf("CLAUDE_CODE_SESSION_VAR=session-%d", i), fmt.Sprintf("RANDOM_%d=x", i))
		got := s.prompt(binary, fmt.Sprint("s", i))
		if i == 1 {
			pid = strings.TrimPrefix(got, "call 1 ")
		}
		assert.Equal(t, fmt.Sprintf("call %d %s", i, pid), got, "one warm guard for every session")
	}
	st, _ := s.status()
	assert.Equal(t, 1, st.Engines)
	s.env = append(slices.Clip(base), "HOOKEXEC_TRUST=project")
	s.hookWith(binary, `{"hook_event_name": "UserPromptSubmit", "session_id": "t", "cwd": "`+s.project+`", "prompt": "hi"}`)
	st, _ = s.status()
	assert.Equal(t, 2, st.Engines, "another trust mode, another engine")
}

func TestDaemonIdleExit(t *testing.T) {
	t.Parallel()
	s := daemonScenario(t, "500ms")
	cmd := exec.Command(binary, "daemon")
	cmd.Env = append(append(os.Environ(), "HOME="+s.home), s.env...)
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	eventually(t, "the daemon listening", func() bool {
		select {
		case err := <-done:
			done <- err
			return true // exited already: checked below
		default:
		}
		_, err := os.Stat(filepath.Join(s.root, "run", "daemon.sock"))
		return err == nil
	})
	s.prompt(binary, "s1") // a dispatch through it (or in-process if it already left)
	select {
	case err := <-done:
		require.NoError(t, err, "it exits cleanly once idle")
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the idle daemon did not exit")
	}
	_, err := os.Stat(filepath.Join(s.root, "run", "daemon.sock"))
	assert.True(t, os.IsNotExist(err), "its socket is gone")
}

// A daemon that cannot be reached never fails a hook call: a runtime directory open to
// others (the daemon refuses it), a socket nobody listens on.
func TestDaemonUnreachableDispatchesInProcess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, run string)
	}{
		{"runtime dir open to others", func(t *testing.T, run string) { require.NoError(t, os.MkdirAll(run, 0o755)) }},
		{"stale socket file", func(t *testing.T, run string) {
			require.NoError(t, os.MkdirAll(run, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(run, "daemon.sock"), nil, 0o600))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := daemonScenario(t, "10m")
			tc.plant(t, filepath.Join(s.root, "run"))
			for i := 1; i <= 3; i++ {
				got := s.prompt(binary, "s1")
				if tc.name == "runtime dir open to others" {
					assert.True(t, strings.HasPrefix(got, "call 1 pid "), fmt.Sprint("in-process each time: ", got))
				} else {
					assert.Contains(t, got, "pid ", "answered")
				}
			}
			if tc.name == "runtime dir open to others" {
				_, ok := s.status()
				assert.False(t, ok, "no daemon runs in a directory others can enter")
			} else {
				// The first call started a daemon, which may come up only after the last
				// call: wait for it, so that the cleanup's shutdown reaches it.
				eventually(t, "the daemon the client started", func() bool { _, ok := s.status(); return ok })
			}
		})
	}
}

// Per-session state lives in the daemon's engine: through it, the ninth consecutive
// blocked Stop of a session is let through (Claude Code's cap of 8); in-process
// (HOOKEXEC_DAEMON=off, or no daemon reachable) every call starts afresh and the cap is
// never reached, as docs/daemon.md says.
func TestStopCapNeedsTheDaemon(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command",
		"command": "echo '{\"decision\": \"block\", \"reason\": \"keep going\"}'"}]}]}}`)
	out := s.run("install", "--agent", "claude")
	require.Equal(t, 0, out.code, out.stderr)
	stop := `{"hook_event_name": "Stop", "session_id": "s1", "cwd": "` + s.project + `", "stop_hook_active": true}`
	blocks := func() (n int) {
		for i := 0; i < 9; i++ {
			if strings.Contains(s.hookWith(binary, stop).stdout, `"decision":"block"`) {
				n++
			}
		}
		return n
	}
	s.env = append(s.env, "HOOKEXEC_DAEMON=off")
	assert.Equal(t, 9, blocks(), "in-process: each call counts from zero")

	s.env = append(s.env, "HOOKEXEC_DAEMON=", "HOOKEXEC_RUNTIME_DIR="+filepath.Join(s.root, "run"), "HOOKEXEC_DAEMON_IDLE=10m")
	t.Cleanup(func() { _ = s.runQuiet("daemon", "--ask", "shutdown") })
	d := exec.Command(binary, "daemon")
	d.Env = append(append(os.Environ(), "HOME="+s.home), s.env...)
	require.NoError(t, d.Start())
	t.Cleanup(func() { _ = d.Process.Kill(); _ = d.Wait() })
	eventually(t, "the daemon", func() bool { _, ok := s.status(); return ok })
	assert.Equal(t, 8, blocks(), "through the daemon: the ninth is let through")
}
