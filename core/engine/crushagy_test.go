package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Crush's and Antigravity's hooks run through the engine with real shells: what each
// hook sees (stdin, environment) and how its answer is read. The expectations are the
// agents' own rules (core/dialect/crush.go, antigravity.go; docs/agents/crush.md,
// antigravity.md), written out here case by case.

// agentFile writes content at rel under a fresh project and opens the profile on it.
func agentFile(t *testing.T, profile, rel string, content any) (*Engine, string) {
	t.Helper()
	dir := t.TempDir()
	b, err := json.Marshal(content)
	require.NoError(t, err)
	path := filepath.Join(dir, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, b, 0o644))
	e, err := Open(Options{Profile: profile, ProjectDir: dir, Home: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e, dir
}

func crushHook(matcher, command string) map[string]any {
	h := map[string]any{"command": command}
	if matcher != "" {
		h["matcher"] = matcher
	}
	return map[string]any{"hooks": map[string]any{"pre_tool_use": []any{h}}}
}

const rmPayload = `{"session_id":"s1","cwd":"/w","tool_name":"Bash","tool_input":{"command":"rm -rf /tmp/x","timeout":60000}}`

func TestCrushHookSeesCrushsPayloadAndVariables(t *testing.T) {
	out := filepath.Join(t.TempDir(), "seen")
	e, dir := agentFile(t, "crush", "crush.json", crushHook("^bash$",
		`cat > `+out+`.json; printf '%s|%s|%s|%s|%s|%s' "$CRUSH" "$AGENT" "$CRUSH_EVENT" "$CRUSH_TOOL_NAME" "$CRUSH_TOOL_INPUT_COMMAND" "$CRUSH_PROJECT_DIR" > `+out+`.env`))
	r := fireT(t, e, "PreToolUse", rmPayload)
	require.False(t, r.Blocked)
	var stdin map[string]any
	data, err := os.ReadFile(out + ".json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &stdin))
	require.Equal(t, map[string]any{"event": "PreToolUse", "session_id": "s1", "cwd": "/w", "tool_name": "bash",
		"tool_input": map[string]any{"command": "rm -rf /tmp/x", "timeout": float64(60000)}}, stdin)
	env, err := os.ReadFile(out + ".env")
	require.NoError(t, err)
	require.Equal(t, "1|crush|PreToolUse|bash|rm -rf /tmp/x|"+dir, string(env))
}

func TestCrushAnswers(t *testing.T) {
	for _, c := range []struct {
		name, command string
		blocked       bool
		cont          bool
		reason, input string
		context       string
	}{
		{"exit 2 blocks with stderr", `echo "no rm" >&2; exit 2`, true, true, "no rm", "", ""},
		{"exit 49 halts the turn", `echo "stop now" >&2; exit 49`, true, false, "stop now", "", ""},
		{"other exits are ignored", `echo boom >&2; exit 1`, false, true, "", "", ""},
		{"deny", `echo '{"decision":"deny","reason":"json no"}'`, true, true, "json no", "", ""},
		{"halt", `echo '{"halt":true,"reason":"enough"}'`, true, false, "enough", "", ""},
		{"updated_input is a shallow patch", `echo '{"updated_input":{"command":"ls"}}'`, false, true, "", `{"command":"ls","timeout":60000}`, ""},
		{"a patch is ignored on a deny", `echo '{"decision":"deny","reason":"x","updated_input":{"command":"ls"}}'`, true, true, "x", "", ""},
		{"context list", `echo '{"context":["a","","b"]}'`, false, true, "", "", "a\nb"},
		{"Claude Code's answer", `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"cc no"}}'`, true, true, "cc no", "", ""},
		{"Claude Code's top-level block is not Crush's", `echo '{"decision":"block","reason":"ignored"}'`, false, true, "", "", ""},
		{"not JSON is no opinion", `echo 'rm is fine'`, false, true, "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, _ := agentFile(t, "crush", ".crush.json", crushHook("bash", c.command))
			r := fireT(t, e, "PreToolUse", rmPayload)
			require.Equal(t, c.blocked, r.Blocked, "%s", r.JSON())
			require.Equal(t, c.cont, r.Continue, "%s", r.JSON())
			if c.reason != "" {
				require.Contains(t, r.Reason+r.StopReason, c.reason)
			}
			if c.input == "" {
				require.Nil(t, r.UpdatedInput)
			} else {
				require.JSONEq(t, c.input, string(r.UpdatedInput))
			}
			require.Equal(t, c.context, r.AdditionalContext)
		})
	}
}

func TestCrushMatcherIsARegexpOnCrushsToolName(t *testing.T) {
	e, _ := agentFile(t, "crush", "crush.json", crushHook("^(edit|write)$", `exit 2`))
	require.False(t, fireT(t, e, "PreToolUse", rmPayload).Blocked, "bash is not edit or write")
	require.True(t, fireT(t, e, "PreToolUse", `{"tool_name":"Write","tool_input":{"file_path":"a","content":"b"}}`).Blocked)
	require.True(t, fireT(t, e, "PreToolUse", `{"tool_name":"Edit","tool_input":{"file_path":"a"}}`).Blocked)
	require.False(t, fireT(t, e, "PreToolUse", `{"tool_name":"Read","tool_input":{"file_path":"a"}}`).Blocked)
}

func agyHook(event, matcher, command string) map[string]any {
	h := map[string]any{"type": "command", "command": command}
	if event == "PreToolUse" || event == "PostToolUse" {
		return map[string]any{"guard": map[string]any{event: []any{map[string]any{"matcher": matcher, "hooks": []any{h}}}}}
	}
	return map[string]any{"guard": map[string]any{event: []any{h}}}
}

func TestAntigravityHookSeesItsPayload(t *testing.T) {
	out := filepath.Join(t.TempDir(), "seen.json")
	e, _ := agentFile(t, "antigravity", ".agents/hooks.json", agyHook("PreToolUse", "run_command", `cat > `+out))
	fireT(t, e, "PreToolUse", rmPayload)
	var stdin map[string]any
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &stdin))
	require.Equal(t, map[string]any{"name": "run_command", "args": map[string]any{"CommandLine": "rm -rf /tmp/x", "timeout": float64(60000)}}, stdin["toolCall"])
	require.Equal(t, "s1", stdin["conversationId"])
	require.Equal(t, []any{"/w"}, stdin["workspacePaths"])
}

