package template

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// echoEnv makes the test binary print its arguments, each followed by NUL: the program
// the Direct and Args property runs exec without a shell.
const echoEnv = "HOOKEXEC_TEMPLATE_ECHO"

func TestMain(m *testing.M) {
	if os.Getenv(echoEnv) == "1" {
		var b bytes.Buffer
		for _, a := range os.Args[1:] {
			b.WriteString(a)
			b.WriteByte(0)
		}
		os.Stdout.Write(b.Bytes())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func values(vs ...string) func(int) string { return func(i int) string { return vs[i] } }

func TestModeString(t *testing.T) {
	require.Equal(t, "shell", Shell.String())
	require.Equal(t, "direct", Direct.String())
	require.Equal(t, "args", Args.String())
	require.Equal(t, "Mode(9)", Mode(9).String())
}

func TestPlaceholderSyntax(t *testing.T) {
	tests := []struct {
		command string
		want    []string
	}{
		{"echo <<tool_name>>", []string{"tool_name"}},
		{"echo {{ tool_name }} {{tool_name}}", []string{"tool_name"}},
		{"echo <<a>> <<b.c[0]>> {{a}} <<files[0][1].x-y>>", []string{"a", "b.c[0]", "files[0][1].x-y"}},
		{"cat <<EOF\nhi\nEOF", nil},               // heredoc, no closer
		{"cat << EOF >> log\nhi\nEOF", nil},       // spaces only inside {{ }}
		{"echo <<1x>> <<a.>> <<a[]>> {{ }}", nil}, // bad exprs are literal
		{"cat <<<x>>> out", []string{"x"}},        // the innermost match
		{"awk '{{print $1}}'", nil},               // not an expr
		{"echo <<a>><<b>>{{c}}", []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			c, err := Compile(tt.command)
			require.NoError(t, err)
			require.Equal(t, tt.want, nilIfEmpty(c.Placeholders()))
			require.Equal(t, tt.command, c.Source())
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestPlaceholdersIsACopy(t *testing.T) {
	c, err := Compile("echo <<a>>")
	require.NoError(t, err)
	c.Placeholders()[0] = "b"
	require.Equal(t, []string{"a"}, c.Placeholders())
}

// TestContexts checks the quoting chosen for each shell context, on the rendered text.
func TestContexts(t *testing.T) {
	const v = `it's "$x" \ ` + "`a`"
	tests := []struct {
		command string
		value   string
		mode    Mode
		want    string // the script, or the argv joined with |
	}{
		{"echo <<x>>", "a b", Shell, `echo 'a b'`},
		{"echo <<x>>", v, Shell, `echo 'it'\''s "$x" \ ` + "`a`'"},
		{"echo {{ x }}", "", Shell, `echo ''`},
		{"echo '<<x>>'", v, Shell, `echo 'it'\''s "$x" \ ` + "`a`'"},
		{`echo "<<x>>"`, v, Shell, `echo "it's \"\$x\" \\ ` + "\\`a\\`\""},
		{"echo --f=<<x>>", "a'b", Shell, `echo --f='a'\''b'`},
		{"echo <<x>>.txt", "a b", Shell, `echo 'a b'.txt`},
		{"FOO=<<x>>; cmd", "a b", Shell, `FOO='a b'; cmd`},
		{`echo "$(printf %s <<x>>)"`, "a'b", Shell, `echo "$(printf %s 'a'\''b')"`},
		{`echo "$(printf %s "<<x>>")"`, `a"$b`, Shell, `echo "$(printf %s "a\"\$b")"`},
		{`echo "$(echo "$(echo '<<x>>')")"`, "a'b", Shell, `echo "$(echo "$(echo 'a'\''b')")"`},
		{"echo $( (echo <<x>>) )", "a", Shell, `echo $( (echo 'a') )`},
		{"echo a#<<x>>", "b", Shell, `echo a#'b'`},
		{"echo $#<<x>>", "b", Shell, `echo $#'b'`},
		{"echo $$<<x>>", "b", Shell, `echo $$'b'`},
		{"echo <<x>>#c", "b", Shell, `echo 'b'#c`},
		{"echo a # <<x>>", "b\ntouch PWNED", Shell, `echo a # `},
		{"echo a #'\necho <<x>>", "b", Shell, "echo a #'\necho 'b'"},
		{"cat <<<x>>", "f", Shell, `cat <'f'`},
		{"cat <<< <<x>>", "f", Shell, `cat <<< 'f'`},
		{"cat <<EOF > <<x>>\nbody <<y\nEOF\necho <<x>>", "f", Shell, "cat <<EOF > 'f'\nbody <<y\nEOF\necho 'f'"},
		{"cat <<-'E F'\n\t<<y\n\tE F\necho '<<x>>'", "f", Shell, "cat <<-'E F'\n\t<<y\n\tE F\necho 'f'"},
		{"cat <<EOF\na\\\nEOF\nEOF\necho <<x>>", "f", Shell, "cat <<EOF\na\\\nEOF\nEOF\necho 'f'"},
		{"echo `date` ${HOME} $((1+2)) \"$'\" <<x>>", "f", Shell, "echo `date` ${HOME} $((1+2)) \"$'\" 'f'"},
		{"echo \\' <<x>>", "f", Shell, `echo \' 'f'`},
		{"case <<x>> in a) echo a;; esac", "f", Shell, `case 'f' in a) echo a;; esac`},
		{"black <<x>>", "a b", Direct, "black|a b"},
		{"cat <<x>>.txt", "a b", Direct, "cat|a b.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			c, err := Compile(tt.command)
			require.NoError(t, err)
			require.Equal(t, tt.mode, c.Mode())
			var vals []string
			for range c.Placeholders() {
				vals = append(vals, tt.value)
			}
			argv := c.Argv(values(vals...))
			if tt.mode == Shell {
				require.Equal(t, []string{"/bin/sh", "-c", tt.want}, argv)
			} else {
				require.Equal(t, tt.want, strings.Join(argv, "|"))
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		command string
		reason  string // a substring of the message
	}{
		{"cat <<EOF\n<<x>>\nEOF", "here-document body"},
		{"cat <<-EOF\n\t<<x>>\n\tEOF", "here-document body"},
		{"cat <<'EOF'\nsay <<x>>\nEOF", "here-document body"},
		{"cat <<EOF; echo hi\na\\\nEOF\n<<x>>\nEOF", "here-document body"},
		{"echo $(cat <<EOF\n<<x>>\nEOF\n)", "here-document body"},
		{"cat <<<<x>>", "delimiter"},
		{"cat << <<x>>", "delimiter"},
		{"cat <<E<<x>>F", "delimiter"},
		{"cat <<EOF > <<x>>\nbody", "unterminated here-document"},
		{"echo $'<<x>>'", "$'...'"},
		{"echo `echo <<x>>`", "`...`"},
		{"echo \"`echo <<x>>`\"", "`...`"},
		{"echo ${X:-<<x>>}", "${...}"},
		{"echo \"${X:-<<x>>}\"", "${...}"},
		{"echo $((<<x>>))", "arithmetic"},
		{"echo $((1 + (<<x>>)))", "arithmetic"},
		{"echo $[<<x>>]", "arithmetic"},
		{"echo '<<x>>", "unterminated '...'"},
		{"echo \"<<x>>", `unterminated "..."`},
		{"echo <<x>> \"", `unterminated "..."`},
		{"echo \"$(echo '<<x>>')", "unterminated"},
		{"echo $(echo <<x>>", "unterminated $(...)"},
		{"echo $<<x>>", "after $"},
		{"echo \"$<<x>>\"", "after $"},
		{"echo \\<<x>>", "backslash"},
		{"echo \"\\<<x>>\"", "backslash"},
		{"(( y = 1 )); echo <<x>>", "((...))"},
		{"echo <<x>>; (( y = 1 ))", "((...))"},
		{"echo $(case a in a) echo <<x>>;; esac)", "case"},
		{"echo $'a\\'b' <<x>>", "$'...'"},
		{"echo ${X:-'a'} <<x>>", "${...}"},
		{"echo `echo '`'` <<x>>", "backquote"},
		{"echo {{ x }} $'", "$'...'"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			_, err := Compile(tt.command)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrUnsafe)
			var te *Error
			require.True(t, errors.As(err, &te))
			require.True(t, strings.HasPrefix(err.Error(), "hookexec: template: "), err.Error())
			require.Contains(t, err.Error(), tt.reason)
			want := "<<x>>"
			if strings.Contains(tt.command, "{{ x }}") {
				want = "{{ x }}"
			}
			require.Equal(t, want, te.Placeholder)
			require.Contains(t, err.Error(), want)
			require.Equal(t, strings.Index(tt.command, want), te.Offset)
		})
	}
}

// Without placeholders a command always compiles: the shell reports its own errors.
func TestNoPlaceholdersAlwaysCompile(t *testing.T) {
	for _, command := range []string{
		"echo '", "echo \"", "cat <<EOF", "cat <<", "echo $((", "echo $'a\\'b'", "(( x ))",
		"echo `", "echo ${", "echo $(case a in a) ;; esac)", "cat <<EOF\nx",
	} {
		c, err := Compile(command)
		require.NoError(t, err, command)
		require.Equal(t, []string{"/bin/sh", "-c", command}, c.Argv(nil))
	}
}

func TestEmpty(t *testing.T) {
	for _, command := range []string{"", "  \t\n"} {
		_, err := Compile(command)
		require.ErrorIs(t, err, ErrEmpty)
		require.Equal(t, "hookexec: template: empty command", err.Error())
	}
	_, err := CompileArgs(nil)
	require.ErrorIs(t, err, ErrEmpty)
}

func TestDirect(t *testing.T) {
	const v = `a 'b' "c" \x00 ` + "\x000\x00" + ` $(d)`
	tests := []struct {
		command string
		mode    Mode
		argv    []string // Argv with every placeholder = v, when Direct
	}{
		{"black <<tool_args.file_path>>", Direct, []string{"black", v}},
		{`git add -- "<<x>>"`, Direct, []string{"git", "add", "--", v}},
		{"git add -- '<<x>>'", Direct, []string{"git", "add", "--", v}},
		{`cmd 'a b' "c d" '' x"<<y>>"<<y>>z`, Direct, []string{"cmd", "a b", "c d", "", "x" + v + v + "z"}},
		{"/usr/bin/env\tA=1 prog %s,^@+:=", Direct, []string{"/usr/bin/env", "A=1", "prog", "%s,^@+:="}},
		{"prettier --write <<a>> <<b>> <<a>>", Direct, []string{"prettier", "--write", v, v, v}},
		{"ls | wc", Shell, nil},
		{"echo hi", Shell, nil},
		{"printf %s <<x>>", Shell, nil},
		{"FOO=1 cmd", Shell, nil},
		{"'echo' hi", Shell, nil},
		{"if", Shell, nil},
		{"cmd a\\ b", Shell, nil},
		{"cmd $HOME", Shell, nil},
		{"cmd ~/x", Shell, nil},
		{"cmd *.go", Shell, nil},
		{"cmd a; cmd b", Shell, nil},
		{"cmd a\ncmd b", Shell, nil},
		{"cmd a\rb", Shell, nil},
		{"cmd \xff", Shell, nil},
		{"cmd # c", Shell, nil},
		{"cmd {a,b}", Shell, nil},
		{"cmd !x", Shell, nil},
		{"''", Shell, nil},
		{"cmd 'unterminated", Shell, nil},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			c, err := Compile(tt.command)
			require.NoError(t, err)
			require.Equal(t, tt.mode, c.Mode())
			vals := make([]string, len(c.Placeholders()))
			for i := range vals {
				vals[i] = v
			}
			shell := c.ShellArgv(values(vals...))
			require.Equal(t, "/bin/sh", shell[0])
			if tt.mode == Direct {
				require.Equal(t, tt.argv, c.Argv(values(vals...)))
			} else {
				require.Equal(t, shell, c.Argv(values(vals...)))
			}
		})
	}
}

func TestCompileArgs(t *testing.T) {
	c, err := CompileArgs([]string{"prog", "--f=<<a>>", "{{ b }}<<a>>", "'<<c>>'", "$(x)"})
	require.NoError(t, err)
	require.Equal(t, Args, c.Mode())
	require.Equal(t, "prog --f=<<a>> {{ b }}<<a>> '<<c>>' $(x)", c.Source())
	require.Equal(t, []string{"a", "b", "c"}, c.Placeholders())
	want := []string{"prog", "--f='1", "$2'1", "'3$'", "$(x)"}
	require.Equal(t, want, c.Argv(values("'1", "$2", "3$")))
	require.Equal(t, want, c.ShellArgv(values("'1", "$2", "3$")))
}

// TestValueCalledOncePerPlaceholder pins the Argv contract the engine relies on.
func TestValueCalledOncePerPlaceholder(t *testing.T) {
	c, err := Compile("echo <<a>> <<b>> <<a>> '<<b>>'")
	require.NoError(t, err)
	var calls []int
	argv := c.Argv(func(i int) string { calls = append(calls, i); return fmt.Sprint(i) })
	require.Equal(t, []int{0, 1}, calls)
	require.Equal(t, "echo '0' '1' '0' '1'", argv[2])
	require.Equal(t, "echo '' '' '' ''", c.Argv(nil)[2])
}

func TestConcurrentArgv(t *testing.T) {
	c, err := Compile(`git add -- "<<x>>"`)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := strings.Repeat("v", i)
			for range 100 {
				require.Equal(t, []string{"git", "add", "--", v}, c.Argv(values(v)))
				require.Equal(t, `git add -- "`+v+`"`, c.ShellArgv(values(v))[2])
			}
		}()
	}
	wg.Wait()
}

// hostile are values chosen to break out of each quoting context.
var hostile = []string{
	"", "'", `"`, "''", `""`, `\`, `\\`, `\'`, `\\'`, `\"`, `'"'"'`, `'\''`,
	"$(touch PWNED)", "`touch PWNED`", "; touch PWNED", "'; touch PWNED; '", `"; touch PWNED; "`,
	"\\\"; touch PWNED #", "${IFS}touch${IFS}PWNED", "$HOME", "$", "$$", "$((1+1))",
	"a\nb", "\ntouch PWNED\n", "x\n\n", "\n", "*", "?", "[a]", "~", "~root", "--", "-n", "-e \\n",
	"#", " # ", "a b  c", "\t", "héllo wörld ✓ 日本", "\x01\x02\x1b[31m\x7f", "\xff\xfe",
	"<<x>>", "{{x}}", "EOF", ")", "(", "}", "{", "!", "!!", "&", "|",
	"'$(touch PWNED)'", "\"$(touch PWNED)\"", "\\$(touch PWNED)", "\\`touch PWNED\\`",
}

// shellCase is a context in the shell form: a command with placeholders <<v0>>..., the
// text around each value, and whether the context strips trailing newlines ($(...)).
type shellCase struct {
	name       string
	each       string // one placeholder in its context; %d is the placeholder number
	stripNL    bool
	prefix     string // what the context adds around each value
	suffix     string
	singleOnly bool // the case prints once, not in the batched form
	command    string
	expect     func(v string) string
}

var shellCases = []shellCase{
	{name: "bare", each: "<<v%d>>"},
	{name: "single", each: "'<<v%d>>'"},
	{name: "double", each: `"<<v%d>>"`},
	{name: "partial", each: `--f=<<v%d>>.txt`, prefix: "--f=", suffix: ".txt"},
	{name: "mixed", each: `"a"<<v%d>>'b'`, prefix: "a", suffix: "b"},
	{name: "subst", each: `"$(printf %%s <<v%d>>)"`, stripNL: true},
	{name: "subst-double", each: `"$(printf %%s "<<v%d>>")"`, stripNL: true},
	{name: "subst-nested", each: `"$(printf %%s "$(printf %%s '<<v%d>>')")"`, stripNL: true},
	{name: "assignment", singleOnly: true, command: `FOO=<<v0>>; printf '%s\0' "$FOO"`},
	{name: "comment", singleOnly: true, command: "printf '%s\\0' a # <<v0>>", expect: func(string) string { return "a" }},
	{name: "multiline-quotes", singleOnly: true, command: "printf '%s\\0' 'a\n#(' \"b\n'\" <<v0>>",
		expect: func(v string) string { return "a\n#(\x00b\n'\x00" + v }},
	{name: "after-heredoc", singleOnly: true, command: "cat <<'EOF'\n$(touch PWNED) <<v0\nEOF\nprintf '%s\\0' <<v0>>",
		expect: func(v string) string { return "$(touch PWNED) <<v0\n" + v }},
	// Nested shells: the value is escaped for each shell it passes through.
	{name: "sh-c-single", singleOnly: true, command: `sh -c 'printf "%s\0" <<v0>>'`},
	{name: "sh-c-double", singleOnly: true, command: `sh -c "printf '%s\0' <<v0>>"`},
	{name: "sh-c-quoted-inside", singleOnly: true, command: `bash -o pipefail -c -- 'printf "%s\0" "<<v0>>" '\''<<v0>>'\'''`,
		expect: func(v string) string { return v + "\x00" + v }},
	{name: "sh-c-in-sh-c", singleOnly: true, command: `sh -c 'sh -c "printf \"%s\\0\" <<v0>>"'`},
	{name: "wrapped", singleOnly: true, command: `timeout -s KILL 60 env -i PATH=/usr/bin:/bin nice -n 1 s'h' -ec 'printf "%s\0" <<v0>>'`},
	{name: "positional", singleOnly: true, command: `sh -c 'printf "%s\0" "$1"' sh <<v0>>`},
}

