package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAdaptKilledTakesTheCommandTreeWithIt: an agent that ends "hookexec adapt" with
// SIGKILL ends the command too — the shell it runs and the sleep that shell started —
// not after the command's own 600 s timeout.
func TestAdaptKilledTakesTheCommandTreeWithIt(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	shPid, sleepPid := filepath.Join(s.project, "sh.pid"), filepath.Join(s.project, "sleep.pid")
	command := "echo $$ > " + shPid + "; sleep 300 & echo $! > " + sleepPid + "; wait"
	cmd := exec.Command(binary, "--project", s.project, "--home", s.home, "adapt", "--from", "claude", "--to", "gemini", command)
	cmd.Dir = s.project
	cmd.Env = append(os.Environ(), "HOME="+s.home, "HOOKEXEC_LOG=", "HOOKEXEC_DAEMON=off")
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"session_id":"s","cwd":"` + s.project + `"}`)
	stderr, err := os.Create(filepath.Join(s.root, "adapt.stderr"))
	require.NoError(t, err)
	defer stderr.Close()
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })

	pids := make([]int, 0, 2)
	for _, f := range []string{shPid, sleepPid} {
		var raw []byte
		for i := 0; i < 1200; i++ { // up to 120 s for the command to start: a hang guard
			if b, err := os.ReadFile(f); err == nil && bytes.HasSuffix(b, []byte("\n")) {
				raw = b
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if len(raw) == 0 {
			b, _ := os.ReadFile(stderr.Name())
			t.Fatalf("the command did not start: %s", b)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	require.True(t, alive(pids[0]) && alive(pids[1]), "the command runs while adapt does")

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	<-done
	for i := 0; i < 1200 && (alive(pids[0]) || alive(pids[1])); i++ { // a hang guard: the sleep lasts 300 s
		time.Sleep(100 * time.Millisecond)
	}
	require.False(t, alive(pids[0]), "the shell outlived adapt's SIGKILL")
	require.False(t, alive(pids[1]), "the sleep outlived adapt's SIGKILL")
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
