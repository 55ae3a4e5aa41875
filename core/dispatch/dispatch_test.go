package dispatch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func setup(t *testing.T, hooks string) (project, home string) {
	root := t.TempDir()
	project, home = filepath.Join(root, "p"), filepath.Join(root, "h")
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.MkdirAll(home, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "hookexec-hooks.json"), []byte(hooks), 0o644))
	return project, home
}

func payloadOf(v map[string]any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// Concurrent calls, a reload between them and idle engines closed, under the race detector.
func TestDispatcherConcurrentReloadIdle(t *testing.T) {
	t.Parallel()
	project, home := setup(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"one\"}'"}]}]}}`)
	d := New()
	defer d.Close()
	var n atomic.Int64 // a session each: Stop blocks are capped per session
	req := func() Request {
		return Request{Agent: "claude", Project: project, Home: home, Env: []string{"A=1"},
			Payload: payloadOf(map[string]any{"hook_event_name": "Stop", "session_id": fmt.Sprint("s", n.Add(1))})}
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := d.Dispatch(req())
			assert.NoError(t, err)
			assert.JSONEq(t, `{"decision": "block", "reason": "one"}`, r.Stdout)
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, d.Engines(), "one engine per agent, project, home and the variables it read")
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "hookexec-hooks.json"),
		[]byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"two\"}'"}]}]}}`), 0o644))
	r, err := d.Dispatch(req())
	require.NoError(t, err)
	assert.JSONEq(t, `{"decision": "block", "reason": "two"}`, r.Stdout, "the changed file is reloaded")
	other := req()
	other.Env = []string{"A=1", "HOOKEXEC_TRUST=project"} // a variable the engine reads
	_, err = d.Dispatch(other)
	require.NoError(t, err)
	assert.Equal(t, 2, d.Engines())
	d.CloseIdle(time.Hour)
	assert.Equal(t, 2, d.Engines())
	d.CloseIdle(0)
	assert.Equal(t, 0, d.Engines())
}

func TestOriginalToolInput(t *testing.T) {
	t.Parallel()
	project, home := setup(t, `{"hooks": {
		"PreToolUse": [{"hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"updatedInput\": {\"command\": \"ls -la\"}}}'"}]}],
		"PostToolUse": [{"hooks": [{"type": "command", "command": "cat >&2; exit 2"}]}]}}`)
	d := New()
	defer d.Close()
	call := func(ev, id, command string) Reply {
		r, err := d.Dispatch(Request{Agent: "claude", Project: project, Home: home, Payload: payloadOf(map[string]any{
			"hook_event_name": ev, "session_id": "s", "tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": command}})})
		require.NoError(t, err)
		return r
	}
	call("PreToolUse", "t1", "ls")
	var got struct {
		Original json.RawMessage `json:"original_tool_input"`
	}
	post := call("PostToolUse", "t1", "ls -la")
	var out struct{ Reason string }
	require.NoError(t, json.Unmarshal([]byte(post.Stdout), &out))
	require.NoError(t, json.Unmarshal([]byte(out.Reason), &got), out.Reason)
	assert.JSONEq(t, `{"command": "ls"}`, string(got.Original))
	// Another tool call, and SessionEnd forgets the session.
	call("PreToolUse", "t2", "pwd")
	_, err := d.Dispatch(Request{Agent: "claude", Project: project, Home: home, Payload: payloadOf(map[string]any{"hook_event_name": "SessionEnd", "session_id": "s"})})
	require.NoError(t, err)
	post = call("PostToolUse", "t2", "ls -la")
	assert.NotContains(t, post.Stdout, OriginalInputField)
	// Once keeps nothing between calls.
	_, err = Once(Request{Agent: "claude", Project: project, Home: home, Payload: payloadOf(map[string]any{"hook_event_name": "PreToolUse",
		"session_id": "s", "tool_name": "Bash", "tool_use_id": "t3", "tool_input": map[string]any{"command": "x"}})}, nil)
	require.NoError(t, err)
	post = call("PostToolUse", "t3", "ls -la")
	assert.NotContains(t, post.Stdout, OriginalInputField, fmt.Sprint("a one-shot dispatcher remembers nothing"))
}

