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
