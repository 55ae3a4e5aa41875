package event

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name      string
		canonical string
		canBlock  bool
		subject   []string
		known     bool
	}{
		{"PreToolUse", "PreToolUse", true, []string{"tool_name"}, true},
		{"pre-tool", "PreToolUse", true, []string{"tool_name"}, true},
		{"BeforeTool", "PreToolUse", true, []string{"tool_name"}, true},
		{"AfterTool", "PostToolUse", false, []string{"tool_name"}, true},
		{"post-response", "Stop", true, nil, true},
		{"session_start", "SessionStart", false, []string{"source", "session_type"}, true},
		{"on_error", "SessionError", false, []string{"error_code"}, true},
		{"PreCompress", "PreCompact", true, []string{"trigger"}, true},
		{"on_task_complete", "TaskComplete", false, nil, true},
		{"PreExecutionStart", "PreExecutionStart", true, nil, false},
		{"BeforeDeploy", "BeforeDeploy", true, nil, false},
		{"PostExecutionEnd", "PostExecutionEnd", false, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Lookup(tt.name)
			require.Equal(t, tt.canonical, in.Name)
			require.Equal(t, tt.canBlock, in.CanBlock)
			require.Equal(t, tt.subject, in.Subject)
			require.Equal(t, tt.known, in.Known)
		})
	}
}

func TestSuggest(t *testing.T) {
	require.Equal(t, "PreToolUse", Suggest("PreToolUs"))
	require.Equal(t, "PreToolUse", Suggest("pretooluse"))
	require.Equal(t, "PostToolUse", Suggest("PostToolUsed"))
	require.Equal(t, "", Suggest("PreExecutionStart"))
	require.Equal(t, "", Suggest("Deploy"))
}

func TestLooksOpenEnded(t *testing.T) {
	require.True(t, LooksOpenEnded("PreGitCommit"))
	require.True(t, LooksOpenEnded("AfterDeploy"))
	require.False(t, LooksOpenEnded("Prefix"))
	require.False(t, LooksOpenEnded("Deploy"))
}

// The reference's 31 events, 2.1.330's two model-switch events and 2.1.332's
// PreSkillShellCommand are known, and a known name is never "corrected" into another
// (Setup once got "did you mean Stop?").
func TestClaudeCodeEventsAreKnown(t *testing.T) {
	names := []string{"SessionStart", "Setup", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse",
		"PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
		"Notification", "MessageDisplay", "SubagentStart", "SubagentStop", "TaskCreated", "TaskCompleted",
		"Stop", "StopFailure", "TeammateIdle", "InstructionsLoaded", "ConfigChange", "CwdChanged",
		"DirectoryAdded", "FileChanged", "WorktreeCreate", "WorktreeRemove", "PreCompact", "PostCompact",
		"Elicitation", "ElicitationResult", "SessionEnd", "PreModelSwitch", "PostModelSwitch", "PreSkillShellCommand"}
	require.Len(t, names, ClaudeCodeEvents)
	for i, n := range names {
		require.True(t, Lookup(n).Known, n)
		require.Equal(t, n, table[i].Name, "the table starts with the reference's events in its order")
	}
	for _, n := range Names() {
		require.Equal(t, Canonical(n), Suggest(n), "a known name suggests only itself")
	}
	require.Equal(t, "Setup", Suggest("setup"))
	require.Equal(t, "TaskCreated", Suggest("TaskCreatd"))
}

// The reference's "exit code 2 behavior per event" table, as flags.
func TestBlockingRules(t *testing.T) {
	blocks := []string{"PreToolUse", "PermissionRequest", "UserPromptSubmit", "UserPromptExpansion", "Stop",
		"SubagentStop", "TeammateIdle", "TaskCreated", "TaskCompleted", "ConfigChange", "PostToolBatch",
		"PreCompact", "Elicitation", "ElicitationResult", "WorktreeCreate", "PreModelSwitch", "PreSkillShellCommand"}
	for _, n := range blocks {
		require.True(t, Lookup(n).CanBlock, n)
	}
	for _, n := range []string{"StopFailure", "PermissionDenied", "Notification", "SubagentStart", "SessionStart",
		"Setup", "SessionEnd", "CwdChanged", "DirectoryAdded", "FileChanged", "PostCompact", "WorktreeRemove",
		"InstructionsLoaded", "MessageDisplay", "PostToolUse", "PostToolUseFailure", "PostModelSwitch"} {
		require.False(t, Lookup(n).CanBlock, n)
	}
	require.True(t, Lookup("StopFailure").OutputIgnored)
	require.True(t, Lookup("InstructionsLoaded").ExitIgnored)
	require.True(t, Lookup("InstructionsLoaded").OutputIgnored, "Claude Code 2.1.330 discards its systemMessage and continue")
	require.True(t, Lookup("PermissionDenied").ExitIgnored)
	require.True(t, Lookup("WorktreeCreate").AnyNonZeroBlocks)
	require.True(t, Lookup("PermissionRequest").DecisionObject)
	require.False(t, Lookup("ConfigChange").Blocks("policy_settings"))
	require.True(t, Lookup("ConfigChange").Blocks("project_settings"))
	require.Equal(t, ".envrc", Lookup("FileChanged").SubjectOf("/p/.envrc"))
	require.True(t, Lookup("FileChanged").NarrowNames && Lookup("StopFailure").NarrowNames)
	// Claude Code 2.1.330 matches the model-switch events on the resolved target model.
	require.Equal(t, []string{"to_model"}, Lookup("PreModelSwitch").Subject)
	require.Equal(t, []string{"to_model"}, Lookup("PostModelSwitch").Subject)
	// Claude Code 2.1.332 matches PreSkillShellCommand on the shell tool's name, and a skill's
	// command cannot wait for an ask.
	require.Equal(t, []string{"tool_name"}, Lookup("PreSkillShellCommand").Subject)
	require.True(t, Lookup("PreSkillShellCommand").AskBlocks)
	require.False(t, Lookup("PreToolUse").AskBlocks)
}
