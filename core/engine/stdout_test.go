package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// longDeny is a shell command printing a PreToolUse deny whose reason is n bytes long.
func longDeny(n int) string {
	return fmt.Sprintf(`printf '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"'; head -c %d /dev/zero | tr '\0' r; printf '"}}'`, n)
}

func preHook(h map[string]any) string {
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Bash", "hooks": []any{h}}}}})
	return string(b)
}

// A decision is never lost to the output cap: a deny longer than the cap (32 KiB by default)
// is read whole, from a command, a persistent hook and an http hook alike, while the result
// shows only the cap's worth of stdout and says it was cut.
func TestDecisionLongerThanTheOutputCapIsRead(t *testing.T) {
	const n = 65000
	reason := strings.Repeat("r", n)
	body := `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"` + reason + `"}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	dir := t.TempDir()
	persistent := filepath.Join(dir, "persistent.sh")
	require.NoError(t, os.WriteFile(persistent, []byte(fmt.Sprintf(`while IFS= read -r line; do
  printf '{"stdout":"{\\"hookSpecificOutput\\":{\\"permissionDecision\\":\\"deny\\",\\"permissionDecisionReason\\":\\"'
  head -c %d /dev/zero | tr '\0' r
  printf '\\"}}"}\n'
done`, n)), 0o644))
	for name, h := range map[string]map[string]any{
		"command":    {"type": "command", "command": longDeny(n)},
		"persistent": {"type": "command", "command": "sh " + persistent, "persistent": true},
		"http":       {"type": "http", "url": srv.URL},
	} {
		t.Run(name, func(t *testing.T) {
			e, _ := open(t, preHook(h), claudeProfile)
			r := fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
			require.True(t, r.Blocked, r.Hooks[0].Error)
			require.Equal(t, "deny", r.Decision)
			require.Equal(t, reason, r.Reason)
			require.Len(t, r.Hooks[0].Stdout, 32<<10, "the result shows the cap's worth")
			require.True(t, r.Hooks[0].StdoutTruncated)
			require.Empty(t, r.Hooks[0].Error)
		})
	}
}

// Past MaxDecisionBytes a JSON answer is not read, and the hook fails as its policy says:
// fail_closed blocks; otherwise it is a non-blocking error that says why, never a silent allow.
func TestDecisionPastTheBoundFailsAsThePolicySays(t *testing.T) {
	for _, failClosed := range []bool{true, false} {
		e, _ := open(t, preHook(map[string]any{"type": "command", "command": longDeny(MaxDecisionBytes + 1), "fail_closed": failClosed}))
		r := fireT(t, e, "PreToolUse", `{"tool_name":"Bash"}`)
		require.Equal(t, failClosed, r.Blocked)
		require.Contains(t, r.Hooks[0].Error, "could not be read", "failClosed=%v", failClosed)
		require.True(t, r.Hooks[0].StdoutTruncated)
		require.Len(t, r.Hooks[0].Stdout, 32<<10)
	}
}
