package match

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/vocab"
)

// TestVocabulary: one guard written for one agent selects the same tool however another
// agent spells it, and only the same tool.
func TestVocabulary(t *testing.T) {
	tests := []struct {
		agent, pattern string
		match, miss    []string
	}{
		{vocab.Claude, "Bash", []string{"Bash", "run_shell_command", "shell", "exec_command", "Shell", "bash", "execute_command", "Execute", "execute_bash", "bash_execute", "run_command"}, []string{"Edit", "write_file", "PowerShell", "bash_it"}},
		{vocab.Claude, "Edit|Write", []string{"replace", "write_file", "apply_patch", "create", "Create", "write_to_file", "replace_in_file", "edit"}, []string{"read_file", "run_shell_command"}},
		{vocab.Claude, "^(Read|Grep)$", []string{"read_file", "view", "grep_search", "search_files"}, []string{"write_file"}},
		{vocab.Claude, "Web*", []string{"web_fetch", "google_web_search", "FetchUrl"}, []string{"read_file"}},
		{vocab.Gemini, "run_shell_command", []string{"Bash", "shell", "execute_command"}, []string{"Edit"}},
		{vocab.Gemini, "run_shell.*", []string{"Bash", "Shell"}, []string{"replace"}},
		// Codex sends "Bash" (0.169); matchers written with its other spellings still select it.
		{vocab.Codex, "shell", []string{"Bash", "run_shell_command", "exec_command"}, []string{"apply_patch"}},
		{vocab.Codex, "exec_command|apply_patch", []string{"Bash", "replace"}, []string{"read_file"}},
		{vocab.Autohand, "read", []string{"read_file", "Read", "view"}, []string{"Bash"}}, // autohand's regex: "read" in read_file
	}
	for _, tt := range tests {
		compile := Compile
		if tt.agent == vocab.Autohand {
			compile = CompileRegex // autohand's matchers are always regexes
		}
		m, err := compile(tt.pattern)
		require.NoError(t, err)
		plain, _ := compile(tt.pattern)
		m.Vocabulary(tt.agent)
		for _, s := range tt.match {
			require.True(t, m.Match(s), "%s %q should match %q", tt.agent, tt.pattern, s)
		}
		for _, s := range tt.miss {
			require.False(t, m.Match(s), "%s %q should not match %q", tt.agent, tt.pattern, s)
		}
		// Without the vocabulary only the literal spelling matches (the old behaviour).
		require.False(t, plain.Match("execute_command") && tt.pattern == "Bash")
	}
	var nilM *Matcher
	require.Nil(t, nilM.Vocabulary(vocab.Claude))
	require.True(t, nilM.Match("anything"))
}

func TestRuleVocabulary(t *testing.T) {
	require.True(t, ruleMatch(t, "Bash(rm *)", "run_shell_command", `{"command":"rm -rf /"}`))
	require.True(t, ruleMatch(t, "Bash(rm *)", "execute_command", `{"command":"rm -rf /"}`))
	require.False(t, ruleMatch(t, "Bash(rm *)", "read_file", `{"command":"rm -rf /"}`))
	require.True(t, ruleMatch(t, "Edit(*.ts)", "replace", `{"file_path":"/proj/a.ts"}`))
	require.False(t, ruleMatch(t, "Edit(*.ts)", "read_file", `{"file_path":"/proj/a.ts"}`))
}

func TestVocabularyDoesNotAllocate(t *testing.T) {
	for _, c := range []struct{ pattern, subject string }{
		{"Bash", "run_shell_command"}, {"Bash", "read_file"}, {"Edit|Write", "mcp__fs__write"}, {"Read|Grep", "view"}, {"Web*", "web_fetch"},
	} {
		m := mustCompile(t, c.pattern).Vocabulary(vocab.Gemini)
		allocs := testing.AllocsPerRun(100, func() { m.Match(c.subject) })
		require.Zero(t, allocs, "%s ~ %s", c.pattern, c.subject)
	}
}

// BenchmarkMatchVocabulary is BenchmarkMatchNames's matcher with the vocabulary on, over
// subjects that mostly miss (the common case of a fire): compare the two for its cost.
func BenchmarkMatchVocabulary(b *testing.B) {
	m := mustCompile(b, "write_file|replace_in_file|bash_execute|mcp__github__create_issue").Vocabulary(vocab.Claude)
	subjects := []string{"bash_execute", "builtin:read_file", "github:create_issue", "mcp__fs__write"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink = m.Match(subjects[i%len(subjects)])
	}
}
