package dialect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFactoryAnswer: each event reads the fields droid 0.225.2 reads (tests/live/droid
// vectors), in Claude Code's words for package decide.
func TestFactoryAnswer(t *testing.T) {
	for _, c := range []struct {
		name, event, stdout string
		exit, code          int
		want                string // "" for no answer
	}{
		{"deny", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`, 0, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{"deny on a failing exit blocks as exit 2", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"deny"}}`, 1, 2, ""},
		{"ask stays an ask (Droid only logs it)", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"ask"}}`, 0, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`},
		{"allow with updatedInput", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, 0, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`},
		{"updatedInput alone", "PreToolUse", `{"hookSpecificOutput":{"updatedInput":{"command":"ls"}}}`, 0, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}`},
		{"legacy decision not read on PreToolUse", "PreToolUse", `{"decision":"block","reason":"r"}`, 0, 0, ""},
		{"continue false stops", "PreToolUse", `{"continue":false,"stopReason":"halt"}`, 0, 0, `{"continue":false,"stopReason":"halt"}`},
		{"exit 3 ends the run", "PreToolUse", ``, 3, 0, `{"continue":false,"stopReason":"ended by a Droid hook (exit status 3)"}`},
		{"exit 3 ends the run after a tool", "PostToolUse", ``, 3, 0, `{"continue":false,"stopReason":"ended by a Droid hook (exit status 3)"}`},
		{"exit 3 on SessionStart is nothing", "SessionStart", ``, 3, 3, ""},
		{"exit 3 blocks compaction", "PreCompact", ``, 3, 2, ""},
		{"exit 2 stays", "PreToolUse", ``, 2, 2, ""},
		{"a failing exit stays a failure", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"allow"}}`, 1, 1, ""},
		{"post decision not read", "PostToolUse", `{"decision":"block","reason":"r"}`, 0, 0, ""},
		{"post context", "PostToolUse", `{"hookSpecificOutput":{"additionalContext":"c"}}`, 0, 0,
			`{"hookSpecificOutput":{"additionalContext":"c","hookEventName":"PostToolUse"}}`},
		{"stop block with a reason", "Stop", `{"decision":"block","reason":"go on"}`, 0, 0, `{"decision":"block","reason":"go on"}`},
		{"stop block without a reason is nothing and hides exit 2", "Stop", `{"decision":"block"}`, 2, 0, ""},
		{"session start reads only context", "SessionStart", `{"continue":false,"systemMessage":"s","hookSpecificOutput":{"additionalContext":"c"}}`, 0, 0,
			`{"hookSpecificOutput":{"additionalContext":"c","hookEventName":"SessionStart"}}`},
		{"plain text passes", "SessionStart", "plain ctx\n", 0, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := factoryAnswer(c.event, c.exit, []byte(c.stdout))
			require.Equal(t, c.code, code)
			if c.want == "" {
				require.Empty(t, strings.TrimSpace(string(malformed(out))), "%s", out)
				return
			}
			require.JSONEq(t, c.want, string(out))
		})
	}
}

func factoryFile(t *testing.T, path, text string) *File {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	f, err := Read(path, []byte(text), Factory)
	require.NoError(t, err)
	return f
}

func TestFactoryFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".factory")
	guard := `[{"matcher":"Execute","hooks":[{"type":"command","command":"guard"}]}]`

	// hooks.json holds the events at its top level; wrapped in "hooks", Droid runs nothing.
	f := factoryFile(t, filepath.Join(dir, "hooks.json"), `{"hooks":{"PreToolUse":`+guard+`}}`)
	require.Empty(t, f.Hooks)
	require.NotEmpty(t, f.Warnings)
	f = factoryFile(t, filepath.Join(dir, "hooks.json"), `{"PreToolUse":`+guard+`}`)
	require.Len(t, f.Hooks, 1)
	require.Equal(t, "PreToolUse", f.Hooks[0].Event)

	// settings.json's PreToolUse is replaced by hooks.json's; its Stop stays.
	f = factoryFile(t, filepath.Join(dir, "settings.json"), `{"hooks":{"PreToolUse":`+guard+`,"Stop":[{"hooks":[{"type":"command","command":"s"}]}]}}`)
	require.Len(t, f.Hooks, 1)
	require.Equal(t, "Stop", f.Hooks[0].Event)

	// A handler Droid's schema refuses drops the whole file; hookexec's policy type is read.
	other := filepath.Join(t.TempDir(), ".factory", "settings.json")
	f = factoryFile(t, other, `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"a"},{"type":"prompt","prompt":"p"}]}]}}`)
	require.Empty(t, f.Hooks)
	require.Contains(t, f.Warnings[0].Message, "Droid ignores every hook")
	f = factoryFile(t, other, `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"a","timeout":"5"}]}]}}`)
	require.Empty(t, f.Hooks)
	f = factoryFile(t, other, `{"hooks":{"PreToolUse":[{"hooks":[{"type":"policy","cel":"true"}]}]}}`)
	require.Len(t, f.Hooks, 1)
	require.Contains(t, f.Warnings[0].Message, "only hookexec runs them")
}
