package template

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzEscapeProperty is the escaper's contract for fuzzed values: in every supported shell
// context (bare, quoted, inside $(...), assignments, after a heredoc, nested sh -c scripts
// escaped for both shells, wrappers, ...) and in the exec forms, `sh -c` (and
// bash) of the expansion hands the value through unchanged and runs nothing of it (a
// PWNED file never appears); and a value never arrives as an option: where it would start
// an argument, Render refuses a value starting with -, and after -- it arrives as it is.
// Under plain go test only the seeds run.
func FuzzEscapeProperty(f *testing.F) {
	// TestEscapeProperty runs every hostile value already; a few seeds keep go test quick.
	for _, v := range []string{
		"", "'", `"`, `\`, `\'`, `'"'"'`, "$(touch PWNED)", "`touch PWNED`", "; touch PWNED",
		"a\nb\n", "$HOME", "*", "-n", "héllo", "\x01\x7f\xff",
		"-cpuprofile=/tmp/hookexec-fuzz-cpu", "--output=x", "-", "--", "-e \\n", " -x",
		`'; touch PWNED; '`, `\'; touch PWNED; \'`, `"; touch PWNED; "`, `\"; touch PWNED; \"`,
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
		checkOptions(t, dir, v)
	})
}

// checkOptions renders commands that pass v to a program (the test binary, which prints
// its arguments) at the start of an argument, directly and through a nested shell: a
// value starting with - is refused by Render, any other arrives as one argument; after
// a literal -- every value arrives.
func checkOptions(t testing.TB, dir, v string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, tt := range []struct {
		command string
		args    []string
		guarded bool // a -- comes first: nothing is refused
	}{
		{command: "'" + exe + "' -l <<v>>"},
		{command: "'" + exe + "' -l \"<<v>>\""},
		{command: "sh -c '" + exe + " -l <<v>>'"},
		{command: "sh -c \"'" + exe + "' -l '<<v>>'\""},
		{args: []string{exe, "-l", "<<v>>"}},
		{command: "'" + exe + "' -l -- <<v>>", guarded: true},
		{args: []string{exe, "-l", "--", "<<v>>"}, guarded: true},
	} {
		var c *Command
		if tt.args != nil {
			c, err = CompileArgs(tt.args)
		} else {
			c, err = Compile(tt.command)
		}
		require.NoError(t, err, tt.command)
		argv, err := c.Render(values(v))
		if !tt.guarded && strings.HasPrefix(v, "-") {
			require.ErrorIs(t, err, ErrValue, "%q with %q", tt.command, v)
			continue
		}
		require.NoError(t, err)
		want := []string{"-l", v}
		if tt.guarded {
			want = []string{"-l", "--", v}
		}
		require.Equal(t, joinNUL(want), run(t, dir, argv), "%q with %q", tt.command, v)
	}
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
		{"cat <<EO\\\nF\na\\\nEOF\necho <<x>>\nEOF", "$(touch PWNED)"},
		{"F=<<x>>; G=$F; printf %s \"$G\"", "$(touch PWNED)"}, {"sh -c 'printf %s \"$1\"' sh <<x>>", "'; touch PWNED"},
	} {
		f.Add(s[0], s[1])
	}
	// Every class of issue 16, with a value that would run if the check let it through.
	for _, tt := range codeShapes {
		f.Add(tt.command, `'"; touch PWNED; echo "'`)
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
			// The same commands, words and expansions at every shell level, whatever v.
			// (mvdan.cc/sh rejects invalid UTF-8, which sh takes as bytes: those values
			// are checked by the syntax property above only.)
			want, ok := shape(c.Argv(harmless)[2], 0)
			if ok && utf8.ValidString(v) {
				got, _ := shape(script, 0)
				require.Equal(t, want, got, "value %q changes the structure of %q: %q", v, command, script)
			}
		}
	})
}

// shape is the structure of a script as mvdan.cc/sh parses it: its nodes except literal
// and quoted text, with the shape of every literal sh/bash -c script nested in it. An
// escaped value only changes text, never the shape.
func shape(script string, depth int) (string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil || depth > maxDepth {
		return "", false
	}
	var b strings.Builder
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted, *syntax.Word, nil:
			return true
		case *syntax.CallExpr:
			b.WriteString("Call(")
			for i, w := range x.Args {
				if lit, ok := unquoteWord(w); ok && i > 0 && posixShells[baseName(firstWord(x))] && i == scriptIndex(x) {
					inner, _ := shape(lit, depth+1)
					b.WriteString("[" + inner + "]")
				}
			}
			b.WriteString(")")
		default:
			fmt.Fprintf(&b, "%T ", n)
		}
		return true
	})
	return b.String(), true
}

func firstWord(x *syntax.CallExpr) string {
	if len(x.Args) == 0 {
		return ""
	}
	w, _ := unquoteWord(x.Args[0])
	return w
}

// scriptIndex is the index of the -c script of a shell's words, or -1.
func scriptIndex(x *syntax.CallExpr) int {
	cmd := false
	for i := 1; i < len(x.Args); i++ {
		w, ok := unquoteWord(x.Args[i])
		if !ok {
			return -1
		}
		if w == "--" || !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+") {
			if cmd {
				if w == "--" {
					return i + 1
				}
				return i
			}
			return -1
		}
		if strings.HasPrefix(w, "-") && strings.Contains(w, "c") {
			cmd = true
		}
		i += strings.Count(w[1:], "o")
	}
	return -1
}

// syntaxOK reports whether sh -n accepts script.
func syntaxOK(sh, script string) bool {
	return exec.Command(sh, "-n", "-c", script).Run() == nil
}
