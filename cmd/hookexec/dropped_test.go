//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const droppedMsg = "hookexec: the daemon dropped this hook call before answering; its hooks may have run, so they were not run again"

// droppedScenario installs a Bash guard that records each run (its pid, one line) in ran and
// then does what the test says; hook calls may use a daemon in the scenario's runtime dir.
func droppedScenario(t *testing.T, then string) (s *scenario, ran string) {
	s = newScenario(t)
	ran = filepath.Join(s.root, "ran")
	command, _ := json.Marshal("echo $$ >> " + ran + "; " + then)
	s.write("project/.claude/settings.json", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
		"command": `+string(command)+`}]}]}}`)
	out := s.run("install", "--agent", "claude")
	require.Equal(t, 0, out.code, out.stderr)
	s.env = append(s.env, "HOOKEXEC_DAEMON=", "HOOKEXEC_RUNTIME_DIR="+filepath.Join(s.root, "run"), "HOOKEXEC_DAEMON_IDLE=10m")
	t.Cleanup(func() { _ = s.runQuiet("daemon", "--ask", "shutdown") })
	return s, ran
}

// startDaemon starts the daemon of the binary under test in the scenario's runtime dir and
// waits until it answers.
func (s *scenario) startDaemon() *exec.Cmd {
	s.t.Helper()
	d := exec.Command(binary, "daemon")
	d.Env = append(append(os.Environ(), "HOME="+s.home), s.env...)
	require.NoError(s.t, d.Start())
	eventually(s.t, "the daemon", func() bool { _, ok := s.status(); return ok })
	return d
}

func (s *scenario) bashCall() string {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": s.project,
		"tool_name": "Bash", "tool_use_id": "toolu_1", "tool_input": map[string]any{"command": "ls"}})
	return string(b)
}

// runs lists the pids the guard recorded.
func runs(t *testing.T, ran string) []string {
	b, err := os.ReadFile(ran)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Fields(string(b))
}

// A daemon killed while a hook of the call runs: the client (Go or C) does not run the call
// again in-process — the guard ran once — and the agent gets a deny saying why.
func TestDaemonKilledMidCall(t *testing.T) {
	t.Parallel()
	fast := buildFastClient(t)
	for _, bin := range []string{binary, fast} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			t.Parallel()
			s, ran := droppedScenario(t, "exec sleep 300")
			t.Cleanup(func() { // the hook the killed daemon left behind
				for _, pid := range runs(t, ran) {
					if n, err := strconv.Atoi(pid); err == nil {
						_ = syscall.Kill(-n, syscall.SIGKILL)
						_ = syscall.Kill(n, syscall.SIGKILL)
					}
				}
			})
			d := s.startDaemon()
			wait := s.startHook(bin, s.bashCall())
			eventually(t, "the guard running in the daemon", func() bool { return len(runs(t, ran)) > 0 })
			require.NoError(t, d.Process.Kill())
			_ = d.Wait()
			out := wait()
			assert.Equal(t, 0, out.code, out.stderr)
			var ans struct {
				HookSpecificOutput struct{ PermissionDecision, PermissionDecisionReason string }
			}
			require.NoError(t, json.Unmarshal([]byte(out.stdout), &ans), out.stdout)
			assert.Equal(t, "deny", ans.HookSpecificOutput.PermissionDecision)
			assert.Contains(t, ans.HookSpecificOutput.PermissionDecisionReason, droppedMsg)
			assert.Contains(t, out.stderr, droppedMsg)
			assert.Len(t, runs(t, ran), 1, "the guard is not run a second time")
			// The client started a daemon for the next call: let it come up, so that the
			// cleanup's shutdown reaches it.
			eventually(t, "the next daemon", func() bool { _, ok := s.status(); return ok })
		})
	}
}

// What the client does depends on whether the daemon read the request: one that closes the
// connection with the request unread (a listener closing with the connection in its
// backlog, a refused peer) never ran it, and the call runs in-process; one that read it
// and closed without an answer may have, and the call is answered as dropped.
func TestDaemonConnectionDropped(t *testing.T) {
	t.Parallel()
	fast := buildFastClient(t)
	for _, tc := range []struct {
		name  string
		serve func(c net.Conn)
		ran   int
	}{
		{"closed unread", func(c net.Conn) {
			_, _ = c.Read(make([]byte, 1)) // the request arrived; the rest stays unread
		}, 1},
		{"read then closed", func(c net.Conn) {
			_, _ = bufio.NewReader(c).ReadBytes('\n')
		}, 0},
	} {
		for _, bin := range []string{binary, fast} {
			t.Run(tc.name+"/"+filepath.Base(bin), func(t *testing.T) {
				t.Parallel()
				s, ran := droppedScenario(t, `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "ran in-process"}}'`)
				run := filepath.Join(s.root, "run")
				require.NoError(t, os.MkdirAll(run, 0o700))
				ln, err := net.Listen("unix", filepath.Join(run, "daemon.sock"))
				require.NoError(t, err)
				defer ln.Close()
				go func() {
					c, err := ln.Accept()
					_ = ln.Close() // one connection: the fallback's own try finds nobody
					if err != nil {
						return
					}
					tc.serve(c)
					_ = c.Close()
				}()
				out := s.hookWith(bin, s.bashCall())
				// Either way the client starts a daemon for the next call; let it come up,
				// so that the cleanup's shutdown reaches it.
				eventually(t, "the next daemon", func() bool { _, ok := s.status(); return ok })
				assert.Equal(t, 0, out.code, out.stderr)
				assert.Len(t, runs(t, ran), tc.ran)
				if tc.ran == 1 {
					assert.Contains(t, out.stdout, "ran in-process")
					assert.NotContains(t, out.stderr, droppedMsg)
				} else {
					assert.Contains(t, out.stdout, `"permissionDecision":"deny"`)
					assert.Contains(t, out.stderr, droppedMsg)
				}
			})
		}
	}
}

