package main

// stopAgent against real process trees: the built hookexec runs as the http transport's
// SessionStart entry (HOOKEXEC_DAEMON=off makes its check fail, so it stops the session)
// under stand-ins for Claude Code and what may sit between — testdata/fakeagent copied as
// "claude" (a renamed binary, so /proc/PID/exe says claude) or "fish", a shell script
// named claude, a shell and timeout as wrappers, a subreaper that adopts an orphaned hook.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	fakeAgentOnce sync.Once
	fakeAgentBin  string
	fakeAgentErr  error
)

// fakeAgent builds testdata/fakeagent once and copies it into a new directory as name.
func fakeAgent(t *testing.T, name string) string {
	t.Helper()
	fakeAgentOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hookexec-fakeagent-")
		if err != nil {
			fakeAgentErr = err
			return
		}
		fakeAgentBin = filepath.Join(dir, "fakeagent")
		out, err := exec.Command("go", "build", "-o", fakeAgentBin, "./testdata/fakeagent").CombinedOutput()
		if err != nil {
			fakeAgentErr = fmt.Errorf("building testdata/fakeagent: %v\n%s", err, out)
		}
	})
	require.NoError(t, fakeAgentErr)
	b, err := os.ReadFile(fakeAgentBin)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, b, 0o755))
	return path
}

// stopEnv is a hook's environment as Claude Code gives it (CLAUDE_PROJECT_DIR), with the
// transport's check bound to fail and nothing of the user's daemon in reach.
func stopEnv(t *testing.T) []string {
	dir := t.TempDir()
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "HOOKEXEC_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"HOOKEXEC_HTTP_DIR=" + filepath.Join(dir, "http"), "HOOKEXEC_DAEMON=off", "CLAUDE_PROJECT_DIR=" + dir}
}

var hookHTTP = []string{"hook", "--agent", "claude", "--transport", "http"}

const sessionStart = `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":"/"}`

// killedBy is the signal that ended a process, or 0.
func killedBy(st *os.ProcessState) syscall.Signal {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

func TestStopAgentProcessTrees(t *testing.T) {
	script := filepath.Join(t.TempDir(), "claude")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n\"$@\"\nexit $?\n"), 0o755))
	tests := []struct {
		name  string
		chain func(t *testing.T) []string // what runs hookexec, outermost first
		unset bool                        // no CLAUDE_PROJECT_DIR: run by hand
		kill  bool                        // the outermost is killed
		out   string                      // in what the outermost prints (hookexec's answer or the reason)
	}{
		{"claude runs the hook on a socketpair, as Claude Code 2.1.330", func(t *testing.T) []string { return []string{fakeAgent(t, "claude")} },
			false, true, "was killed with SIGKILL"},
		{"claude runs the hook on pipes", func(t *testing.T) []string { return []string{fakeAgent(t, "claude"), "-pipes"} },
			false, true, "was killed with SIGKILL"},
		{"not Claude Code: fish", func(t *testing.T) []string { return []string{fakeAgent(t, "fish")} },
			false, false, "BUT CLAUDE CODE WAS NOT STOPPED: no process above this hook is Claude Code"},
		{"a shell script named claude is a shell", func(t *testing.T) []string { return []string{script} },
			false, false, "BUT CLAUDE CODE WAS NOT STOPPED: no process above this hook is Claude Code"},
		{"claude above, but another process reads the answer", func(t *testing.T) []string {
			return []string{fakeAgent(t, "claude"), fakeAgent(t, "fish")}
		}, false, false, "is Claude Code but does not hold the other end of this hook's stdout"},
		{"run by hand", func(t *testing.T) []string { return []string{fakeAgent(t, "claude")} },
			true, false, `"continue":false`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			argv := append(tc.chain(t), binary)
			argv = append(argv, hookHTTP...)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = stopEnv(t)
			if tc.unset {
				cmd.Env = cmd.Env[:len(cmd.Env)-1] // CLAUDE_PROJECT_DIR
			}
			cmd.Stdin = strings.NewReader(sessionStart)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			if tc.kill {
				require.Equal(t, syscall.SIGKILL, killedBy(cmd.ProcessState), "the agent was not killed:\n%s", out.String())
				// The reason, written to the agent's stderr through /proc after the kill.
				require.Contains(t, out.String(), "hookexec: the http transport cannot be used, so this session is stopped")
				require.Contains(t, out.String(), fmt.Sprintf("pid %d, was killed with SIGKILL", cmd.Process.Pid))
			} else {
				require.Zero(t, killedBy(cmd.ProcessState), "%s was signalled:\n%s", argv[0], out.String())
				require.Equal(t, 0, cmd.ProcessState.ExitCode(), out.String())
				require.NotContains(t, out.String(), "killed with SIGKILL")
			}
			require.Contains(t, out.String(), tc.out)
		})
	}
}

