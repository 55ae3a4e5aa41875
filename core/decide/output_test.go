package decide

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/event"
)

func read(ev, stdout string) Verdict {
	return Read(Input{Event: event.Lookup(ev), Stdout: []byte(stdout)})
}

func TestDeferPrecedence(t *testing.T) {
	v := read("PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"defer","permissionDecisionReason":"ignored","updatedInput":{"a":1},"additionalContext":"ignored too"}}`)
	require.Equal(t, Defer, v.Decision)
	require.False(t, v.Blocked)
	require.Empty(t, v.Reason, "defer ignores the reason")
	require.Nil(t, v.UpdatedInput, "defer ignores updatedInput")
	require.Empty(t, v.AdditionalContext, "defer ignores additionalContext")

	allow := read("PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"allow"}}`)
	ask := read("PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"ask"}}`)
	deny := read("PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`)
	for _, tc := range []struct {
		vs   []Verdict
		want Decision
	}{
		{[]Verdict{allow, v}, Defer},
		{[]Verdict{v, ask}, Defer},
		{[]Verdict{ask, allow}, Ask},
		{[]Verdict{v, deny, ask}, Deny},
		{[]Verdict{deny, v}, Deny},
	} {
		require.Equal(t, tc.want, Aggregate(nil, tc.vs).Decision)
	}
	require.Equal(t, "defer", Defer.String())
}

func TestPermissionRequestDecisionObject(t *testing.T) {
	v := read("PermissionRequest", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"npm run lint"},"updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"session"}]}}}`)
	require.Equal(t, Allow, v.Decision)
	require.JSONEq(t, `{"command":"npm run lint"}`, string(v.UpdatedInput))
	require.JSONEq(t, `[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"session"}]`, string(v.UpdatedPermissions))

	v = read("PermissionRequest", `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"not on prod","interrupt":true}}}`)
	require.Equal(t, Deny, v.Decision)
	require.True(t, v.Blocked)
	require.Equal(t, "not on prod", v.Reason)
	require.True(t, v.Interrupt)

	v = read("PermissionRequest", `{"hookSpecificOutput":{"decision":{"behavior":"maybe"}}}`)
	require.Equal(t, None, v.Decision)
	require.Contains(t, v.Warnings[0], `behavior is "maybe"`)
	v = read("PermissionRequest", `{"hookSpecificOutput":{"decision":"allow"}}`)
	require.Equal(t, None, v.Decision)
	require.Contains(t, v.Warnings[0], "want an object")

	other := read("PermissionRequest", `{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}}`)
	first := read("PermissionRequest", `{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedPermissions":[{"type":"addDirectories","directories":["/x"],"destination":"session"}]}}}`)
	s := Aggregate(nil, []Verdict{first, other})
	require.JSONEq(t, `[{"type":"addDirectories","directories":["/x"],"destination":"session"},{"type":"setMode","mode":"acceptEdits","destination":"session"}]`, string(s.UpdatedPermissions))
}

func TestClaudeOutputFields(t *testing.T) {
	v := read("PermissionDenied", `{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}`)
	require.True(t, v.Retry)
	v = read("PermissionDenied", `{"hookSpecificOutput":{"retry":"yes"}}`)
	require.False(t, v.Retry)
	require.Contains(t, v.Warnings[0], "retry is string")

	v = read("PostToolUse", `{"hookSpecificOutput":{"updatedToolOutput":{"stdout":"[redacted]","stderr":"","interrupted":false,"isImage":false}}}`)
	require.JSONEq(t, `{"stdout":"[redacted]","stderr":"","interrupted":false,"isImage":false}`, string(v.UpdatedToolOutput))
	v = read("PostToolUse", `{"hookSpecificOutput":{"updatedMCPToolOutput":"plain"}}`)
	require.Equal(t, `"plain"`, string(v.UpdatedToolOutput))

	v = read("SessionStart", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx","initialUserMessage":"hi","sessionTitle":"auth","watchPaths":["/a/.envrc",3],"reloadSkills":true}}`)
	require.Equal(t, "ctx", v.AdditionalContext)
	require.Equal(t, "hi", v.InitialUserMessage)
	require.Equal(t, "auth", v.SessionTitle)
	require.Equal(t, []string{"/a/.envrc"}, v.WatchPaths)
	require.True(t, v.ReloadSkills)
	require.Contains(t, v.Warnings[0], "watchPaths[1] is number")

	w := read("SessionStart", `{"hookSpecificOutput":{"sessionTitle":"later","initialUserMessage":"again","watchPaths":["/b"]}}`)
	s := Aggregate(nil, []Verdict{v, w, read("PermissionDenied", `{"hookSpecificOutput":{"retry":true}}`)})
	require.Equal(t, "later", s.SessionTitle, "last in config order wins")
	require.Equal(t, "hi\nagain", s.InitialUserMessage)
	require.Equal(t, []string{"/a/.envrc", "/b"}, s.WatchPaths)
	require.True(t, s.ReloadSkills)
	require.True(t, s.Retry)
}

func TestTerminalSequence(t *testing.T) {
	for _, ok := range []string{
		"\a",
		"\x1b]777;notify;Claude Code;Needs you\a",
		"\x1b]0;title\x1b\\",
		"\x1b]9;4;1;50\a\a",
		"\x1b]99;i=1;done\x1b\\\x1b]2;t\a",
	} {
		v := read("Notification", `{"terminalSequence":`+jsonString(ok)+`}`)
		require.Equal(t, ok, v.TerminalSequence, "%q", ok)
		require.Empty(t, v.Warnings)
	}
	for _, bad := range []string{
		"\x1b[2J",                // CSI: clears the screen
		"\x1b]52;c;aGk=\a",       // clipboard write
		"\x1b]8;;http://x\a",     // hyperlink
		"\x1b]1337;File=x\a",     // iTerm2 extension
		"plain text",             // not a sequence
		"\x1b]0;title",           // unterminated
		"\x1b]0;ti\x1b[31mtle\a", // CSI smuggled inside
		"\x1b]777;notify;a\nb\a", // control byte inside
		"",                       // empty
	} {
		v := read("Notification", `{"terminalSequence":`+jsonString(bad)+`}`)
		require.Empty(t, v.TerminalSequence, "%q", bad)
		require.Contains(t, v.Warnings[0], "terminalSequence ignored")
	}
	s := Aggregate(nil, []Verdict{read("Stop", `{"terminalSequence":"\u0007"}`), read("Stop", `{"terminalSequence":"\u001b]0;x\u0007"}`)})
	require.Equal(t, "\a\x1b]0;x\a", s.TerminalSequence, "joined in config order")
}

func jsonString(s string) string {
	out := []byte{'"'}
	for _, c := range []byte(s) {
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20 || c == 0x7f:
			out = append(out, []byte("\\u00")...)
			out = append(out, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		default:
			out = append(out, c)
		}
	}
	return string(append(out, '"'))
}
