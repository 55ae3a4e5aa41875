package match

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func mustCompile(tb testing.TB, pattern string) *Matcher {
	tb.Helper()
	m, err := Compile(pattern)
	require.NoError(tb, err, "pattern %q", pattern)
	return m
}

func TestClassify(t *testing.T) {
	tests := []struct {
		pattern string
		want    Kind
	}{
		{"", All},
		{"*", All},
		{"  *  ", All},
		{"   ", All},
		{"|", All},
		{" , | ", All},
		{"bash_execute", Names},
		{"Bash", Names},
		{"write_file|replace_in_file", Names},
		{"Bash | Edit", Names},
		{"Bash, Edit,Write", Names},
		{"kebab-case-tool", Names},
		{"builtin:bash_execute", Names},
		{"github:create_issue", Names},
		{"mcp__github__create_issue", Names},
		{"café|naïve", Names},
		{"builtin:*", Glob},
		{"mcp__*", Glob},
		{"mcp__github__*", Glob},
		{"github:*", Glob},
		{"fs_*", Glob},
		{"*_file", Glob},
		{"read_*_x", Glob},
		{"mcp__github__*|bash_execute", Glob},
		{"*|Bash", Glob},
		{"^Bash$", Regex},
		{"Edit|Write.*", Regex},
		{"mcp__.*__write", Regex},
		{"Notebook.", Regex},
		{"Bash\tEdit", Regex}, // only the space separates words inside a name
		{"a+", Regex},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			m := mustCompile(t, tt.pattern)
			require.Equal(t, tt.want, m.Kind())
			require.Equal(t, tt.pattern, m.String(), "String returns the pattern as given")
		})
	}
}

