//go:build unix

package adapt

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/vocab"
)

// Stop (the agent's timeout ending adapt) kills the command and ends the run.
func TestStopKillsTheCommand(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	stop := make(chan struct{})
	type out struct {
		err error
	}
	done := make(chan out, 1)
	go func() {
		_, err := Run(Request{From: vocab.Claude, To: vocab.Gemini, Command: "echo $$ > " + pidFile + "; exec sleep 300",
			Payload: []byte(`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`),
			Project: dir, Home: dir, Stop: stop})
		done <- out{err}
	}()
	for i := 0; i < 600; i++ { // up to 60 s for the command to start: a hang guard
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	raw, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	require.NoError(t, err)
	close(stop)
	select {
	case o := <-done:
		require.ErrorIs(t, o.err, ErrStopped)
	case <-time.After(120 * time.Second): // a hang guard: the sleep lasts 300 s
		t.Fatal("Run did not return after Stop")
	}
	require.Error(t, syscall.Kill(pid, 0), "the command was killed")
}
