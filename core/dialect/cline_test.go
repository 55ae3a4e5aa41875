package dialect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
)

// The answers as cline 3.0.65 reads them (tests/live/cline checks each against the binary).
func TestClineAnswer(t *testing.T) {
	long := strings.Repeat("x", 60000)
	cases := []struct {
		name, event, stdout string
		exit                int
		wantExit            int
		want                string // canonical answer JSON; "" for none
	}{
		{"cancel ends the run", "PreToolUse", `{"cancel": true, "errorMessage": "no"}`, 0, 0,
			`{"continue":false,"decision":"block","reason":"no","stopReason":"no"}`},
		{"cancel reason from context", "PreToolUse", `{"cancel": true, "contextModification": "ctx"}`, 0, 0,
			`{"continue":false,"decision":"block","reason":"ctx","stopReason":"ctx"}`},
		{"cancel after the tool stops the run", "PostToolUse", `{"cancel": true}`, 0, 0,
			`{"continue":false,"stopReason":"cancelled by a Cline hook"}`},
		{"cancel false is nothing", "PreToolUse", `{"cancel": false}`, 0, 0, ``},
		{"exit 2 blocks nothing", "PreToolUse", ``, 2, 1, ``},
		{"stdout is read whatever the exit", "PreToolUse", `{"cancel": true, "errorMessage": "x"}`, 2, 0,
			`{"continue":false,"decision":"block","reason":"x","stopReason":"x"}`},
		{"invalid JSON fails open", "PreToolUse", `{"cancel": tru`, 0, 0, ``},
		{"an array is no answer", "PreToolUse", `[{"cancel": true}]`, 0, 0, ``},
		{"Claude's words are no answer", "PreToolUse", `{"decision": "block", "reason": "r"}`, 0, 0, ``},
		{"a wrongly typed field is ignored alone", "PreToolUse", `{"cancel": true, "context": 5}`, 0, 0,
			`{"continue":false,"decision":"block","reason":"cancelled by a Cline hook","stopReason":"cancelled by a Cline hook"}`},
		{"a null reason is ignored", "PreToolUse", `{"cancel": true, "errorMessage": null, "contextModification": "c"}`, 0, 0,
			`{"continue":false,"decision":"block","reason":"c","stopReason":"c"}`},
		{"cancel must be a boolean", "PreToolUse", `{"cancel": "true"}`, 0, 0, ``},
		{"contextModification", "PreToolUse", `{"contextModification": "c"}`, 0, 0, `{"additionalContext":"c"}`},
		{"context wins", "PreToolUse", `{"context": "a", "contextModification": "b"}`, 0, 0, `{"additionalContext":"a"}`},
		{"errorMessage without cancel is context", "PreToolUse", `{"errorMessage": "e"}`, 0, 0, `{"additionalContext":"e"}`},
		{"blank errorMessage is nothing", "PreToolUse", `{"errorMessage": "  "}`, 0, 0, ``},
		{"overrideInput object rewrites", "PreToolUse", `{"overrideInput": {"commands": ["true"]}}`, 0, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"commands":["true"]}}}`},
		{"overrideInput null refuses the call", "PreToolUse", `{"overrideInput": null, "contextModification": "why"}`, 0, 0,
			`{"additionalContext":"why","decision":"block","reason":"why"}`},
		{"overrideInput after the tool is nothing", "PostToolUse", `{"overrideInput": null}`, 0, 0, ``},
		{"review is not acted on", "PreToolUse", `{"review": true}`, 0, 0, ``},
		{"the last HOOK_CONTROL line", "PreToolUse", "log\nHOOK_CONTROL\t{\"cancel\": true}\nHOOK_CONTROL\t{\"context\": \"last\"}\n", 0, 0, `{"additionalContext":"last"}`},
		{"noise before JSON fails open", "PreToolUse", "checking\n{\"cancel\": true}\n", 0, 0, ``},
		{"detached events are never read", "TaskStart", `{"cancel": true}`, 0, 0, ``},
		{"UserPromptSubmit is detached", "UserPromptSubmit", `{"cancel": true}`, 0, 0, ``},
		{"context is cut at 50,000", "PostToolUse", `{"contextModification": "` + long + `"}`, 0, 0,
			`{"additionalContext":"` + long[:50000] + `\n[hook context truncated: exceeded 50000 characters]"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, ans := clineAnswer(tc.event, tc.exit, []byte(tc.stdout))
			require.Equal(t, tc.wantExit, code)
			if tc.want == "" {
				require.Nil(t, ans, "%s", ans)
				return
			}
			require.JSONEq(t, tc.want, string(ans))
		})
	}
}

func TestClineEventAndArgv(t *testing.T) {
	for name, want := range map[string]string{"PreToolUse": "PreToolUse", "pretooluse": "PreToolUse", "PreToolUse.py": "PreToolUse",
		"TaskError.sh": "TaskError", "SessionShutdown.mjs": "SessionShutdown", "PreToolUse.txt": "", "Other": ""} {
		got, ok := ClineEvent(name)
		require.Equal(t, want, got, name)
		require.Equal(t, want != "", ok, name)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{write("a", "echo\n"), []string{"bash"}},
		{write("b", "#!/usr/bin/env python3\n"), []string{"python3"}},
		{write("c", "#!/bin/sh -e\n"), []string{"sh", "-e"}},
		{write("d", "#!/opt/tool --flag\n"), []string{"/opt/tool", "--flag"}},
		{write("e.py", "print(1)\n"), []string{"python3"}},
		{write("f.mjs", ""), []string{"node"}},
	} {
		require.Equal(t, append(tc.want, tc.path), ClineArgv(tc.path))
	}
}

func TestClineStdin(t *testing.T) {
	frame := payload.Frame{SessionID: "s1", Cwd: "/p", Time: time.Unix(1, 0)}
	own := `{"hookName":"tool_call","tool_call":{"id":"c","name":"run_commands","input":{"commands":["ls"]}}}`
	out := clineStdin(Fire{Event: "PreToolUse", Payload: fastjson.MustParse(own), Frame: frame})
	require.JSONEq(t, own, string(out), "Cline's own payload passes unchanged")
	out = clineStdin(Fire{Event: "PreToolUse", Payload: fastjson.MustParse(`{"tool_name":"Bash","tool_input":{"command":"ls","n":2},"tool_use_id":"t"}`), Frame: frame})
	var m map[string]any
	require.NoError(t, json.Unmarshal(out, &m))
	require.Equal(t, "tool_call", m["hookName"])
	require.Equal(t, map[string]any{"id": "t", "name": "run_commands", "input": map[string]any{"command": "ls", "n": 2.0}}, m["tool_call"])
	require.Equal(t, map[string]any{"toolName": "run_commands", "parameters": map[string]any{"command": "ls", "n": "2"}}, m["preToolUse"])
	require.Equal(t, []any{"/p"}, m["workspaceRoots"])
}
