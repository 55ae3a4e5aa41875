package decide

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/event"
)

// Restrict drops each field that grants or rewrites, names it, and keeps what restricts or
// informs. The answers are read by Read, so the fields are the ones real answers fill.
func TestRestrict(t *testing.T) {
	tests := []struct {
		name    string
		event   string
		stdout  string
		exit    int
		dropped []string
		want    Verdict // the fields compared after Restrict
	}{
		{"allow and rewrite", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"fine","updatedInput":{"c":1}},"modified_args":{"c":2}}`, 0,
			[]string{"allow", "updatedInput", "modified_args"}, Verdict{Continue: true}},
		{"legacy approve", "PreToolUse", `{"decision":"approve","reason":"ok"}`, 0, []string{"allow"}, Verdict{Continue: true}},
		{"permission request allow", "PermissionRequest", `{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"c":1},"updatedPermissions":[{"type":"addRules"}]}}}`, 0,
			[]string{"allow", "updatedInput", "updatedPermissions"}, Verdict{Continue: true}},
		{"tool output", "PostToolUse", `{"hookSpecificOutput":{"updatedMCPToolOutput":"x","classifierContext":"trust me","additionalContext":"lint ok"}}`, 0,
			[]string{"updatedToolOutput", "classifierContext"}, Verdict{Continue: true, AdditionalContext: "lint ok"}},
		{"retry", "PermissionDenied", `{"hookSpecificOutput":{"retry":true}}`, 0, []string{"retry"}, Verdict{Continue: true}},
		{"session start", "SessionStart", `{"hookSpecificOutput":{"initialUserMessage":"delete it all","sessionTitle":"t"},"systemMessage":"hi"}`, 0,
			[]string{"initialUserMessage"}, Verdict{Continue: true, SystemMessage: "hi", Claude: Claude{SessionTitle: "t"}}},
		{"watch paths", "FileChanged", `{"hookSpecificOutput":{"hookEventName":"FileChanged","watchPaths":["/tmp/model-chose"],"additionalContext":"seen"}}`, 0,
			[]string{"watchPaths"}, Verdict{Continue: true, AdditionalContext: "seen"}},
		{"worktree path", "WorktreeCreate", "/tmp/anywhere\n", 0, []string{"worktreePath"},
			Verdict{Continue: true, Decision: Deny, Blocked: true, Reason: "the worktree path came from a hook given a template value (" + RestrictRule + ")"}},
		{"deny stays", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`, 0, nil,
			Verdict{Continue: true, Decision: Deny, Blocked: true, Reason: "no"}},
		{"ask stays, its rewrite goes", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?","updatedInput":{"c":1}}}`, 0,
			[]string{"updatedInput"}, Verdict{Continue: true, Decision: Ask, Reason: "sure?"}},
		{"exit 2 beside an allow", "PreToolUse", `{"decision":"approve"}`, 2, nil,
			Verdict{Continue: true, Decision: Deny, Blocked: true, Reason: "blocked by hook (exit status 2)"}},
		{"stop block stays", "Stop", `{"decision":"block","reason":"todo left"}`, 0, nil,
			Verdict{Continue: true, Decision: Deny, Blocked: true, Reason: "todo left"}},
		{"continue false stays", "UserPromptSubmit", `{"continue":false,"stopReason":"halt"}`, 0, nil,
			Verdict{Decision: Deny, Blocked: true, Reason: "halt", StopReason: "halt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := event.Lookup(tt.event)
			v := Read(Input{Event: ev, ExitCode: tt.exit, Stdout: []byte(tt.stdout)})
			require.Equal(t, tt.dropped, v.Restrict(ev))
			v.Output, v.Warnings, v.stated = nil, nil, None // stated is Read's own bookkeeping
			require.Equal(t, tt.want, v)
			require.Nil(t, v.Restrict(ev), "a restricted verdict has nothing left to drop")
		})
	}
}