func (sc shellCase) want(v string) string {
	if sc.expect != nil {
		return sc.expect(v)
	}
	if sc.stripNL {
		v = strings.TrimRight(v, "\n")
	}
	return sc.prefix + v + sc.suffix
}

// script builds a command printing n values in the case's context, each followed by NUL.
func (sc shellCase) script(n int) string {
	if sc.command != "" {
		return sc.command
	}
	var b strings.Builder
	b.WriteString(`printf '%s\0'`)
	for i := range n {
		b.WriteByte(' ')
		fmt.Fprintf(&b, sc.each, i)
	}
	return b.String()
}

// shells are the shells the property runs under: /bin/sh, and bash when present because
// it is /bin/sh on other systems and reads more syntax.
func shells(t testing.TB) []string {
	out := []string{"/bin/sh"}
	if bash, err := exec.LookPath("bash"); err == nil {
		out = append(out, bash)
	}
	return out
}

// run executes argv in dir and returns stdout, failing if the command fails or a PWNED
// file appears.
func run(t testing.TB, dir string, argv []string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	// The race runtime sleeps 1 s at exit by default; the echo helper has nothing to report.
	cmd.Env = append(os.Environ(), echoEnv+"=1", "GORACE=atexit_sleep_ms=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "argv %q stderr %q", argv, stderr.String())
	_, err = os.Stat(filepath.Join(dir, "PWNED"))
	require.True(t, os.IsNotExist(err), "PWNED created by %q", argv)
	return stdout.String()
}

// checkShell renders command with vals under each shell and asserts it prints want
// (NUL-terminated values).
func checkShell(t testing.TB, dir, command string, vals []string, want []string) {
	t.Helper()
	c, err := Compile(command)
	require.NoError(t, err, command)
	require.Equal(t, Shell, c.Mode(), command)
	argv := c.Argv(values(vals...))
	for _, sh := range shells(t) {
		argv[0] = sh
		out := run(t, dir, argv)
		require.Equal(t, joinNUL(want), out, "shell %s command %q values %q", sh, command, vals)
	}
}

// checkExec runs the test binary as a Direct command and through CompileArgs with each
// value in a word of its own and inside a word; the output must be the values exactly,
// and the Direct command's shell fallback must print the same.
func checkExec(t testing.TB, dir string, vals []string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	require.NotContains(t, exe, "'")
	var cmd strings.Builder
	args := []string{exe}
	var want []string
	fmt.Fprintf(&cmd, "'%s'", exe)
	for i, v := range vals {
		fmt.Fprintf(&cmd, ` <<v%d>> --f=<<v%d>>.txt "<<v%d>>"`, i, i, i)
		args = append(args, fmt.Sprintf("<<v%d>>", i), fmt.Sprintf("--f={{ v%d }}.txt", i))
		want = append(want, v, "--f="+v+".txt", v)
	}
	c, err := Compile(cmd.String())
	require.NoError(t, err)
	require.Equal(t, Direct, c.Mode())
	require.Equal(t, joinNUL(want), run(t, dir, c.Argv(values(vals...))))
	require.Equal(t, joinNUL(want), run(t, dir, c.ShellArgv(values(vals...))))

	a, err := CompileArgs(args)
	require.NoError(t, err)
	var wantArgs []string
	for _, v := range vals {
		wantArgs = append(wantArgs, v, "--f="+v+".txt")
	}
	require.Equal(t, joinNUL(wantArgs), run(t, dir, a.Argv(values(vals...))))
}

func joinNUL(vs []string) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v)
		b.WriteByte(0)
	}
	return b.String()
}