// Wrappers between Claude Code and the hook (a shell that does not exec it, timeout): the
// walk passes them, kills Claude Code, and leaves them running.
func TestStopAgentThroughWrappers(t *testing.T) {
	claude := fakeAgent(t, "claude")
	done := filepath.Join(t.TempDir(), "wrapper-done")
	cmd := exec.Command(claude, "/bin/sh", "-c", `timeout 60 "$@"; echo "wrapper went on: $?" > `+done, "sh", binary)
	cmd.Args = append(cmd.Args, hookHTTP...)
	cmd.Env = stopEnv(t)
	cmd.Stdin = strings.NewReader(sessionStart)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	require.Equal(t, syscall.SIGKILL, killedBy(cmd.ProcessState), "Claude Code was not killed:\n%s", out.String())
	require.Contains(t, out.String(), fmt.Sprintf("pid %d, was killed with SIGKILL", cmd.Process.Pid))
	// The shell outlives Claude Code and timeout returns to it: neither was signalled.
	require.Eventually(t, func() bool { _, err := os.Stat(done); return err == nil }, 20*time.Second, 20*time.Millisecond,
		"the wrapping shell did not go on after Claude Code was killed")
}

// Claude Code ends while its hook runs: the hook is adopted by a subreaper — here one that
// is itself a "claude" holding the hook's stdout, so that only the check of the parent
// recorded at start keeps it from being killed.
func TestStopAgentOrphaned(t *testing.T) {
	dir := t.TempDir()
	decoyPid, parentPid := filepath.Join(dir, "decoy.pid"), filepath.Join(dir, "parent.pid")
	stdin, feed, err := os.Pipe()
	require.NoError(t, err)
	defer feed.Close()
	outFile, err := os.Create(filepath.Join(dir, "out"))
	require.NoError(t, err)
	defer outFile.Close()
	read := func() string { b, _ := os.ReadFile(outFile.Name()); return string(b) }
	// The decoy gives the hook's stdout a socketpair (through the parent, which passes it
	// on) and holds its other end, as the Claude Code that ran it would.
	decoy := exec.Command(fakeAgent(t, "claude"), "-subreaper", "-pidfile", decoyPid,
		fakeAgent(t, "claude"), "-inherit", "-pidfile", parentPid, binary)
	decoy.Args = append(decoy.Args, hookHTTP...)
	decoy.Env = stopEnv(t)
	decoy.Stdin, decoy.Stdout, decoy.Stderr = stdin, outFile, outFile
	require.NoError(t, decoy.Start())
	stdin.Close()
	waited := make(chan error, 1)
	go func() { waited <- decoy.Wait() }()
	defer func() { _ = decoy.Process.Kill(); <-waited }()

	pidIn := func(path string) int {
		var pid int
		require.Eventually(t, func() bool {
			b, err := os.ReadFile(path)
			pid, _ = strconv.Atoi(string(b))
			return err == nil && pid > 0
		}, 20*time.Second, 10*time.Millisecond)
		return pid
	}
	parent := pidIn(parentPid)
	hook := 0
	require.Eventually(t, func() bool { hook = childRunning(parent, binary); return hook > 0 }, 20*time.Second, 10*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // past the hook's start, where it records its parent; it waits for stdin
	require.NoError(t, syscall.Kill(parent, syscall.SIGKILL))
	require.Eventually(t, func() bool { p, err := readProc(hook); return err == nil && p.ppid == pidIn(decoyPid) },
		20*time.Second, 10*time.Millisecond, "the hook was not adopted by the subreaper")

	_, err = io.WriteString(feed, sessionStart)
	require.NoError(t, err)
	feed.Close()
	for end := time.Now().Add(20 * time.Second); !strings.Contains(read(), "reaped "+strconv.Itoa(hook)+" "); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-waited:
			waited <- err
			t.Fatalf("the subreaper that adopted the hook was ended (%v):\n%s", err, read())
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("the hook did not end:\n%s", read())
		}
	}
	require.Contains(t, read(), "BUT CLAUDE CODE WAS NOT STOPPED: this hook was orphaned: its parent, pid "+strconv.Itoa(parent)+", has ended")
}

// childRunning finds parent's child running exe.
func childRunning(parent int, exe string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := readProc(pid); err == nil && p.ppid == parent && p.exe == exe {
			return pid
		}
	}
	return 0
}

func TestIsClaudeCode(t *testing.T) {
	tests := []struct {
		exe  string
		args []string
		want bool
	}{
		{"/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe", nil, true},
		{"/home/u/.cache/x/node_modules/@anthropic-ai/claude-code-linux-x64/claude", nil, true},
		{"/home/u/.local/share/claude/versions/2.1.330", nil, true},
		{"/usr/bin/node", []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js", "-p"}, true},
		{"/usr/bin/node", []string{"node", "--no-warnings", "/home/u/.npm-global/bin/claude"}, true},
		{"/usr/bin/node", []string{"node", "server.js"}, false},
		{"/usr/bin/bash", []string{"bash", "/home/u/bin/claude"}, false}, // a script named claude is bash
		{"/usr/bin/fish", []string{"fish"}, false},
		{"/usr/lib/systemd/systemd", []string{"/usr/lib/systemd/systemd", "--user"}, false},
		{"/opt/claude-desktop/claude-desktop", nil, false},
		{"", []string{"claude"}, false}, // the executable unreadable: not told, not Claude Code
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, isClaudeCode(proc{exe: tc.exe, args: tc.args}), "%s %v", tc.exe, tc.args)
	}
}
