package adapt

import (
	"strings"
	"testing"

	"github.com/hookexec/hookexec/core/vocab"
)

// Hostile payloads and answers for the agents that read every answer strictly (Antigravity
// denies what it cannot read) or have no ask (Crush): a guard that blocks, or a payload
// adapt cannot read, must come out as something the agent reads as a block, never an allow.
func TestHostileShapesNeverAllow(t *testing.T) {
	dir := t.TempDir()
	deep := strings.Repeat(`{"a":`, 400) + `1` + strings.Repeat(`}`, 400)
	for _, c := range []struct {
		to, event, payload string
	}{
		{vocab.Antigravity, "PreToolUse", `{"conversationId":"s","toolCall":{"name":"run_command","args":"rm -rf /"}}`},
		{vocab.Antigravity, "PreToolUse", `{"conversationId":"s","toolCall":"run_command"}`},
		{vocab.Antigravity, "PreToolUse", `{"conversationId":"s"}`},
		{vocab.Antigravity, "PreToolUse", `[1]`},
		{vocab.Antigravity, "PreToolUse", `{"toolCall":{"name":"run_command","args":{"CommandLine":["rm","-rf","/"]}}}`},
		{vocab.Antigravity, "PreToolUse", `{"toolCall":{"name":"run_command","args":` + deep + `}}`},
		{vocab.Antigravity, "", `{"toolCall":{"name":"run_command","args":{"CommandLine":"rm -rf /"}}}`},
		{vocab.Crush, "", `{"event":"pre_tool_use","tool_name":"bash","tool_input":"rm -rf /"}`},
		{vocab.Crush, "", `{"event":"PostToolUse","tool_name":"bash","tool_input":{"command":"rm -rf /"}}`},
		{vocab.Crush, "", `{"tool_name":"mcp_fs_delete","tool_input":{"path":"/"}}`},
		{vocab.Crush, "", `{}`},
	} {
		ans, err := Run(Request{From: vocab.Claude, To: c.to, Command: `echo no >&2; exit 2`, Payload: []byte(c.payload), Event: c.event, Project: dir, Home: dir})
		if err != nil {
			continue // the adapt command exits 2 on any error: a block for both agents
		}
		if !stopsTool(c.to, ans) {
			t.Errorf("%s %s: the tool runs: exit %d, stdout %q", c.to, c.payload, ans.ExitCode, ans.Stdout)
		}
	}
}

// A rewrite Antigravity can carry (a shell command) arrives as its own argument names; one
// it cannot (another tool, whose argument names hookexec does not know) is a block.
func TestAntigravityRewrites(t *testing.T) {
	dir := t.TempDir()
	// The guard rewrites only when it sees the canonical "command" field: the arguments
	// were read back from Antigravity's names.
	rewrite := `grep -q '"command"' && echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}'`
	ans, err := Run(Request{From: vocab.Claude, To: vocab.Antigravity, Command: rewrite, Event: "PreToolUse", Project: dir, Home: dir,
		Payload: []byte(`{"toolCall":{"name":"run_command","args":{"CommandLine":"rm -rf /","Cwd":"` + dir + `"}}}`)})
	if err != nil || !strings.Contains(string(ans.Stdout), `"overwrite":{"CommandLine":"ls"}`) || !strings.Contains(string(ans.Stdout), `"decision":"allow"`) {
		t.Fatalf("shell rewrite: %q, %v", ans.Stdout, err)
	}
	rewrite = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"/etc/shadow"}}}'`
	ans, err = Run(Request{From: vocab.Claude, To: vocab.Antigravity, Command: rewrite, Event: "PreToolUse", Project: dir, Home: dir,
		Payload: []byte(`{"toolCall":{"name":"view_file","args":{"AbsolutePath":"/tmp/x"}}}`)})
	if err != nil || !strings.Contains(string(ans.Stdout), `"decision":"deny"`) {
		t.Fatalf("view_file rewrite: %q, %v", ans.Stdout, err)
	}
}
