package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The log table: the last fires, each hook's time, its exit and the marks a user looks for
// (output cut at the cap, a timeout).
func TestLogTable(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "head -c 100000 /dev/zero | tr '\\0' x", "name": "big"},
			{"type": "command", "command": "exit 2", "name": "no"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "sleep 5", "timeout": 1, "name": "slow"}]}]}}`)
	log := filepath.Join(s.root, "fires.log")
	for _, ev := range []string{"SessionStart", "PreToolUse", "Stop"} {
		out := s.run("--profile", "claude", "--log", log, "fire", ev, "--payload", `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`)
		require.Contains(t, []int{0, 2}, out.code, out.stderr)
	}
	out := s.run("--log", log, "log", "--last", "2")
	require.Equal(t, 0, out.code, out.stderr)
	lines := strings.Split(strings.TrimSpace(out.stdout), "\n")
	require.Len(t, lines, 6, out.stdout) // header, 2 fires, 3 hooks
	assert.Regexp(t, `^TIME +EVENT +SUBJECT +OUTCOME +MS +HOOK +EXIT +MARKS$`, lines[0])
	assert.Regexp(t, `PreToolUse +Bash +blocked +\d+\.\d`, lines[1])
	assert.Regexp(t, `\d+\.\d +big +0 +stdout cut$`, lines[2])
	assert.Regexp(t, `\d+\.\d +no +2$`, lines[3])
	assert.Regexp(t, `Stop +.*\d+\.\d`, lines[4])
	assert.Regexp(t, `slow +\S+ +timeout`, lines[5])
	assert.NotContains(t, out.stdout, "SessionStart", "only the last two")

	none := s.run("log")
	assert.Equal(t, exitUsage, none.code)
	assert.Contains(t, none.stderr, "HOOKEXEC_LOG")
}
