package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Through the real daemon and the installed C client: once the installed files have
// settled, the index is written (here by the first call, run in-process), and a call no hook
// matches is answered by the client without the daemon (its request count does not move),
// with the answer the Go dispatcher gives; a matching call still reaches the daemon, and an
// edit that makes the call match sends it to the daemon again.
func TestNoMatchSkipsTheDaemon(t *testing.T) {
	t.Parallel()
	fast := buildFastClient(t)
	s := daemonScenario(t, "10m")
	call := func(tool string) string {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": s.project, "tool_name": tool,
			"tool_use_id": "toolu_1", "tool_input": map[string]any{"file_path": "x.txt"}})
		return string(b)
	}
	time.Sleep(2100 * time.Millisecond) // install's files settle (nomatch.Settle)
	first := s.hookWith(fast, call("Read"))
	assert.Equal(t, output{}, first, "no hook matches Read")
	eventually(t, "the daemon started by the fallback", func() bool { _, ok := s.status(); return ok })
	idx, err := filepath.Glob(filepath.Join(s.root, "run", "nomatch-*"))
	require.NoError(t, err)
	require.Len(t, idx, 1, "the in-process dispatch wrote the index")
	before, _ := s.status()
	for range 3 {
		assert.Equal(t, output{}, s.hookWith(fast, call("Read")))
	}
	after, _ := s.status()
	assert.Equal(t, before.Requests, after.Requests, "answered from the index, not by the daemon")
	goAnswer := s.hookWith(binary, call("Read")) // the Go dispatcher (through the daemon)
	assert.Equal(t, output{}, goAnswer)
	w := s.hookWith(fast, call("Write"))
	assert.Contains(t, w.stdout, `"updatedInput":{"file_path":"safe.txt"}`)
	after2, _ := s.status()
	assert.Equal(t, after.Requests+2, after2.Requests, "the Go dispatcher's call and the matching call reached the daemon")

	// The managed file now guards Read too: the index no longer holds.
	managed := filepath.Join(s.project, ".claude", "hookexec-hooks.json")
	data, err := os.ReadFile(managed)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(managed, []byte(strings.Replace(string(data), `"matcher": "Write"`, `"matcher": "Write|Read"`, 1)), 0o644))
	r := s.hookWith(fast, call("Read"))
	assert.Contains(t, r.stdout, `"updatedInput":{"file_path":"safe.txt"}`, "the edited guard ran for Read")
}
