package dispatch

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/payload"
)

// deepPayload is a PreToolUse call whose tool_input nests depth levels (the payload one more).
func deepPayload(depth int, extra string) []byte {
	return []byte(`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"mcp__x__y","tool_use_id":"t1",` + extra +
		`"tool_input":{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}}`)
}

// A tool_input nested past fastjson's 300 levels (any MCP tool with a free-form argument
// lets the model send one) reaches the hooks: a deny-all guard denies, having run once, and
// receives the payload whole.
func TestDeepPayloadRunsHooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	command, _ := json.Marshal("cat > " + ran + "; echo no >&2; exit 2")
	project, home := setup(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": `+string(command)+`}]}]}}`)
	for _, depth := range []int{299, 301, 2000, payload.MaxDepth - 1} {
		data := deepPayload(depth, "")
		r, err := Once(Request{Agent: "claude", Project: project, Home: home, Payload: data}, nil)
		require.NoError(t, err, "depth %d", depth)
		assert.Contains(t, r.Stdout, `"permissionDecision":"deny"`, "depth %d: %+v", depth, r)
		got, err := os.ReadFile(ran)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal(got, &v), "depth %d: the hook got JSON", depth)
		assert.Contains(t, string(got), strings.Repeat("[", depth-1), "depth %d: the hook got tool_input whole", depth)
		require.NoError(t, os.Remove(ran))
	}
}

// A call whose hooks cannot run (a payload nested past payload.MaxDepth, truncated, not an
// object, without an event) is refused in the
// agent's own blocking words where the event can block, and with exit 2 where the event
// cannot be told: never the exit 1 the agents take as "go ahead".
func TestRefuse(t *testing.T) {
	t.Parallel()
	project, home := setup(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 2"}]}]}}`)
	full := string(deepPayload(3, ""))
	for _, tc := range []struct {
		name, project, home string
		data                []byte
		code                int
		stdout              string
	}{
		{"too deep", project, home, deepPayload(payload.MaxDepth+1, ""), 0, "deny"},
		{"truncated", project, home, []byte(full[:len(full)-3]), 0, "deny"},
		{"truncated before the event", project, home, []byte(`{"session_id":"s","hook_e`), 2, ""},
		{"not an object", project, home, []byte(`["PreToolUse"]`), 2, ""},
		{"no event", project, home, []byte(`{"tool_name":"Bash"}`), 2, ""},
		{"empty", project, home, nil, 2, ""},
		{"Stop truncated", project, home, []byte(`{"hook_event_name":"Stop","x":`), 0, `"decision":"block"`},
		{"Notification truncated", project, home, []byte(`{"hook_event_name":"Notification","x":`), 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Agent: "claude", Project: tc.project, Home: tc.home, Payload: tc.data}
			_, err := Once(req, nil)
			require.Error(t, err)
			r := Refuse(req, err)
			assert.Equal(t, tc.code, r.ExitCode, "%+v", r)
			assert.Contains(t, r.Stdout, tc.stdout)
			assert.Contains(t, r.Stderr, "hookexec: the hooks of this call could not run: ")
			if tc.stdout == "" {
				assert.Empty(t, r.Stdout)
			}
			// A dropped call with such a payload (the daemon read it, then died) is answered
			// the same way: it used to exit 1 for any payload it could not parse.
			l := Lost(req)
			assert.Equal(t, tc.code, l.ExitCode, "%+v", l)
			assert.Contains(t, l.Stdout, tc.stdout)
			assert.Contains(t, l.Stderr, LostMessage)
		})
	}
	assert.True(t, errors.Is(func() error { _, err := payload.Parse(deepPayload(payload.MaxDepth+1, "")); return err }(), payload.ErrTooDeep))
}