// randomValue draws from fragments that matter to a shell and from arbitrary bytes.
func randomValue(r *rand.Rand) string {
	frags := []string{"'", `"`, `\`, "$", "(", ")", "`", ";", "\n", " ", "touch PWNED", "$(touch PWNED)",
		"#", "*", "~", "{", "}", "<<", ">>", "\t", "EOF", "a", "é", "日"}
	var b strings.Builder
	for range r.Intn(12) {
		if r.Intn(4) == 0 {
			b.WriteByte(byte(1 + r.Intn(255)))
		} else {
			b.WriteString(frags[r.Intn(len(frags))])
		}
	}
	return b.String()
}

// TestEscapeProperty is the package's contract: for any value v in any supported context,
// the command receives exactly v as data and no part of v runs.
func TestEscapeProperty(t *testing.T) {
	dir := t.TempDir()
	t.Run("hostile", func(t *testing.T) {
		for _, sc := range shellCases {
			t.Run(sc.name, func(t *testing.T) {
				for _, v := range hostile {
					checkShell(t, dir, sc.script(1), []string{v}, []string{sc.want(v)})
				}
			})
		}
		t.Run("exec", func(t *testing.T) {
			checkExec(t, dir, hostile) // each value is its own argv word: one process suffices
		})
	})
	t.Run("random", func(t *testing.T) {
		r := rand.New(rand.NewSource(1))
		vals := make([]string, 1000)
		for i := range vals {
			vals[i] = randomValue(r)
		}
		const batch = 250
		for start := 0; start < len(vals); start += batch {
			chunk := vals[start:min(start+batch, len(vals))]
			for _, sc := range shellCases {
				if sc.singleOnly || (sc.stripNL && start > 0) {
					continue // $(...) forks once per value: a quarter of the corpus keeps this fast
				}
				want := make([]string, len(chunk))
				for i, v := range chunk {
					want[i] = sc.want(v)
				}
				checkShell(t, dir, sc.script(len(chunk)), chunk, want)
			}
			checkExec(t, dir, chunk)
		}
	})
}

func BenchmarkArgv(b *testing.B) {
	shell, _ := Compile(`jq . <<tool_args.file_path>> | grep -q "<<tool_name>>" && echo '<<session_id>>'`)
	direct, _ := Compile("black --quiet <<tool_args.file_path>>")
	v := values("/tmp/some file's name.py", "Write", "abc-123")
	b.Run("shell", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			shell.Argv(v)
		}
	})
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			direct.Argv(v)
		}
	})
}