// A daemon that reads a call and never answers (hung) does not hold the call until the
// agent kills the dispatcher — which several agents take as no decision, letting the tool
// run: the client (Go or C) stops waiting before the agent's timeout (--timeout-ms, the
// agent's entry timeout) and answers as for a dropped call, without running the hooks itself.
func TestDaemonHungAnswersBeforeTheAgentsTimeout(t *testing.T) {
	t.Parallel()
	fast := buildFastClient(t)
	for _, bin := range []string{binary, fast} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			t.Parallel()
			s, ran := droppedScenario(t, `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "ran in-process"}}'`)
			run := filepath.Join(s.root, "run")
			require.NoError(t, os.MkdirAll(run, 0o700))
			ln, err := net.Listen("unix", filepath.Join(run, "daemon.sock"))
			require.NoError(t, err)
			ln.(*net.UnixListener).SetUnlinkOnClose(false) // the path may be the next daemon's by then
			read := make(chan string, 1)
			hold := make(chan struct{})
			defer close(hold)
			go func() {
				c, err := ln.Accept()
				_ = ln.Close()
				if err != nil {
					read <- ""
					return
				}
				line, _ := bufio.NewReader(c).ReadBytes('\n')
				read <- string(line)
				<-hold // never answers while the client waits
				_ = c.Close()
			}()
			cmd := exec.Command(bin, "--agent", "claude", "--timeout-ms", "3000")
			if bin == binary {
				cmd.Args = []string{bin, "hook", "--agent", "claude", "--timeout-ms", "3000"}
			}
			cmd.Dir = s.project
			cmd.Env = append(append(os.Environ(), "HOME="+s.home, "CLAUDE_PROJECT_DIR="+s.project, "HOOKEXEC_LOG="), s.env...)
			cmd.Stdin = strings.NewReader(s.bashCall())
			var o, e strings.Builder
			cmd.Stdout, cmd.Stderr = &o, &e
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(2 * time.Minute): // a hang guard: the old clients wait here forever
				_ = cmd.Process.Kill()
				<-done
				t.Fatal("the client still waits for the hung daemon")
			}
			require.NoError(t, err, e.String())
			assert.Contains(t, <-read, `"method":"dispatch"`, "the daemon got the call")
			assert.Contains(t, o.String(), `"permissionDecision":"deny"`)
			assert.Contains(t, e.String(), droppedMsg)
			assert.Empty(t, runs(t, ran), "not run again by the client")
			// The client starts a daemon for the next call; let it come up, so that the
			// cleanup's shutdown reaches it.
			eventually(t, "the next daemon", func() bool { _, ok := s.status(); return ok })
		})
	}
}

// A request the daemon cannot read (a payload nested within the dispatcher's 10000 levels,
// so that the daemon's message, three levels deeper, is past encoding/json's bound) gets an
// error answer with id null. Both clients take it as the answer to their one request —
// nothing ran — and run the call in-process: the guard runs once and denies, in well under
// the agent's timeout. The old clients skipped the answer as a notification and waited
// until the agent killed them (no --timeout-ms), which Claude Code reads as no decision.
func TestDaemonUnreadableRequestRunsInProcess(t *testing.T) {
	t.Parallel()
	fast := buildFastClient(t)
	for _, bin := range []string{binary, fast} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			t.Parallel()
			s, ran := droppedScenario(t, "echo no >&2; exit 2")
			d := s.startDaemon()
			t.Cleanup(func() { _ = d.Process.Kill(); _ = d.Wait() })
			depth := 9997 // tool_input's; the payload is one deeper, the daemon's message four
			payload := `{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"` + s.project + `","tool_name":"Bash","tool_use_id":"t1","tool_input":` +
				strings.Repeat(`{"a":`, depth-1) + `{}` + strings.Repeat(`}`, depth-1) + `}`
			before, _ := s.status()
			wait := s.startHook(bin, payload)
			result := make(chan output, 1)
			go func() { result <- wait() }()
			var out output
			select {
			case out = <-result:
			case <-time.After(30 * time.Second): // the agent's timeout here is 600 s: far past this
				t.Fatal("the client still waits after the daemon's id-null error")
			}
			assert.Equal(t, 0, out.code, out.stderr)
			assert.Contains(t, out.stdout, `"permissionDecision":"deny"`)
			assert.Contains(t, out.stdout, `"permissionDecisionReason":"no"`, "the guard's own deny")
			assert.Len(t, runs(t, ran), 1, "run once, in-process")
			after, _ := s.status()
			assert.Equal(t, before.Requests, after.Requests, "the daemon ran nothing")
		})
	}
}