func TestKindString(t *testing.T) {
	require.Equal(t, "all", All.String())
	require.Equal(t, "names", Names.String())
	require.Equal(t, "glob", Glob.String())
	require.Equal(t, "regex", Regex.String())
	require.Equal(t, "Kind(9)", Kind(9).String())
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, subject string
		want             bool
	}{
		// All.
		{"", "bash_execute", true},
		{"", "", true},
		{"*", "mcp__github__create_issue", true},
		{" * ", "anything at all", true},
		{"|", "Bash", true},

		// Names: exact, case-sensitive, whole subject.
		{"bash_execute", "bash_execute", true},
		{"bash_execute", "bash_execute2", false},
		{"bash_execute", "bash", false},
		{"Bash", "bash", false},
		{"Bash", "", false},
		{"write_file|replace_in_file", "write_file", true},
		{"write_file|replace_in_file", "replace_in_file", true},
		{"write_file|replace_in_file", "read_file", false},
		{"write_file|replace_in_file", "write_file|replace_in_file", false},
		{"Bash | Edit", "Edit", true},
		{"Bash | Edit", "Bash", true},
		{"Bash | Edit", " Edit", false},
		{"Bash, Edit,Write", "Write", true},
		{"Bash||Edit", "", false},
		{"idle_prompt", "idle_prompt", true}, // event subject, not a tool
		{"café|naïve", "naïve", true},
		{"café|naïve", "cafe", false},
		{"日本語", "日本語", true},

		// Names: tool identity across spellings.
		{"bash_execute", "builtin:bash_execute", true},
		{"builtin:bash_execute", "bash_execute", true},
		{"builtin:bash_execute", "builtin:bash_execute", true},
		{"builtin:bash_execute", "builtin:read_file", false},
		{"mcp__github__create_issue", "mcp__github__create_issue", true},
		{"mcp__github__create_issue", "github:create_issue", true},
		{"github:create_issue", "mcp__github__create_issue", true},
		{"github:create_issue", "github:create_issue", true},
		{"github:create_issue", "gitlab:create_issue", false},
		{"create_issue", "mcp__github__create_issue", false}, // a bare name is a built-in
		{"create_issue", "github:create_issue", false},
		{"bash_execute", "mcp__shell__bash_execute", false},
		{"mcp__srv__tool__with__underscores", "srv:tool__with__underscores", true},

		// Glob: builtin:*.
		{"builtin:*", "bash_execute", true},
		{"builtin:*", "builtin:bash_execute", true},
		{"builtin:*", "Bash", true},
		{"builtin:*", "mcp__github__create_issue", false},
		{"builtin:*", "github:create_issue", false},
		{"builtin:read_*", "read_file", true},
		{"builtin:read_*", "builtin:read_file", true},
		{"builtin:read_*", "write_file", false},
		{"builtin:read_*", "mcp__fs__read_file", false},

		// Glob: mcp__* and one server's tools, either spelling.
		{"mcp__*", "mcp__github__create_issue", true},
		{"mcp__*", "github:create_issue", true},
		{"mcp__*", "bash_execute", false},
		{"mcp__*", "builtin:bash_execute", false},
		{"mcp__*", "", false},
		{"mcp__github__*", "mcp__github__create_issue", true},
		{"mcp__github__*", "github:create_issue", true},
		{"mcp__github__*", "mcp__gitlab__create_issue", false},
		{"mcp__github__*", "gitlab:create_issue", false},
		{"mcp__github__*", "mcp__githubx__create_issue", false},
		{"mcp__*__write", "fs:write", true},
		{"mcp__*__write", "mcp__fs__write", true},
		{"mcp__*__write", "mcp__fs__read", false},
		{"github:*", "github:create_issue", true},
		{"github:*", "mcp__github__create_issue", true},
		{"github:*", "gitlab:create_issue", false},
		{"github:*", "bash_execute", false},
		{"*:create_issue", "mcp__gitlab__create_issue", true},
		{"*:create_issue", "create_issue", false},

		// Glob: plain "*" wildcards against raw or canonical spelling.
		{"fs_*", "fs_read", true},
		{"fs_*", "fs_", true},
		{"fs_*", "builtin:fs_read", true},
		{"fs_*", "xfs_read", false},
		{"*_file", "write_file", true},
		{"*_file", "builtin:write_file", true},
		{"*_file", "mcp__fs__read_file", true},
		{"*_file", "fs:read_file", true},
		{"*_file", "write_files", false},
		{"read_*_x", "read__x", true},
		{"read_*_x", "read_big_x", true},
		{"read_*_x", "read_x", false}, // prefix and suffix may not overlap
		{"a*a*a", "aaa", true},
		{"a*a*a", "aa", false},
		{"a**b", "ab", true},
		{"*é*", "café", true},
		{"*é*", "cafe", false},
		{"Bash*", "", false},

		// Glob: alternatives mixing globs and exact names.
		{"mcp__github__*|bash_execute", "github:create_issue", true},
		{"mcp__github__*|bash_execute", "bash_execute", true},
		{"mcp__github__*|bash_execute", "builtin:bash_execute", true},
		{"mcp__github__*|bash_execute", "read_file", false},
		{"mcp__github__*|bash_execute", "bash_execute_x", false},
		{"fs_* | *_file", "write_file", true},
		{"fs_* , builtin:bash_*", "bash_run", true},
		{"*|Bash", "", true},

		// Regex: unanchored, case-sensitive, ECMAScript.
		{"^Bash$", "Bash", true},
		{"^Bash$", "BashX", false},
		{"^Bash$", "bash", false},
		{"Bash.", "MyBashX", true},
		{"Edit|Write.*", "Edit", true},
		{"Edit|Write.*", "MultiEdit", true},
		{"Edit|Write.*", "WriteFile", true},
		{"Edit|Write.*", "Read", false},
		{"mcp__.*__write", "mcp__fs__write_file", true},
		{"mcp__.*__write", "fs:write_file", true}, // canonical spelling is tried too
		{"mcp__.*__write", "mcp__fs__read", false},
		{"^bash_execute$", "builtin:bash_execute", true},
		{"^builtin:", "builtin:bash_execute", true},
		{"^builtin:", "bash_execute", false},
		{"^$", "", true},
		{"^.$", "é", true}, // runes, not bytes
		{"^\\w+$", "café", false},
		{"caf.$", "café", true},
		{"(?:Read|Write)_file", "Write_file", true},
		{"(?<!x)file", "xfile", false},
		{"(?<!x)file", "afile", true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+"~"+tt.subject, func(t *testing.T) {
			m := mustCompile(t, tt.pattern)
			require.Equal(t, tt.want, m.Match(tt.subject), "kind %v", m.Kind())
		})
	}
}