func TestAntigravityPreToolUseFailsClosed(t *testing.T) {
	for _, c := range []struct {
		name, command string
		blocked       bool
		decision      string
		input         string
	}{
		{"silence runs the tool", `true`, false, "none", ""},
		{"an empty object denies", `echo '{}'`, true, "deny", ""},
		{"an empty decision denies", `echo '{"decision":""}'`, true, "deny", ""},
		{"an unknown decision denies", `echo '{"decision":"block"}'`, true, "deny", ""},
		{"text denies", `echo 'looks fine'`, true, "deny", ""},
		{"exit 1 denies", `exit 1`, true, "deny", ""},
		{"exit 2 denies", `exit 2`, true, "deny", ""},
		{"deny", `echo '{"decision":"deny","reason":"no"}'`, true, "deny", ""},
		{"allow", `echo '{"decision":"allow"}'`, false, "allow", ""},
		{"ask", `echo '{"decision":"ask","reason":"sure?"}'`, false, "ask", ""},
		{"force_ask is an ask", `echo '{"decision":"force_ask"}'`, false, "ask", ""},
		{"overwrite patches the arguments", `echo '{"decision":"allow","overwrite":{"CommandLine":"ls -la"}}'`, false, "allow", `{"command":"ls -la","timeout":60000}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, _ := agentFile(t, "antigravity", ".agents/hooks.json", agyHook("PreToolUse", "*", c.command))
			r := fireT(t, e, "PreToolUse", rmPayload)
			require.Equal(t, c.blocked, r.Blocked, "%s", r.JSON())
			require.Equal(t, c.decision, r.Decision, "%s", r.JSON())
			if c.input == "" {
				require.Nil(t, r.UpdatedInput)
			} else {
				require.JSONEq(t, c.input, string(r.UpdatedInput))
			}
		})
	}
}

func TestAntigravityTimeoutDenies(t *testing.T) {
	cfg := agyHook("PreToolUse", "", "sleep 5")
	cfg["guard"].(map[string]any)["PreToolUse"].([]any)[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)["timeout"] = 1
	e, _ := agentFile(t, "antigravity", ".agents/hooks.json", cfg)
	require.True(t, fireT(t, e, "PreToolUse", rmPayload).Blocked)
}

func TestAntigravityMatcherAndEvents(t *testing.T) {
	e, _ := agentFile(t, "antigravity", ".agents/hooks.json", agyHook("PreToolUse", `view_file\|write_to_file`, `exit 1`))
	require.False(t, fireT(t, e, "PreToolUse", rmPayload).Blocked, "run_command is neither")
	require.True(t, fireT(t, e, "PreToolUse", `{"tool_name":"Read","tool_input":{"file_path":"/a"}}`).Blocked)
	e, _ = agentFile(t, "antigravity", ".agents/hooks.json", agyHook("PreToolUse", `run_.*`, `exit 1`))
	require.True(t, fireT(t, e, "PreToolUse", rmPayload).Blocked)
	e, _ = agentFile(t, "antigravity", ".agents/hooks.json", agyHook("PreToolUse", `run`, `exit 1`))
	require.False(t, fireT(t, e, "PreToolUse", rmPayload).Blocked, "a name matches whole")

	e, _ = agentFile(t, "antigravity", ".agents/hooks.json", agyHook("Stop", "", `echo '{"decision":"continue","reason":"tests still run"}'`))
	r := fireT(t, e, "Stop", `{"session_id":"s1"}`)
	require.True(t, r.Blocked, "a Stop block keeps the agent going")
	require.Equal(t, "tests still run", r.Reason)

	e, _ = agentFile(t, "antigravity", ".agents/hooks.json", agyHook("SessionStart", "", `echo '{"injectSteps":[{"systemMessage":{"systemMessage":"welcome"}},{"ephemeralMessage":"now"}]}'`))
	require.Equal(t, "welcome\nnow", fireT(t, e, "SessionStart", `{"session_id":"s1"}`).AdditionalContext)

	cfg := agyHook("PreToolUse", "", `exit 1`)
	cfg["guard"].(map[string]any)["enabled"] = false
	e, _ = agentFile(t, "antigravity", ".agents/hooks.json", cfg)
	require.False(t, fireT(t, e, "PreToolUse", rmPayload).Blocked, "a disabled hook does not run")
}
