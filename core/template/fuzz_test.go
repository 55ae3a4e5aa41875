package template

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzEscapeProperty is the escaper's contract for fuzzed values: in every supported shell
// context (bare, quoted, inside $(...), assignments, after a heredoc, ...) and in the exec
// forms, `sh -c` (and bash) of the expansion hands the value through unchanged and runs
// nothing of it (a PWNED file never appears). Under plain go test only the seeds run.
func FuzzEscapeProperty(f *testing.F) {
	// TestEscapeProperty runs every hostile value already; a few seeds keep go test quick.
	for _, v := range []string{
		"", "'", `"`, `\`, `\'`, `'"'"'`, "$(touch PWNED)", "`touch PWNED`", "; touch PWNED",
		"a\nb\n", "$HOME", "*", "-n", "héllo", "\x01\x7f\xff",
	} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if strings.IndexByte(v, 0) >= 0 {
			t.Skip("a NUL cannot be passed in argv")
		}
		dir := t.TempDir()
		for _, sc := range shellCases {
			checkShell(t, dir, sc.script(1), []string{v}, []string{sc.want(v)})
		}
		checkExec(t, dir, []string{v})
	})
}

// FuzzCompile compiles arbitrary command templates. Properties: Compile never panics and
// fails only with ErrEmpty or ErrUnsafe; a compiled command renders any value; and a value
// never breaks the script's syntax: if the script is valid shell with a harmless value, it
// is valid shell with any value. Under plain go test only the seeds run.
func FuzzCompile(f *testing.F) {
	for _, s := range [][2]string{
		{"echo <<tool_name>>", "'"}, {`printf '%s' '<<a>>' "<<b>>"`, `"$(x)"`}, {"cat <<EOF\n<<x>>\nEOF", "y"},
		{"echo $'<<x>>'", "a"}, {`echo "unterminated <<x>>`, "b"}, {"jq . <<tool_args.file_path>> | grep -q x", "; rm -rf /"},
		{"FOO=<<v>> cmd {{ w }}", "\n"}, {"echo `<<x>>`", "`"}, {"echo $(echo '<<x>>')", "')"}, {"a # <<x>>", "\n"},
		{"echo ${X:-<<x>>}", "}"}, {"case <<x>> in a) ;; esac", "a)"}, {"   ", ""}, {"<<>>", "x"},
	} {
		f.Add(s[0], s[1])
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		f.Skip("no sh")
	}
	f.Fuzz(func(t *testing.T, command, v string) {
		c, err := Compile(command)
		if err != nil {
			require.True(t, errors.Is(err, ErrEmpty) || errors.Is(err, ErrUnsafe), "error %v", err)
			return
		}
		harmless := func(int) string { return "x" }
		value := func(int) string { return v }
		c.Argv(value)
		if c.Mode() == Direct {
			c.ShellArgv(value)
		}
		if c.Mode() != Shell || len(c.Placeholders()) == 0 || strings.IndexByte(command+v, 0) >= 0 || len(command) > 512 {
			return
		}
		if syntaxOK(sh, c.Argv(harmless)[2]) {
			script := c.Argv(value)[2]
			require.True(t, syntaxOK(sh, script), "value %q breaks the syntax of %q: %q", v, command, script)
		}
	})
}

// syntaxOK reports whether sh -n accepts script.
func syntaxOK(sh, script string) bool {
	return exec.Command(sh, "-n", "-c", script).Run() == nil
}
