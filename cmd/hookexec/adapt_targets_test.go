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
)

// claudeGuard is a PreToolUse guard written for Claude Code: it denies a shell command
// naming "secret" and an edit of .env, rewrites "rm -rf" to a harmless echo, and asks
// about "deploy".
const claudeGuard = `#!/usr/bin/env python3
import json, sys
p = json.load(sys.stdin)
tool, inp = p.get("tool_name"), p.get("tool_input") or {}
def out(d): print(json.dumps({"hookSpecificOutput": dict({"hookEventName": "PreToolUse"}, **d)}))
if tool == "Bash":
    c = inp.get("command", "")
    if "secret" in c: out({"permissionDecision": "deny", "permissionDecisionReason": "secrets stay put"})
    elif "rm -rf" in c: out({"permissionDecision": "allow", "updatedInput": {"command": "echo refused"}})
    elif "deploy" in c: out({"permissionDecision": "ask", "permissionDecisionReason": "deploys need a human"})
elif tool in ("Edit", "Write", "MultiEdit") and inp.get("file_path", "").endswith(".env"):
    print("no edits to .env", file=sys.stderr); sys.exit(2)
`

// TestAdaptAnswersCursorCopilotWindsurf runs a Claude Code guard through the built binary as
// a hook of Cursor, Copilot CLI and Windsurf, with each agent's payload as its reference
// shows it, and checks each answer is that agent's block, ask or rewrite, and that a
// rewrite or ask the agent cannot apply is a block, never an allow.
func TestAdaptAnswersCursorCopilotWindsurf(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	guard := s.script("project/guard.py", claudeGuard)
	root := s.project
	type want struct {
		code   int
		stdout string // JSON, "" for none
		stderr string // a substring
	}
	for _, tc := range []struct {
		name, to, event, payload string
		want                     want
	}{
		// Cursor: cursor.com/docs/agent/hooks, "beforeShellExecution" input and the
		// permission/user_message/agent_message output.
		{"cursor shell deny", "cursor", "", `{"conversation_id":"c1","generation_id":"g1","hook_event_name":"beforeShellExecution","workspace_roots":["` + root + `"],"command":"cat secret","cwd":"` + root + `"}`,
			want{0, `{"permission":"deny","agent_message":"secrets stay put","user_message":"secrets stay put"}`, ""}},
		{"cursor shell ask", "cursor", "", `{"conversation_id":"c1","generation_id":"g1","hook_event_name":"beforeShellExecution","workspace_roots":["` + root + `"],"command":"make deploy","cwd":"` + root + `"}`,
			want{0, `{"permission":"ask","agent_message":"deploys need a human","user_message":"deploys need a human"}`, ""}},
		{"cursor shell rewrite cannot apply", "cursor", "", `{"conversation_id":"c1","generation_id":"g1","hook_event_name":"beforeShellExecution","workspace_roots":["` + root + `"],"command":"rm -rf build","cwd":"` + root + `"}`,
			want{0, `{"permission":"deny","agent_message":"hookexec adapt: the hook rewrites the tool input, which Cursor cannot apply here: blocked instead","user_message":"hookexec adapt: the hook rewrites the tool input, which Cursor cannot apply here: blocked instead"}`, ""}},
		{"cursor shell allow", "cursor", "", `{"conversation_id":"c1","generation_id":"g1","hook_event_name":"beforeShellExecution","workspace_roots":["` + root + `"],"command":"ls","cwd":"` + root + `"}`,
			want{0, "", ""}},
		// Cursor's "preToolUse" input (tool_name Shell, tool_input, tool_use_id) and its updated_input.
		{"cursor preToolUse rewrite", "cursor", "", `{"conversation_id":"c1","generation_id":"g1","hook_event_name":"preToolUse","workspace_roots":["` + root + `"],"tool_name":"Shell","tool_input":{"command":"rm -rf build"},"tool_use_id":"t1","cwd":"` + root + `"}`,
			want{0, `{"permission":"allow","updated_input":{"command":"echo refused"}}`, ""}},
		// Cursor's "afterFileEdit" input: file_path and edits; exit 2 of a Claude guard on a
		// post event has no Cursor form but context.
		{"cursor afterFileEdit", "cursor", "", `{"conversation_id":"c1","generation_id":"g1","hook_event_name":"afterFileEdit","workspace_roots":["` + root + `"],"file_path":"` + root + `/.env","edits":[{"old_string":"A=1","new_string":"A=2"}]}`,
			want{0, "", ""}},
		// Copilot CLI: docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference,
		// preToolUse camelCase input (timestamp, cwd, toolName, toolArgs as a JSON string) and
		// the permissionDecision/permissionDecisionReason/modifiedArgs output.
		{"copilot camelCase deny", "copilot", "preToolUse", `{"timestamp":1704614600000,"cwd":"` + root + `","toolName":"bash","toolArgs":"{\"command\":\"cat secret\",\"description\":\"read it\"}"}`,
			want{0, `{"permissionDecision":"deny","permissionDecisionReason":"secrets stay put"}`, ""}},
		{"copilot camelCase rewrite", "copilot", "preToolUse", `{"timestamp":1704614600000,"cwd":"` + root + `","toolName":"bash","toolArgs":"{\"command\":\"rm -rf build\"}"}`,
			want{0, `{"permissionDecision":"allow","modifiedArgs":{"command":"echo refused"}}`, ""}},
		{"copilot camelCase ask", "copilot", "preToolUse", `{"timestamp":1704614600000,"cwd":"` + root + `","toolName":"bash","toolArgs":"{\"command\":\"make deploy\"}"}`,
			want{0, `{"permissionDecision":"ask","permissionDecisionReason":"deploys need a human"}`, ""}},
		{"copilot camelCase without --event", "copilot", "", `{"timestamp":1704614600000,"cwd":"` + root + `","toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}`,
			want{2, "", "say --event"}},
		// The same reference's VS Code compatible PascalCase event, snake_case fields.
		{"copilot PascalCase deny", "copilot", "", `{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"` + root + `","timestamp":"2026-01-07T08:03:20.000Z","tool_name":"bash","tool_input":{"command":"cat secret"}}`,
			want{0, `{"permissionDecision":"deny","permissionDecisionReason":"secrets stay put"}`, ""}},
		{"copilot edit exit 2", "copilot", "preToolUse", `{"timestamp":1704614600000,"cwd":"` + root + `","toolName":"edit","toolArgs":"{\"path\":\"x\",\"file_path\":\"` + root + `/.env\"}"}`,
			want{0, `{"permissionDecision":"deny","permissionDecisionReason":"no edits to .env"}`, ""}},
		// Windsurf: docs.windsurf.com/windsurf/cascade/hooks, pre_run_command input
		// (agent_action_name, trajectory_id, execution_id, timestamp, tool_info.command_line/cwd);
		// exit 2 blocks with stderr as the reason.
		{"windsurf deny", "windsurf", "", `{"agent_action_name":"pre_run_command","trajectory_id":"tr1","execution_id":"ex1","timestamp":"2026-01-07T08:03:20Z","tool_info":{"command_line":"cat secret","cwd":"` + root + `"}}`,
			want{2, "", "secrets stay put"}},
		{"windsurf rewrite cannot apply", "windsurf", "", `{"agent_action_name":"pre_run_command","trajectory_id":"tr1","execution_id":"ex1","timestamp":"2026-01-07T08:03:20Z","tool_info":{"command_line":"rm -rf build","cwd":"` + root + `"}}`,
			want{2, "", "Windsurf cannot apply here: blocked instead"}},
		{"windsurf ask cannot apply", "windsurf", "", `{"agent_action_name":"pre_run_command","trajectory_id":"tr1","execution_id":"ex1","timestamp":"2026-01-07T08:03:20Z","tool_info":{"command_line":"make deploy","cwd":"` + root + `"}}`,
			want{2, "", "deploys need a human"}},
		{"windsurf allow", "windsurf", "", `{"agent_action_name":"pre_run_command","trajectory_id":"tr1","execution_id":"ex1","timestamp":"2026-01-07T08:03:20Z","tool_info":{"command_line":"ls","cwd":"` + root + `"}}`,
			want{0, "", ""}},
		// pre_write_code: tool_info.file_path and edits.
		{"windsurf write deny", "windsurf", "", `{"agent_action_name":"pre_write_code","trajectory_id":"tr1","execution_id":"ex2","timestamp":"2026-01-07T08:03:20Z","tool_info":{"file_path":"` + root + `/.env","edits":[{"old_string":"A=1","new_string":"A=2"}]}}`,
			want{2, "", "no edits to .env"}},
	} {
		args := []string{"adapt", "--from", "claude", "--to", tc.to}
		if tc.event != "" {
			args = append(args, "--event", tc.event)
		}
		out := s.runIn(tc.payload, append(args, guard)...)
		assert.Equal(t, tc.want.code, out.code, "%s: %s", tc.name, out.stderr)
		if tc.want.stdout == "" {
			assert.Empty(t, out.stdout, tc.name)
		} else {
			assert.JSONEq(t, tc.want.stdout, out.stdout, tc.name)
		}
		assert.Contains(t, out.stderr, tc.want.stderr, tc.name)
	}
}

