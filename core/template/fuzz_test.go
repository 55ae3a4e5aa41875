package template

import (
	"strings"
	"testing"
)

// FuzzEscapeProperty runs the escaping property for fuzzed values in the bare, single-
// and double-quoted contexts. Under plain go test only the seeds run.
func FuzzEscapeProperty(f *testing.F) {
	for _, v := range []string{
		"", "'", `"`, `\`, `\'`, `'"'"'`, "$(touch PWNED)", "`touch PWNED`", "; touch PWNED",
		"a\nb\n", "$HOME", "*", "-n", "héllo", "\x01\x7f\xff",
	} {
		f.Add(v)
	}
	cases := []string{"bare", "single", "double"}
	f.Fuzz(func(t *testing.T, v string) {
		if strings.IndexByte(v, 0) >= 0 {
			t.Skip("a NUL cannot be passed in argv")
		}
		dir := t.TempDir()
		for _, sc := range shellCases {
			for _, name := range cases {
				if sc.name == name {
					checkShell(t, dir, sc.script(1), []string{v}, []string{sc.want(v)})
				}
			}
		}
	})
}