// A pattern of exact names must agree with what the regex OR cli-agent documents it
// as would say for exact names.
func TestNamesAgreeWithAnchoredRegex(t *testing.T) {
	names := mustCompile(t, "write_file|replace_in_file")
	re := mustCompile(t, "^(?:write_file|replace_in_file)$")
	require.Equal(t, Names, names.Kind())
	require.Equal(t, Regex, re.Kind())
	for _, s := range []string{"write_file", "replace_in_file", "read_file", "write_files", "", "replace_in"} {
		require.Equal(t, re.Match(s), names.Match(s), "subject %q", s)
	}
}

func TestNilMatcherMatchesAll(t *testing.T) {
	var m *Matcher
	require.True(t, m.Match("anything"))
	require.Equal(t, All, m.Kind())
	require.Equal(t, "", m.String())
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		pattern string
		inline  bool // wraps ErrInlineFlags rather than a regexp2 parse error
	}{
		{"(?i)bash", true},
		{"(?i:bash)", true},
		{"(?s).", true},
		{"(?#comment)x", true},
		{"(?>atomic)", true},
		{"[", false},
		{"(unclosed", false},
		{"a)", false},
		{"x{2,1}", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			m, err := Compile(tt.pattern)
			require.Error(t, err)
			require.Nil(t, m)
			var me *Error
			require.ErrorAs(t, err, &me)
			require.Equal(t, tt.pattern, me.Pattern)
			require.True(t, strings.HasPrefix(err.Error(), "hookexec: match: "), err.Error())
			require.Contains(t, err.Error(), tt.pattern)
			require.Equal(t, tt.inline, errors.Is(err, ErrInlineFlags))
			require.NotNil(t, errors.Unwrap(err))
		})
	}
}

// "(?" inside a class or escaped is literal and must not be rejected.
func TestCompileLiteralParenQuestion(t *testing.T) {
	for _, p := range []string{`[(?i)]`, `\(?i\)x`, `(?:a)(?=b)(?!c)(?<=d)(?<!e)(?<n>f)`} {
		_, err := Compile(p)
		require.NoError(t, err, p)
	}
	require.True(t, mustCompile(t, `\(?i\)x`).Match("i)x"))
	require.True(t, mustCompile(t, `^[(?i)]$`).Match("?"))
}

func TestParseTool(t *testing.T) {
	tests := []struct {
		in        string
		want      Tool
		canonical string
	}{
		{"mcp__github__create_issue", Tool{MCP: true, Server: "github", Name: "create_issue"}, "mcp__github__create_issue"},
		{"github:create_issue", Tool{MCP: true, Server: "github", Name: "create_issue"}, "mcp__github__create_issue"},
		{"builtin:bash_execute", Tool{Name: "bash_execute"}, "bash_execute"},
		{"bash_execute", Tool{Name: "bash_execute"}, "bash_execute"},
		{"mcp__srv__tool__with__underscores", Tool{MCP: true, Server: "srv", Name: "tool__with__underscores"}, "mcp__srv__tool__with__underscores"},
		{"mcp__a___b", Tool{MCP: true, Server: "a", Name: "_b"}, "mcp__a___b"},
		{"srv:a:b", Tool{MCP: true, Server: "srv", Name: "a:b"}, "mcp__srv__a:b"},
		{"", Tool{}, ""},
		{"mcp__", Tool{Name: "mcp__"}, "mcp__"},
		{"mcp__github", Tool{Name: "mcp__github"}, "mcp__github"},
		{"mcp__github__", Tool{Name: "mcp__github__"}, "mcp__github__"},
		{"mcp____x", Tool{Name: "mcp____x"}, "mcp____x"},
		{"builtin:", Tool{Name: "builtin:"}, "builtin:"},
		{":x", Tool{Name: ":x"}, ":x"},
		{"x:", Tool{Name: "x:"}, "x:"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := ParseTool(tt.in)
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.canonical, got.Canonical())
			require.Equal(t, got, ParseTool(got.Canonical()), "canonical spelling parses back")
		})
	}
}

func TestCatastrophicRegexTimesOut(t *testing.T) {
	saved := MatchTimeout
	MatchTimeout = 10 * time.Millisecond
	t.Cleanup(func() { MatchTimeout = saved })

	m := mustCompile(t, `^(a+)+$`)
	start := time.Now()
	require.False(t, m.Match("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"))
	// A hang guard, not a speed test: unbounded, this backtracking takes hours.
	require.Less(t, time.Since(start), 10*time.Second)

	// The timeout is per Matcher: the same pattern still matches where it is fast.
	require.True(t, m.Match("aaaa"))
}