// TestConvertedGuardBlocksInCursorAndCopilot converts a Claude Code guard to Cursor and to
// Copilot CLI and runs the written command lines as those agents do (/bin/sh -c, the
// payload on stdin, hookexec on the PATH): the guard's deny is the agent's deny.
func TestConvertedGuardBlocksInCursorAndCopilot(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	guard := s.script("project/guard.py", claudeGuard)
	src := s.write("project/.claude/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"`+guard+`"}]}]}}`)
	run := func(command, payload string) (string, int) {
		cmd := exec.Command("/bin/sh", "-c", command)
		cmd.Dir = s.project
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+s.home, "HOOKEXEC_DAEMON=off")
		cmd.Stdin = strings.NewReader(payload)
		b, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(b), ee.ExitCode()
		}
		require.NoError(t, err)
		return string(b), 0
	}

	out := s.run("convert", "--from", "claude", "--to", "cursor", src)
	require.Equal(t, 0, out.code, out.stderr)
	var cursor struct {
		Hooks map[string][]struct {
			Command    string `json:"command"`
			FailClosed bool   `json:"failClosed"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &cursor), out.stdout)
	require.Len(t, cursor.Hooks["beforeShellExecution"], 1, out.stdout)
	h := cursor.Hooks["beforeShellExecution"][0]
	assert.True(t, h.FailClosed, "an adapter that cannot run blocks")
	stdout, code := run(h.Command, `{"conversation_id":"c1","generation_id":"g1","hook_event_name":"beforeShellExecution","workspace_roots":["`+s.project+`"],"command":"cat secret","cwd":"`+s.project+`"}`)
	assert.Equal(t, 0, code)
	assert.JSONEq(t, `{"permission":"deny","agent_message":"secrets stay put","user_message":"secrets stay put"}`, stdout)

	out = s.run("convert", "--from", "claude", "--to", "copilot", src)
	require.Equal(t, 0, out.code, out.stderr)
	var copilot struct {
		Hooks map[string][]struct {
			Bash string `json:"bash"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &copilot), out.stdout)
	require.Len(t, copilot.Hooks["preToolUse"], 1, out.stdout)
	stdout, code = run(copilot.Hooks["preToolUse"][0].Bash, `{"timestamp":1704614600000,"cwd":"`+s.project+`","toolName":"bash","toolArgs":"{\"command\":\"cat secret\"}"}`)
	assert.Equal(t, 0, code)
	assert.JSONEq(t, `{"permissionDecision":"deny","permissionDecisionReason":"secrets stay put"}`, stdout)
}
