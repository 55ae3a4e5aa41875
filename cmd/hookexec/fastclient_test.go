package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	hxversion "github.com/hookexec/hookexec/core/version"
)

// buildFastClient compiles capi/hook/hookexec-hook.c beside the hookexec binary under test
// (its fallback runs the hookexec beside it).
func buildFastClient(t *testing.T) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skip("no C compiler: the fast client is not built")
	}
	dir := t.TempDir()
	data, err := os.ReadFile(binary)
	require.NoError(t, err)
	info, err := os.Stat(binary)
	require.NoError(t, err)
	goBin := filepath.Join(dir, "hookexec")
	require.NoError(t, os.WriteFile(goBin, data, 0o755))
	require.NoError(t, os.Chtimes(goBin, info.ModTime(), info.ModTime())) // the same identity as the daemon's binary
	fast := filepath.Join(dir, "hookexec-hook")
	// As the Makefile builds it: static where the C library allows, else dynamic.
	args := []string{"-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", `-DHOOKEXEC_VERSION="` + hxversion.Version + `"`,
		"-o", fast, "../../capi/hook/hookexec-hook.c"}
	if exec.Command(cc, append([]string{"-static"}, args...)...).Run() == nil {
		return fast
	}
	out, err := exec.Command(cc, args...).CombinedOutput()
	require.NoError(t, err, string(out))
	return fast
}

// The C fast path gives the daemon's answer when a daemon of its build runs, and otherwise
// falls back to the hookexec binary beside it with the same payload: same answers always.
func TestFastClient(t *testing.T) {
	t.Parallel()
	fast := buildFastClient(t)
	s := daemonScenario(t, "10m")
	goBin := filepath.Join(filepath.Dir(fast), "hookexec")
	// No daemon: falls back (in-process: a fresh guard), which starts a daemon of the Go
	// binary beside it.
	first := s.prompt(fast, "s1")
	assert.True(t, strings.HasPrefix(first, "call 1 pid "), first)
	eventually(t, "the daemon started by the fallback", func() bool { _, ok := s.status(); return ok })
	before, _ := s.status()
	// The Go binary cannot run now: whatever answers comes from the C client and the daemon.
	require.NoError(t, os.Chmod(goBin, 0o644))
	c1, c2 := s.prompt(fast, "s1"), s.prompt(fast, "s1")
	require.NoError(t, os.Chmod(goBin, 0o755))
	pid := strings.TrimPrefix(c1, "call 1 ")
	assert.Equal(t, "call 2 "+pid, c2, "through the daemon: the persistent guard is warm")
	after, _ := s.status()
	assert.Equal(t, before.Requests+2, after.Requests, "both calls went to the daemon")
	assert.Equal(t, "call 3 "+pid, s.prompt(goBin, "s1"), "the Go dispatcher reaches the same daemon")

	// JSON strings with escapes, Unicode and newlines survive both directions.
	payload, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": s.project, "tool_name": "Write",
		"tool_use_id": "toolu_9", "tool_input": map[string]any{"file_path": "x \"y\"\n\u00e9\u2713\U0001F600.txt", "content": "a\\b"}})
	require.NoError(t, os.Chmod(goBin, 0o644))
	viaFast := s.hookWith(fast, string(payload))
	require.NoError(t, os.Chmod(goBin, 0o755))
	viaGo := s.hookWith(goBin, string(payload))
	assert.Equal(t, viaGo, viaFast)
	assert.Contains(t, viaFast.stdout, `"updatedInput":{"file_path":"safe.txt"}`)

	// HOOKEXEC_DAEMON=off: the fallback runs it in-process.
	s.env = append(s.env, "HOOKEXEC_DAEMON=off")
	off := s.prompt(fast, "s1")
	assert.True(t, strings.HasPrefix(off, "call 1 pid "), off)
	// A payload larger than a pipe's buffer reaches the in-process fallback whole.
	big, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": s.project, "tool_name": "Write",
		"tool_use_id": "toolu_10", "tool_input": map[string]any{"file_path": "big.txt", "content": strings.Repeat("x", 300<<10)}})
	assert.Equal(t, s.hookWith(goBin, string(big)), s.hookWith(fast, string(big)))
	assert.Contains(t, s.hookWith(fast, string(big)).stdout, `"updatedInput":{"file_path":"safe.txt"}`)

	// The install registers the fast client when it sits beside the binary.
	s2 := newScenario(t)
	s2.write("project/.claude/settings.json", daemonProject)
	cmd := exec.Command(goBin, "--project", s2.project, "--home", s2.home, "install", "--agent", "claude")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, s2.read("project/.claude/settings.json"), fast+" --agent claude")
}
