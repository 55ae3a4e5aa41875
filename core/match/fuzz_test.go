package match

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzCompile compiles arbitrary patterns and matches arbitrary subjects. Properties:
// neither panics; a compile error is an *Error naming the pattern; Match is deterministic;
// every exact name matches itself; a glob matches itself with its stars filled in by any
// text; and any subject, escaped as an ECMAScript literal, compiles to a regex that matches
// it. Under plain go test only the seeds run.
func FuzzCompile(f *testing.F) {
	for _, s := range [][2]string{
		{"", "Bash"}, {"*", ""}, {"Bash", "Bash"}, {"Edit|Write", "Write"}, {"Edit, MultiEdit", "MultiEdit"},
		{"mcp__*", "mcp__github__create_issue"}, {"mcp__github__*", "github:create_issue"},
		{"builtin:*", "bash_execute"}, {"builtin:bash_*", "builtin:bash_execute"}, {"github:*", "mcp__github__x"},
		{"^Bash$", "Bash"}, {"Edit|Write.*", "Writer"}, {"(a+)+$", strings.Repeat("a", 40) + "!"},
		{"(?i)bash", "BASH"}, {"[", "["}, {"\\", "x"}, {"(?<n>x)\\k<n>", "xx"}, {"|", "a"}, {"é|ü", "ü"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, subject string) {
		m, err := Compile(pattern)
		if err != nil {
			var me *Error
			require.True(t, errors.As(err, &me), "error %v is an *Error", err)
			require.Equal(t, pattern, me.Pattern)
		} else {
			first := m.Match(subject)
			if m.Kind() != Regex { // a regex may time out on one run and not the other
				require.Equal(t, first, m.Match(subject), "Match is deterministic")
			}
			if m.Kind() == All {
				require.True(t, first)
			}
			for part := range strings.FieldsFuncSeq(strings.TrimSpace(pattern), isSeparator) {
				part = strings.TrimSpace(part)
				switch {
				case part == "":
				case m.Kind() == Names:
					require.True(t, m.Match(part), "name %q of %q matches itself", part, pattern)
				case m.Kind() == Glob && !strings.Contains(part, ":"):
					filled := strings.ReplaceAll(part, "*", subject)
					require.True(t, m.Match(filled), "glob %q of %q matches %q", part, pattern, filled)
				}
			}
		}
		if _, err := CompileRegex(pattern); err != nil {
			var me *Error
			require.True(t, errors.As(err, &me), "error %v is an *Error", err)
		}
		lit, err := Compile("^" + ecmaQuote(subject) + "$")
		require.NoError(t, err, "an escaped literal compiles")
		require.Equal(t, Regex, lit.Kind())
		require.True(t, lit.Match(subject), "the literal %q matches itself", subject)
	})
}

// ecmaQuote escapes s for an ECMAScript regex so it matches itself literally.
func ecmaQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\^$.*+?()[]{}|/`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