func TestDefaultMatchTimeout(t *testing.T) {
	require.Equal(t, time.Second, MatchTimeout)
	require.Equal(t, MatchTimeout, mustCompile(t, "a.b").re.MatchTimeout)
}

func TestConcurrentMatch(t *testing.T) {
	matchers := []*Matcher{
		mustCompile(t, "bash_execute|github:create_issue"),
		mustCompile(t, "mcp__github__*|builtin:read_*"),
		mustCompile(t, "^mcp__.*__create_issue$|Bash"),
	}
	subjects := map[string]bool{
		"bash_execute":              true,
		"builtin:read_file":         true,
		"github:create_issue":       true,
		"mcp__github__create_issue": true,
		"mcp__gitlab__list":         false,
		"write_file":                false,
	}
	for _, m := range matchers {
		want := make(map[string]bool, len(subjects))
		for s := range subjects {
			want[s] = m.Match(s)
		}
		var wg sync.WaitGroup
		errs := make(chan string, 16)
		for range 16 {
			wg.Go(func() {
				for range 200 {
					for s, w := range want {
						if m.Match(s) != w {
							errs <- m.String() + "~" + s
							return
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			require.Fail(t, "inconsistent concurrent match", e)
		}
	}
	// The table above holds for the glob matcher; check it so the test asserts behaviour.
	for s, w := range subjects {
		if s == "bash_execute" {
			continue // the glob matcher does not name bash_execute
		}
		require.Equal(t, w, matchers[1].Match(s), s)
	}
}

func TestZeroAllocNamesAndGlob(t *testing.T) {
	cases := []struct{ pattern, subject string }{
		{"write_file|replace_in_file|bash_execute", "builtin:bash_execute"},
		{"mcp__github__create_issue", "github:create_issue"},
		{"mcp__github__*|builtin:read_*", "github:create_issue"},
		{"*_file", "fs:read_file"},
		{"fs_*", "builtin:fs_read"},
	}
	for _, c := range cases {
		m := mustCompile(t, c.pattern)
		require.True(t, m.Match(c.subject))
		allocs := testing.AllocsPerRun(100, func() { m.Match(c.subject) })
		require.Zero(t, allocs, "%s ~ %s", c.pattern, c.subject)
	}
}

var sink bool

func BenchmarkMatchNames(b *testing.B) {
	m := mustCompile(b, "write_file|replace_in_file|bash_execute|mcp__github__create_issue")
	subjects := []string{"bash_execute", "builtin:read_file", "github:create_issue", "mcp__fs__write"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink = m.Match(subjects[i%len(subjects)])
	}
}

func BenchmarkMatchGlob(b *testing.B) {
	m := mustCompile(b, "mcp__github__*|builtin:read_*|*_file")
	subjects := []string{"bash_execute", "builtin:read_file", "github:create_issue", "mcp__fs__write"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink = m.Match(subjects[i%len(subjects)])
	}
}

func BenchmarkMatchRegex(b *testing.B) {
	m := mustCompile(b, "^mcp__.*__(write|create)_.*$|Edit|Write")
	subjects := []string{"bash_execute", "builtin:read_file", "github:create_issue", "mcp__fs__write"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink = m.Match(subjects[i%len(subjects)])
	}
}

// Claude Code 2.1.330 drops a [1m]/[2m] tag ending a model-switch matcher's alternative
// (case-insensitive, before "|", "," or the end) and keeps a pattern that would go blank.
func TestStripModelTags(t *testing.T) {
	for in, want := range map[string]string{
		"claude-opus-5-5[1m]":                     "claude-opus-5-5",
		"claude-opus-5-5[1M] | claude-sonnet-5-5": "claude-opus-5-5 | claude-sonnet-5-5",
		"a[2m],b[1m]":                             "a,b",
		"claude-.*[1m]x":                          "claude-.*[1m]x",
		"[1m]":                                    "[1m]",
		"claude-opus-5-5":                         "claude-opus-5-5",
	} {
		require.Equal(t, want, StripModelTags(in), in)
	}
	m, err := Compile(StripModelTags("claude-opus-5-5[1m]"))
	require.NoError(t, err)
	require.True(t, m.Match("claude-opus-5-5"))
}
