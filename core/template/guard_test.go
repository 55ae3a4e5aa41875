package template

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 16's review classes: each command ran an injected value as code (or let the
// check skip) before the allow-list. A shape is either refused at compile time or
// accepted with the value escaped for every shell it passes through; "safe" shapes are
// run with hostile values under the real shells to show it.
var codeShapes = []struct {
	command string
	want    string // "refuse": an ErrUnsafe naming <<x>>; "safe": compiles and runs the value as data; "compiles"
	reason  string // for refusals, a substring of the message
}{
	// options before or after the code flag
	{"bash -o pipefail -c 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"sh -c -e 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"bash -c -- 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"sh -ec 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"sh -c \"printf '%s\\0' <<x>>\"", "safe", ""},
	{"sh -c 'printf \"%s\\0\" \"<<x>>\"'", "safe", ""},
	{"sh -c \"printf '%s\\0' '<<x>>'\"", "safe", ""},
	{"sh -c 'sh -c \"printf \\\"%s\\\\0\\\" <<x>>\"'", "safe", ""},
	{"sh -c 'printf \"%s\\0\" <<x>>' sh", "safe", ""},
	{"sh -c 'printf \"%s\\0\" \"$1\"' sh <<x>>", "safe", ""},
	{"python3 -c 'import sys; print(sys.argv[1])' <<x>>", "compiles", ""},
	{"python3 -I check.py <<x>>", "compiles", ""},
	{"python3 \"$HOOKS/format.py\" <<x>>", "compiles", ""},
	{"bash \"$HOOKS/check.sh\" <<x>>", "compiles", ""},
	{"python3 $HOOKS/format.py <<x>>", "refuse", "python3"},
	{"bash $ARGS <<x>>", "refuse", "not a literal"},
	{"perl -e 'print @ARGV' -- <<x>>", "compiles", ""},
	{"python3 -W error -c 'pass' <<x>>", "refuse", "-W"},
	// quoted or escaped program names
	{"s'h' -c 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"\\sh -c 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"/bin/sh -c 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"$SHELL -c 'echo <<x>>'", "refuse", "not a literal"},
	{"\"$(command -v sh)\" -c 'echo <<x>>'", "refuse", "not a literal"},
	{"zsh -c 'echo <<x>>'", "refuse", "zsh"},
	{"fish -c 'echo <<x>>'", "refuse", "fish"},
	// wrappers
	{"timeout -s KILL 5 sh -c 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"timeout 5 python3 -c 'print(\"<<x>>\")'", "refuse", "python3"},
	{"nice -n 5 sh -c 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"env sh -c 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"env -i PATH=/usr/bin:/bin sh -c 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"env -S 'sh -c \"echo <<x>>\"'", "refuse", "env"},
	{"exec sh -c 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"command sh -c 'printf \"%s\\0\" <<x>>'", "safe", ""},
	{"flock /tmp/hookexec-lock sh -c 'echo <<x>>'", "refuse", "flock"},
	{"find . -maxdepth 0 -exec sh -c 'printf \"%s\\0\" <<x>>' \\;", "refuse", "find -exec"},
	{"find . -maxdepth 0 -exec python3 -c '<<x>>' \\;", "refuse", "find -exec"},
	{"script -qc 'echo <<x>>' /dev/null", "refuse", "script"},
	{"xargs sh -c 'echo <<x>>'", "refuse", "xargs"},
	{"sudo -u nobody sh -c 'echo <<x>>'", "refuse", "sudo"},
	{"ssh host <<x>>", "refuse", "ssh"},
	{"watch <<x>>", "refuse", "watch"},
	{"npx -c <<x>>", "refuse", "npx"},
	{"npx --yes prettier --write <<x>>", "compiles", ""},
	{"npx sh -c 'printf \"%s\\0\" <<x>>'", "compiles", ""},
	// interpreter spellings
	{"python3.11 -c 'print(\"<<x>>\")'", "refuse", "python3.11"},
	{"python3 -Ic 'print(\"<<x>>\")'", "refuse", "python3"},
	{"python3 -c'print(\"<<x>>\")'", "refuse", "python3"},
	{"python -m <<x>>", "refuse", "python"},
	{"perl -le 'print \"<<x>>\"'", "refuse", "perl"},
	{"perl5.36 -e 'print \"<<x>>\"'", "refuse", "perl5.36"},
	{"node -pe '\"<<x>>\"'", "refuse", "node"},
	{"ruby -e 'puts \"<<x>>\"'", "refuse", "ruby"},
	{"php -r 'echo \"<<x>>\";'", "refuse", "php"},
	{"awk 'BEGIN { print \"<<x>>\" }'", "refuse", "awk"},
	{"gawk -v v=1 '{ print \"<<x>>\" }' f", "refuse", "gawk"},
	{"mawk '<<x>>'", "refuse", "mawk"},
	{"busybox awk '<<x>>'", "refuse", "busybox"},
	{"sed 's/a/<<x>>/' f", "refuse", "sed"},
	{"sed -n -e 's/a/<<x>>/p' f", "refuse", "sed"},
	{"jq -n '<<x>>'", "refuse", "jq"},
	{"osascript -e '<<x>>'", "refuse", "osascript"},
	{"eval \"echo <<x>>\"", "refuse", "eval"},
	{"source <<x>>", "refuse", "source"},
	{". <<x>>", "refuse", "."},
	{"bash <<x>>", "refuse", "bash"},
	{"python3 <<x>>", "refuse", "python3"},
	{"trap 'echo <<x>>' EXIT", "refuse", "trap"},
	{"alias a=<<x>>", "refuse", "alias"},
	{"declare -i n=<<x>>", "refuse", "declare"},
	{"export BASH_ENV=<<x>>", "refuse", "export"},
	{"let n=<<x>>", "refuse", "arithmetic"},
	{"[ <<x>> -eq 1 ]", "refuse", "arithmetic"},
	{"[[ <<x>> -eq 1 ]]", "refuse", "arithmetic"},
	{"test -v <<x>>", "refuse", "-v"},
	{"printf -v <<x>> %s a", "refuse", "printf -v"},
	{"unset <<x>>", "refuse", "unset"},
	{"read <<x>>", "refuse", "read"},
	{"f() { eval \"$1\"; }; f <<x>>", "refuse", "function"},
	{"make <<x>>", "refuse", "make"},
	// a value piped into a shell read some other way
	{"echo <<x>> | sh", "refuse", "piped"},
	{"echo <<x>> | bash /dev/stdin", "refuse", "piped"},
	{"echo <<x>> | . /proc/self/fd/0", "refuse", "piped"},
	{"echo <<x>> | { sh; }", "refuse", "piped"},
	{"echo <<x>> | (sh)", "refuse", "piped"},
	{"echo <<x>> | grep a | sh -s", "refuse", "piped"},
	{"echo <<x>> | xargs rm", "refuse", "piped"},
	{"echo <<x>> |& python3", "refuse", "piped"},
	{"sh <<< <<x>>", "refuse", "standard input"},
	{"{ sh; } <<< <<x>>", "refuse", "standard input"},
	{"sh < <<x>>", "refuse", "standard input"},
	{"echo <<x>> > >(sh)", "refuse", ">(sh"},
	{"echo <<x>> | tee >(bash) >/dev/null", "refuse", ">(bash"},
	{"echo <<x>> | while read -r l; do $l; done", "refuse", "piped"},
	{"sh <(echo <<x>>)", "refuse", "sh"},
	// the value chooses the program, or the environment of one
	{"<<x>> arg", "refuse", "program"},
	{"cmd<<x>> arg", "refuse", "program"},
	{"echo $(<<x>>)", "refuse", "program"},
	{"$(printf %s <<x>>) arg", "refuse", "program"},
	{"FOO=<<x>> cmd", "refuse", "environment"},
	{"LD_PRELOAD=<<x>> ls", "refuse", "environment"},
	{"env GIT_SSH_COMMAND=<<x>> git fetch", "refuse", "environment"},
	{"a[<<x>>]=1", "refuse", ""},
	// a command the parser cannot read
	{"echo <<x>> )", "refuse", "cannot be parsed"},
	{"echo <<x>>; fi", "refuse", "cannot be parsed"},
	{"sh -c 'echo <<x>> )'", "refuse", "cannot be parsed"},
	// nested scripts are checked like the outer one
	{"sh -c 'eval <<x>>'", "refuse", "eval"},
	{"bash -c 'python3 -c \"<<x>>\"'", "refuse", "python3"},
	{"sh -c 'echo <<x>> | sh'", "refuse", "piped"},
	{"sh -c 'echo $'\\''<<x>>'\\'''", "refuse", "$'...'"},
	{"sh -c 'cat <<EOF\n<<x>>\nEOF'", "refuse", "here-document"},
	{"sh -c \"echo $HOME <<x>>\"", "refuse", "not a literal"},
	// heredoc delimiter with a backslash-newline: the delimiter is unquoted EOF
	{"cat <<EO\\\nF\na\\\nEOF\necho <<x>>\nEOF", "refuse", "here-document"},
	{"cat <<\\\nEOF\nx\\\nEOF\necho <<x>>\nEOF", "refuse", "here-document"},
	{"cat <\\\n<EOF\n<<x>>\nEOF", "refuse", "here-document"},
	// attack round: wrappers and spellings not tried above
	{"nohup sh -c 'eval <<x>>'", "refuse", "eval"},
	{"stdbuf -o0 sh -c 'eval <<x>>'", "refuse", "eval"},
	{"setsid sh -c 'eval <<x>>'", "refuse", "eval"},
	{"exec -a foo sh -c 'eval <<x>>'", "refuse", "eval"},
	{"bash --rcfile <<x>> -i", "refuse", "--rcfile"},
	{"echo <<x>> | sudo sh", "refuse", "piped"},
	{"echo <<x>> | env sh", "refuse", "piped"},
	{"mapfile -t a <<< <<x>>; \"${a[@]}\"", "refuse", "standard input"},
	{"exec {fd}<<<<<x>>", "refuse", "standard input"},
	{"getopts a <<x>>", "refuse", "getopts"},
	{"bash -c 'x=$1; eval \"$x\"' sh <<x>>", "refuse", "eval"},
	{`sh -c 'sh -c "eval \"\$1\"" sh "$1"' sh <<x>>`, "refuse", "eval"},
	{"git -c core.sshCommand=<<x>> fetch", "refuse", "git -c"},
	{"git -c <<x>> fetch", "refuse", "git -c"},
	{"tar --to-command=<<x>> -xf a.tar", "refuse", "tar --to-command"},
	{"tar -I <<x>> -xf a.tar", "refuse", "tar -I"},
	{"rsync -e <<x>> a b:c", "refuse", "rsync -e"},
	{"rsync -e<<x>> a b:c", "refuse", "rsync -e"},
	{"git log -- <<x>>", "compiles", ""},
	{"tar -tf <<x>>", "compiles", ""},
	{`sh -c 'F=$1; bash -c "eval \"\$1\"" sh "$F"' sh <<x>>`, "refuse", "eval"},
	{`sh -c 'sh -c "printf \"%s\\\\0\" \"\$1\"" sh "$1"' sh <<x>>`, "safe", ""},
}

func TestCodeShapes(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range codeShapes {
		t.Run(tt.command, func(t *testing.T) {
			c, err := Compile(tt.command)
			if tt.want == "refuse" {
				require.Error(t, err, "compiled: %v", c)
				require.ErrorIs(t, err, ErrUnsafe)
				var te *Error
				require.True(t, errors.As(err, &te))
				require.Equal(t, "<<x>>", te.Placeholder)
				require.Equal(t, strings.Index(tt.command, "<<x>>"), te.Offset)
				require.Contains(t, err.Error(), tt.reason)
				require.NotContains(t, err.Error(), "HOOKEXECPH", "a reason names a value by its placeholder")
				return
			}
			require.NoError(t, err)
			if tt.want == "compiles" {
				return // the program is not run here: its arguments are data like a script file's
			}
			for _, v := range hostile {
				checkShell(t, dir, tt.command, []string{v}, []string{v})
			}
		})
	}
}

// Refusals in exec form: the words are the argv; there is no outer shell.
func TestCodeShapesArgs(t *testing.T) {
	for _, args := range [][]string{
		{"python3.11", "-c", "print('<<x>>')"},
		{"python3", "-Ic", "<<x>>"},
		{"perl", "-le", "<<x>>"},
		{"node", "-pe", "<<x>>"},
		{"timeout", "-s", "KILL", "5", "sh", "-c", "eval <<x>>"},
		{"env", "-S", "sh -c <<x>>"},
		{"find", ".", "-exec", "sh", "-c", "eval <<x>>", ";"},
		{"<<x>>", "a"},
		{"sh", "-c", "echo <<x>> )"},
		{"awk", "<<x>>"},
		{"xargs", "<<x>>"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, err := CompileArgs(args)
			require.ErrorIs(t, err, ErrUnsafe)
			var te *Error
			require.True(t, errors.As(err, &te))
			require.Equal(t, "<<x>>", te.Placeholder)
		})
	}
}

// In exec form a nested sh -c script is escaped for the one shell it passes through.
func TestArgsNestedShell(t *testing.T) {
	dir := t.TempDir()
	c, err := CompileArgs([]string{"sh", "-c", `printf '%s\0' <<x>> "<<x>>"`})
	require.NoError(t, err)
	for _, v := range hostile {
		require.Equal(t, joinNUL([]string{v, v}), run(t, dir, c.Argv(values(v))))
	}
}

// Every refused placeholder is reported, not only the first.
func TestAllRefusalsReported(t *testing.T) {
	_, err := Compile("awk <<a>>; echo ok <<b>>; python3 -c <<c>>")
	require.ErrorIs(t, err, ErrUnsafe)
	var list Errors
	require.True(t, errors.As(err, &list), "%T", err)
	require.Len(t, list, 2)
	require.Equal(t, "<<a>>", list[0].Placeholder)
	require.Equal(t, "<<c>>", list[1].Placeholder)
	var first *Error
	require.True(t, errors.As(err, &first))
	require.Equal(t, "<<a>>", first.Placeholder)
}

// The option rule: a value at the start of an argument word must not start with -,
// unless a literal -- comes before it in its command.
func TestOptionRule(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		command string
		args    []string
		refused bool // a value "-cpuprofile=/x" is refused at render time
	}{
		{command: "gofmt -l <<x>>", refused: true},
		{command: "git diff --stat <<x>>", refused: true},
		{command: "git diff --stat '<<x>>'", refused: true},
		{command: "git diff --stat \"<<x>>\"", refused: true},
		{command: "cat <<x>>.txt", refused: true},
		{command: "echo \"$(printf %s <<x>>)\"", refused: true},
		{command: "sh -c 'gofmt -l <<x>>'", refused: true},
		{command: "timeout 5 gofmt -l <<x>>", refused: true},
		{args: []string{"gofmt", "-l", "<<x>>"}, refused: true},
		{command: "git diff --stat -- <<x>>"},
		{command: "echo --file=<<x>>"},
		{command: "echo a<<x>>"},
		{command: "cat > <<x>>"},
		{command: "case <<x>> in -*) echo dash;; esac"},
		{command: "X=<<x>>; printf '%s\\n' \"$X\""},
		{command: "echo a # <<x>>"},
		{args: []string{"git", "add", "--", "<<x>>"}},
		{args: []string{"prog", "--f=<<x>>"}},
	}
	for _, tt := range tests {
		name := tt.command
		if tt.args != nil {
			name = strings.Join(tt.args, " ")
		}
		t.Run(name, func(t *testing.T) {
			var c *Command
			var err error
			if tt.args != nil {
				c, err = CompileArgs(tt.args)
			} else {
				c, err = Compile(tt.command)
			}
			require.NoError(t, err)
			_, err = c.Render(values("-cpuprofile=" + filepath.Join(dir, "x")))
			if !tt.refused {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrValue)
			var ve *ValueError
			require.True(t, errors.As(err, &ve))
			require.Equal(t, "x", ve.Placeholder)
			require.Contains(t, err.Error(), "starts with -")
			_, err = c.Render(values("ok-file"))
			require.NoError(t, err)
			_, err = c.Render(values(" -x"))
			require.NoError(t, err)
		})
	}
}

// The option rule shown end to end: the refused value never reaches the program, which
// would otherwise have written the file the option names.
func TestOptionRuleStopsTheWrite(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "written")
	c, err := Compile("git diff --no-index --stat <<x>> /dev/null")
	require.NoError(t, err)
	_, err = c.Render(values("--output=" + out))
	require.ErrorIs(t, err, ErrValue)
	_, statErr := os.Stat(out)
	require.True(t, os.IsNotExist(statErr))
}

// Values that cannot be passed to a process are refused with a clear error instead of
// letting the exec fail (and the guard not run).
func TestRenderRefusesUnpassableValues(t *testing.T) {
	for _, tt := range []struct {
		command string
		args    []string
		value   string
		want    string
	}{
		{command: "echo <<x>>", value: "a\x00b", want: "NUL"},
		{args: []string{"echo", "<<x>>"}, value: "a\x00b", want: "NUL"},
		{command: "black -- <<x>>", value: "a\x00b", want: "NUL"},
		{command: "echo <<x>>", value: strings.Repeat("a", MaxArg-5), want: "argument limit"},
		{args: []string{"echo", "<<x>>"}, value: strings.Repeat("a", MaxArg+1), want: "argument limit"},
		{args: []string{"echo", "<<x>>"}, value: strings.Repeat("a", MaxArg)}, // the longest that passes
		{command: "echo a # <<x>>", value: "a\x00b"},                          // dropped in a comment: nothing to pass
	} {
		var c *Command
		var err error
		if tt.args != nil {
			c, err = CompileArgs(tt.args)
		} else {
			c, err = Compile(tt.command)
		}
		require.NoError(t, err)
		argv, err := c.Render(values(tt.value))
		if tt.want == "" {
			require.NoError(t, err)
			continue
		}
		require.ErrorIs(t, err, ErrValue, "%q", tt.command)
		require.Contains(t, err.Error(), tt.want)
		require.Contains(t, err.Error(), "<<x>>")
		require.Nil(t, argv)
	}
}

// Variables that hold values are followed to where they are used (issue 16): the use must
// be an allowed context too, and a nested script's positional parameters hold the values
// given after it.
func TestVariablesHoldingValues(t *testing.T) {
	for _, tt := range []struct {
		command string
		refused bool
	}{
		{"F=<<x>>; eval \"$F\"", true},
		{"F=<<x>>; G=$F; eval \"$G\"", true},
		{"F=<<x>>; echo \"$F\" | sh", true},
		{"F=<<x>>; sh -c \"echo $F\"", true},
		{"F=<<x>>; echo \"${!F}\"", true},
		{"for f in <<x>>; do eval \"$f\"; done", true},
		{"sh -c 'eval \"$1\"' sh <<x>>", true},
		{"sh -c 'echo \"$@\" | sh' sh <<x>>", true},
		{"bash -c 'python3 -c \"$1\"' bash <<x>>", true},
		{"F=<<x>>; printf '%s\\n' \"$F\"", false},
		{"F=<<x>>; cat -- \"$F\" > \"$F.out\"", false},
		{"for f in <<x>>; do echo \"$f\"; done", true},
		{"sh -c 'printf \"%s\\n\" \"$1\"' sh <<x>>", false},
	} {
		t.Run(tt.command, func(t *testing.T) {
			_, err := Compile(tt.command)
			if tt.refused {
				require.ErrorIs(t, err, ErrUnsafe)
			} else {
				require.NoError(t, err)
			}
		})
	}
	// A value reaching an option through a variable is refused like a direct one.
	c, err := Compile("F=<<x>>; gofmt -l \"$F\"")
	require.NoError(t, err)
	_, err = c.Render(values("-cpuprofile=x"))
	require.ErrorIs(t, err, ErrValue)
}
