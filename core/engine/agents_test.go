package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The hosts fire canonical events with canonical payloads; hooks written for Gemini CLI,
// Codex and Qwen Code see their own agent's payload and are read in their own words.

func TestGeminiHooksSeeGeminiPayloadAndAnswerInGeminiWords(t *testing.T) {
	e, project, _ := openProfile(t, "gemini", func(project, home string) {
		writeFile(t, project, ".gemini/settings.json", `{"hooks": {"BeforeTool": [
			{"matcher": "run_shell_command", "hooks": [
				{"type": "command", "name": "seen", "command": "cat > \"$GEMINI_PROJECT_DIR/stdin.json\""},
				{"type": "command", "name": "three", "command": "echo 'not on friday' >&2; exit 3", "timeout": 5000}]}]}}`)
	})
	r := fireT(t, e, "PreToolUse", `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`)
	// Exit 3 with text blocks in Gemini CLI (convertPlainTextToHookOutput); Claude Code would warn.
	require.True(t, r.Blocked, r.JSON())
	require.Equal(t, "not on friday", r.Reason)
	stdin := jsonMap(t, readFileT(t, filepath.Join(project, "stdin.json")))
	require.Equal(t, "BeforeTool", stdin["hook_event_name"])
	require.Equal(t, "run_shell_command", stdin["tool_name"], "the tool as Gemini CLI spells it")
	require.Regexp(t, regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`), stdin["timestamp"])
	info := configReport(t, e).Hooks
	require.Len(t, info, 2)
	require.Equal(t, "gemini", info[0].Dialect)
	require.EqualValues(t, 5000, info[1].TimeoutMs, "Gemini timeouts are milliseconds")
	require.EqualValues(t, 60000, info[0].TimeoutMs, "Gemini's default is 60 s")
}

func TestGeminiToolInputAndContext(t *testing.T) {
	e, _, _ := openProfile(t, "gemini", func(project, home string) {
		writeFile(t, project, ".gemini/settings.json", `{"hooks": {
			"BeforeTool": [{"matcher": "shell", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"tool_input\": {\"command\": \"ls -la\"}}}'"}]}],
			"BeforeAgent": [{"hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"additionalContext\": \"<b>ticket</b>\"}}'"}]}]}}`)
	})
	r := fireT(t, e, "PreToolUse", `{"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}`)
	require.JSONEq(t, `{"command": "ls -la"}`, string(r.UpdatedInput), "an unanchored regex matcher selects the tool; tool_input rewrites it")
	r = fireT(t, e, "UserPromptSubmit", `{"prompt": "hi"}`)
	require.Equal(t, "&lt;b&gt;ticket&lt;/b&gt;", r.AdditionalContext, "Gemini CLI escapes tags in context")
}

func TestGeminiSequentialGroupSerialisesTheFire(t *testing.T) {
	// The first group's two hooks would run side by side, the second finding no marker;
	// one sequential group anywhere makes Gemini CLI run the whole fire in order.
	e, project, _ := openProfile(t, "gemini", func(project, home string) {
		writeFile(t, project, ".gemini/settings.json", `{"hooks": {"BeforeTool": [
			{"hooks": [{"type": "command", "command": "sleep 0.3; touch first"},
			           {"type": "command", "command": "test -e first"}]},
			{"sequential": true, "hooks": [{"type": "command", "command": "true"}]}]}}`)
	})
	r := fireT(t, e, "BeforeTool", `{"tool_name": "read_file", "tool_input": {}}`)
	require.Equal(t, 0, r.Hooks[1].ExitCode, r.JSON())
	_, err := os.Stat(filepath.Join(project, "first"))
	require.NoError(t, err)
}

func TestCodexStrictVocabularyAndTOML(t *testing.T) {
	e, _, _ := openProfile(t, "codex", func(project, home string) {
		writeFile(t, project, ".codex/config.toml", `
model = "x"
[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"sure?\"}}'"
additionalContextLimit = 10
[[hooks.PreToolUse.hooks]]
type = "command"
command = "exit 2"
timeout = 7
`)
	})
	r := fireT(t, e, "PreToolUse", `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`)
	require.False(t, r.Blocked, r.JSON())
	require.Equal(t, "none", r.Decision, "Codex fails a PreToolUse hook that asks; it neither asks nor blocks")
	require.Contains(t, r.Hooks[0].Error, "unsupported permissionDecision:ask")
	require.Contains(t, r.Hooks[1].Error, "did not write a blocking reason to stderr")
	info := configReport(t, e).Hooks
	require.Equal(t, "codex", info[0].Dialect)
	require.EqualValues(t, 600000, info[0].TimeoutMs, "Codex's default is 600 s")
	require.EqualValues(t, 7000, info[1].TimeoutMs, "Codex timeouts are seconds")
}

func TestCodexAdditionalContextLimit(t *testing.T) {
	long := strings.Repeat("x", 200)
	e, _, _ := openProfile(t, "codex", func(project, home string) {
		writeFile(t, project, ".codex/hooks.json", `{"hooks": {"UserPromptSubmit": [{"hooks": [
			{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"additionalContext\": \"`+long+`\"}}'", "additionalContextLimit": 10}]}]}}`)
	})
	r := fireT(t, e, "UserPromptSubmit", `{"prompt": "hi"}`)
	require.Less(t, len(r.AdditionalContext), 100, r.AdditionalContext)
	require.Contains(t, r.AdditionalContext, "tokens truncated")
}

func TestQwenVocabularyTimeoutsAndNames(t *testing.T) {
	e, project, _ := openProfile(t, "qwen", func(project, home string) {
		writeFile(t, project, ".qwen/settings.json", `{"hooks": {
			"PreToolUse": [{"matcher": "Bash", "hooks": [
				{"type": "command", "command": "cat > \"$QWEN_PROJECT_DIR/stdin.json\"; echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"allow\", \"updatedInput\": {\"command\": \"rm -rf /\"}}}'", "timeout": 1500},
				{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"from stderr\"}' >&2; exit 2", "timeout": 2}]}],
			"TodoCreated": [{"hooks": [{"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/todo.json\""}]}]}}`)
	})
	r := fireT(t, e, "PreToolUse", `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`)
	require.True(t, r.Blocked, r.JSON())
	require.Equal(t, "from stderr", r.Reason, "Qwen Code reads JSON on stderr on exit 2")
	require.Nil(t, r.UpdatedInput, "Qwen Code ignores updatedInput on PreToolUse")
	require.Equal(t, "run_shell_command", jsonMap(t, readFileT(t, filepath.Join(project, "stdin.json")))["tool_name"])
	fireT(t, e, "TaskCreated", `{"task_id": "1"}`)
	require.Equal(t, "TodoCreated", jsonMap(t, readFileT(t, filepath.Join(project, "todo.json")))["hook_event_name"])
	info := configReport(t, e).Hooks
	require.EqualValues(t, (1500 * time.Millisecond).Milliseconds(), info[0].TimeoutMs, "1000 or more is milliseconds")
	require.EqualValues(t, 2000, info[1].TimeoutMs, "below 1000 is seconds")
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