// A hook's decision is read from its whole output, as the agent would read it: a JSON deny
// with a reason far past the engine's default 32 KiB cap still denies.
func TestLongAnswerStillDecides(t *testing.T) {
	t.Parallel()
	project, home := setup(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command",
		"command": "python3 -c 'import json; print(json.dumps({\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"x\" * 100000}}))'"}]}]}}`)
	r, err := Once(Request{Agent: "claude", Project: project, Home: home, Payload: payloadOf(map[string]any{
		"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}})}, nil)
	require.NoError(t, err)
	var out struct {
		HookSpecificOutput struct {
			PermissionDecision       string
			PermissionDecisionReason string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout[:min(len(r.Stdout), 200)])
	assert.Equal(t, "deny", out.HookSpecificOutput.PermissionDecision)
	assert.Len(t, out.HookSpecificOutput.PermissionDecisionReason, 100000)
}

// A call the daemon dropped is answered without running its hooks: blocked in each agent's
// own words where the event can block, a non-blocking error where it cannot.
func TestLost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		agent, event string
		code         int
		stdout       string // JSON, or "" for none
	}{
		{"claude", "PreToolUse", 0, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "MSG; blocked to be safe"}}`},
		{"claude", "PermissionRequest", 0, `{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "MSG; blocked to be safe"}}}`},
		{"claude", "Stop", 0, `{"decision": "block", "reason": "MSG; blocked to be safe"}`},
		{"claude", "PreCompact", 2, ""},
		{"claude", "PostToolUse", 1, ""},
		{"claude", "Notification", 1, ""},
		{"codex", "PreToolUse", 0, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "MSG; blocked to be safe"}}`},
		{"qwen", "PreToolUse", 0, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "MSG; blocked to be safe"}}`},
		{"gemini", "BeforeTool", 0, `{"decision": "deny", "reason": "MSG; blocked to be safe"}`},
		{"gemini", "AfterTool", 1, ""},
		{"nobody", "PreToolUse", 2, ""}, // no agent to answer as: the block all of them read
	} {
		t.Run(tc.agent+"/"+tc.event, func(t *testing.T) {
			r := Lost(Request{Agent: tc.agent, Payload: payloadOf(map[string]any{"hook_event_name": tc.event, "tool_name": "Bash"})})
			msg := "hookexec: the daemon dropped this hook call before answering; its hooks may have run, so they were not run again"
			assert.Equal(t, tc.code, r.ExitCode)
			if tc.stdout == "" {
				assert.Empty(t, r.Stdout)
			} else {
				assert.JSONEq(t, strings.ReplaceAll(tc.stdout, "MSG", msg), r.Stdout)
			}
			assert.Contains(t, r.Stderr, msg, "the reason is on stderr too")
		})
	}
}

// An agent's trace context changes with every tool call: it goes to the call's fire, and the
// calls share one engine (warm persistent hooks, per-session memory).
func TestTraceContextIsPerCall(t *testing.T) {
	t.Parallel()
	project, home := setup(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo \"$TRACEPARENT\" >&2; exit 2"}]}]}}`)
	d := New()
	defer d.Close()
	for _, tp := range []string{"00-aa-01", "00-bb-01"} {
		r, err := d.Dispatch(Request{Agent: "claude", Project: project, Home: home, Env: []string{"A=1", "TRACEPARENT=" + tp, "TRACESTATE=x=1"},
			Payload: payloadOf(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}})})
		require.NoError(t, err)
		assert.Contains(t, r.Stdout+r.Stderr, tp, "the hook sees its own call's TRACEPARENT")
	}
	assert.Equal(t, 1, d.Engines(), "one engine for both calls")
}
