//go:build unix

package template

import (
	"math/rand"
	"strconv"
	"strings"
)

// The grammar of the differential test (shelldiff_test.go): hook commands built from
// leaves (one use of a placeholder each) wrapped in nestings (sh -c, wrappers, eval,
// subshells, ...) and joined into scripts. A leaf that hands the value to the recorder
// says what the recorder must receive; the others are the places where a shell evaluates
// text (parameter operators, arithmetic, name-taking builtins, special variables, ...),
// where the only promise is that the value never runs.
//
// Tokens in a leaf's text: ‹P› a placeholder, ‹Q› a placeholder bare, in "..." or in
// '...' (the three must give the same word), ‹T› the recorder tag, ‹V› a variable name.

// chooser is the source of the generator's choices: a seeded *rand.Rand, or fuzz bytes.
type chooser interface{ Intn(n int) int }

// byteChooser takes choices from fuzz bytes, then from a rand seeded by them.
type byteChooser struct {
	b []byte
	r *rand.Rand
}

func newByteChooser(b []byte) *byteChooser {
	var seed int64 = 1
	for _, c := range b {
		seed = seed*131 + int64(c)
	}
	return &byteChooser{b: b, r: rand.New(rand.NewSource(seed))}
}

func (c *byteChooser) Intn(n int) int {
	if len(c.b) > 0 {
		x := int(c.b[0])
		c.b = c.b[1:]
		return x % n
	}
	return c.r.Intn(n)
}

// want is what a recorder call must receive after its tag: one of the alternatives.
type want func(v string) [][]string

func exactly(f func(v string) []string) want {
	return func(v string) [][]string { return [][]string{f(v)} }
}

// literalOnly is the want of a call reached only when the value equals hxsubject.
func literalOnly(v string) [][]string {
	if v == "hxsubject" {
		return [][]string{{"hit"}}
	}
	return nil
}

var (
	wantV      = exactly(func(v string) []string { return []string{v} })
	wantLine   = exactly(func(v string) []string { return []string{v + "\n"} })
	wantTrimNL = exactly(func(v string) []string { return []string{strings.TrimRight(v, "\n")} })
)

// leaf is one use of a placeholder.
type leaf struct {
	name string
	text string
	want want // nil: the recorder's arguments are not checked (the form is not portable)
	// aborts: a shell may stop the script here on some values and not others (an
	// arithmetic error is fatal), so later recorder calls need not arrive.
	aborts bool
	// cond: whether its recorder call is reached, or the statement succeeds, depends on
	// the value (a pattern, a file name).
	cond bool
}

// observed leaves hand the value to the recorder: it must arrive as it is.
var observedLeaves = []leaf{
	{name: "arg", text: "rec ‹T› ‹Q›", want: wantV},
	{name: "arg-affix", text: "rec ‹T› --f=‹P›.txt", want: exactly(func(v string) []string { return []string{"--f=" + v + ".txt"} })},
	{name: "arg-mixed", text: `rec ‹T› "a b"‹P›'c'`, want: exactly(func(v string) []string { return []string{"a b" + v + "c"} })},
	{name: "dashdash", text: "rec ‹T› -- ‹Q›", want: exactly(func(v string) []string { return []string{"--", v} })},
	{name: "two", text: `rec ‹T› ‹Q› "x‹P›"`, want: exactly(func(v string) []string { return []string{v, "x" + v} })},
	{name: "var", text: `‹V›=‹Q›; rec ‹T› "$‹V›"`, want: wantV},
	{name: "var-brace", text: `‹V›=‹Q›; rec ‹T› "${‹V›}"`, want: wantV},
	{name: "var-copy", text: `‹V›=‹Q›; hxw="$‹V›"; rec ‹T› "$hxw"`, want: wantV},
	{name: "var-default", text: `rec ‹T› "${hxunset:-‹P›}"`, want: wantV},
	{name: "var-alt", text: `hxset=1; rec ‹T› ${hxset:+‹Q›}`, want: wantV},
	{name: "for", text: `for ‹V› in ‹Q›; do rec ‹T› "$‹V›"; done`, want: wantV},
	{name: "set--", text: `set -- ‹Q›; rec ‹T› "$1"`, want: wantV},
	{name: "cmdsub", text: `rec ‹T› "$(printf %s ‹Q›)"`, want: wantTrimNL},
	{name: "cmdsub-var", text: `‹V›="$(printf %s ‹Q›)"; rec ‹T› "$‹V›"`, want: wantTrimNL},
	{name: "backtick", text: "rec ‹T› \"`printf %s ‹Q›`\"", want: wantTrimNL},
	{name: "dollar-single", text: "rec ‹T› $'‹P›'", want: wantV},
	{name: "arith-prefix", text: `rec ‹T› "$((1))‹P›"`, want: exactly(func(v string) []string { return []string{"1" + v} })},
	{name: "case", text: "case ‹Q› in *) rec ‹T› ‹Q›;; esac", want: wantV},
	{name: "case-pattern", text: "case hx0 in ‹Q›) rec ‹T› hit;; esac", want: exactly(func(string) []string { return []string{"hit"} }), cond: true},
	{name: "test-string", text: `[ ‹Q› = ‹Q› ] && rec ‹T› ‹Q›`, want: wantV},
	{name: "dbracket-string", text: `[[ ‹Q› == ‹Q› ]] && rec ‹T› ‹Q›`, want: wantV},
	{name: "test-many", text: `[ ‹Q› = ‹Q› -a x = x ] && rec ‹T› ‹Q›`, want: wantV},
	// A quoted value is a literal, never a pattern: it matches hxsubject only if it is hxsubject.
	{name: "case-literal", text: "case hxsubject in ‹Q›) rec ‹T› hit;; esac", want: literalOnly, cond: true},
	{name: "dbracket-literal", text: "[[ hxsubject == ‹Q› ]] && rec ‹T› hit", want: literalOnly, cond: true},
	{name: "herestring", text: "recin ‹T› <<< ‹Q›", want: wantLine},
	{name: "pipe", text: "printf '%s' ‹Q› | recin ‹T›", want: wantV},
	{name: "procsub-in", text: "recin ‹T› < <(printf '%s' ‹Q›)", want: wantV},
	{name: "heredoc-quoted", text: "recin ‹T› <<'EOF'\n‹P›\nEOF\n", want: wantLine},
	{name: "heredoc", text: "recin ‹T› <<EOF\n‹P›\nEOF\n", want: wantLine},
	{name: "heredoc-tab", text: "recin ‹T› <<-EOF\n\t‹P›\n\tEOF\n", want: wantLine},
	{name: "file", text: "printf '%s' ‹Q› > hx.out; recin ‹T› < hx.out", want: wantV},
	// Standard input through the data filters the checker knows, into the file hx.‹T›
	// (read back as that tag's record).
	{name: "herestring-tee", text: "tee hx.‹T› <<< ‹Q› >/dev/null", want: wantLine},
	{name: "pipe-tee", text: "printf '%s' ‹Q› | tee hx.‹T› >/dev/null", want: wantV},
	{name: "pipe-cat", text: "printf '%s' ‹Q› | cat > hx.‹T›", want: wantV},
	{name: "procsub-cat", text: "cat < <(printf '%s' ‹Q›) > hx.‹T›", want: wantV},
	{name: "heredoc-cat", text: "cat > hx.‹T› <<'EOF'\n‹P›\nEOF\n", want: wantLine},
	{name: "file-cat", text: "printf '%s' ‹Q› > hx.out; cat hx.out > hx.‹T›", want: wantV},
	{name: "append", text: "printf '%s' ‹Q› >> hx.‹T›", want: wantV},
	{name: "echo-n", text: "printf '%s\\n' ‹Q› | head -c -1 > hx.‹T›", want: wantV},
	{name: "redirect-target", text: "printf x > ‹Q› && rec ‹T› written", want: exactly(func(string) []string { return []string{"written"} }), cond: true},
	{name: "positional", text: `sh -c 'rec ‹T› "$1"' sh ‹Q›`, want: wantV},
	{name: "positional-bash", text: `bash -c 'rec ‹T› "$@"' bash ‹Q›`, want: wantV},
	{name: "positional-find", text: `find . -maxdepth 0 -exec sh -c 'rec ‹T› "$1"' sh ‹Q› \;`, want: wantV},
	{name: "function", text: "hxf() { rec ‹T› \"$1\"; }; hxf ‹Q›", want: wantV},
	{name: "brace-program", text: "{rec,‹T›,‹P›}", want: wantV},
	{name: "brace-arg", text: "rec ‹T› {a,‹P›}", want: func(v string) [][]string { return [][]string{{"a", v}, {"{a," + v + "}"}} }},
	{name: "alias", text: "alias hxr='rec ‹T›'\nhxr ‹Q›", want: wantV},
	{name: "find-exec", text: `find . -maxdepth 0 -exec rec ‹T› ‹Q› \;`, want: wantV},
	{name: "xargs", text: "xargs rec ‹T› ‹Q› </dev/null", want: wantV},
	{name: "env", text: "env rec ‹T› ‹Q›", want: wantV},
	{name: "env-i", text: `env -i PATH="$PATH" HXLOG="$HXLOG" rec ‹T› ‹Q›`, want: wantV},
	{name: "timeout", text: "timeout 5 rec ‹T› ‹Q›", want: wantV},
	{name: "nice", text: "nice -n 1 rec ‹T› ‹Q›", want: wantV},
	{name: "command", text: "command rec ‹T› ‹Q›", want: wantV},
	{name: "exec", text: "(exec rec ‹T› ‹Q›)", want: wantV},
	{name: "stdbuf", text: "stdbuf -o0 rec ‹T› ‹Q›", want: wantV},
	{name: "noglob", text: "noglob rec ‹T› ‹Q›", want: wantV},
	{name: "export", text: `export ‹V›=‹Q›; rec ‹T› "$‹V›"`, want: wantV},
	{name: "readonly", text: `readonly ‹V›=‹Q›; rec ‹T› "$‹V›"`, want: wantV},
	{name: "local", text: `hxf() { local ‹V›=‹Q›; rec ‹T› "$‹V›"; }; hxf`, want: wantV},
	{name: "env-read", text: `export ‹V›=‹Q›; sh -c 'rec ‹T› "$‹V›"'`, want: wantV},
	// Not portable: a shell without the builtin records something else.
	{name: "declare", text: `declare ‹V›=‹Q›; rec ‹T› "$‹V›"`},
	{name: "typeset", text: `typeset ‹V›=‹Q›; rec ‹T› "$‹V›"`},
	{name: "declare-a", text: `declare -a hxa=(‹Q›); rec ‹T› "${hxa[@]}"`},
	{name: "array", text: `hxa=(‹Q› b); rec ‹T› "${hxa[0]}"`},
	{name: "read", text: `read -r ‹V› <<< ‹Q›; rec ‹T› "$‹V›"`},
	{name: "mapfile", text: `mapfile -t hxa <<< ‹Q›; rec ‹T› "${hxa[@]}"`},
	{name: "printf-v", text: `printf -v ‹V› %s ‹Q›; rec ‹T› "$‹V›"`},
	{name: "printf-v-glued", text: `printf -v‹V› %s ‹Q›; rec ‹T› "$‹V›"`},
	{name: "print", text: "print -r -- ‹Q›"},
}

// evalLeaves put the value (or a variable holding it) where some shell evaluates text.
var evalLeaves = []leaf{
	// parameter operators
	{name: "op-P", text: `‹V›=‹Q›; rec ‹T› "${‹V›@P}"`, aborts: true},
	{name: "op-E", text: `‹V›=‹Q›; rec ‹T› "${‹V›@E}"`, aborts: true},
	{name: "op-A", text: `‹V›=‹Q›; rec ‹T› "${‹V›@A}"`, aborts: true},
	{name: "op-Q-eval", text: `‹V›=‹Q›; eval "rec ‹T› ${‹V›@Q}"`, aborts: true},
	{name: "op-K", text: `‹V›=‹Q›; rec ‹T› "${‹V›@K}"`, aborts: true},
	{name: "op-indirect", text: `‹V›=‹Q›; rec ‹T› "${!‹V›}"`, aborts: true},
	{name: "op-zsh-e", text: `‹V›=‹Q›; rec ‹T› "${(e)‹V›}"`, aborts: true},
	{name: "op-zsh-P", text: `‹V›=‹Q›; rec ‹T› "${(P)‹V›}"`, aborts: true},
	{name: "op-zsh-glob", text: `‹V›=‹Q›; rec ‹T› ${~‹V›}`, aborts: true},
	{name: "op-slice", text: `‹V›=‹Q›; rec ‹T› "${‹V›:‹V›}"`, aborts: true},
	{name: "op-slice-value", text: `rec ‹T› "${hxz:‹P›}"`, aborts: true},
	{name: "op-replace", text: `‹V›=‹Q›; rec ‹T› "${‹V›/a/b}"`, aborts: true},
	{name: "op-case", text: `‹V›=‹Q›; rec ‹T› "${‹V›^^}"`, aborts: true},
	// arithmetic contexts
	{name: "arith-name", text: `‹V›=‹Q›; rec ‹T› $((‹V›))`, aborts: true},
	{name: "arith-dollar", text: `‹V›=‹Q›; rec ‹T› $(($‹V›))`, aborts: true},
	{name: "arith-value", text: `rec ‹T› $((‹P›))`, aborts: true},
	{name: "arith-cmd", text: `‹V›=‹Q›; (( ‹V› )); rec ‹T› x`, aborts: true},
	{name: "arith-dbracket", text: `‹V›=‹Q›; [[ ‹V› -gt 3 ]]`, aborts: true},
	{name: "arith-dbracket-dollar", text: `‹V›=‹Q›; [[ $‹V› -gt 3 ]]`, aborts: true},
	{name: "arith-dbracket-value", text: `[[ ‹Q› -gt 3 ]]`, aborts: true},
	{name: "arith-test", text: `‹V›=‹Q›; [ "$‹V›" -gt 3 ]`, aborts: true},
	{name: "arith-test-value", text: `[ ‹Q› -eq 1 ]`, aborts: true},
	{name: "arith-test-builtin", text: `test 1 -lt ‹Q›`, aborts: true},
	{name: "arith-read-t", text: `read -t ‹Q› hxr </dev/null`, aborts: true},
	{name: "arith-repeat", text: `repeat ‹Q› do :; done`, aborts: true},
	{name: "arith-float", text: `float ‹V›; ‹V›=‹Q›`, aborts: true},
	{name: "arith-for", text: `‹V›=‹Q›; for ((hxi=0; hxi<‹V›; hxi++)); do :; done`, aborts: true},
	{name: "arith-subscript", text: `‹V›=‹Q›; hxa[‹V›]=1`, aborts: true},
	{name: "arith-subscript-read", text: `‹V›=‹Q›; hxa=(1 2); rec ‹T› "${hxa[‹V›]}"`, aborts: true},
	{name: "arith-subscript-dollar", text: `‹V›=‹Q›; hxa=(1 2); rec ‹T› "${hxa[$‹V›]}"`, aborts: true},
	{name: "arith-let", text: `‹V›=‹Q›; let ‹V›`, aborts: true},
	{name: "arith-let-value", text: `let hxn=‹Q›`, aborts: true},
	{name: "declare-i", text: `declare -i ‹V›; ‹V›=‹Q›`, aborts: true},
	{name: "declare-i-init", text: `declare -i ‹V›=‹Q›`, aborts: true},
	{name: "typeset-i", text: `typeset -i ‹V›; ‹V›=‹Q›`, aborts: true},
	{name: "integer", text: `integer ‹V›; ‹V›=‹Q›`, aborts: true},
	{name: "local-i", text: `hxf() { local -i ‹V›; ‹V›=‹Q›; }; hxf`, aborts: true},
	{name: "declare-n", text: `‹V›=‹Q›; declare -n hxref=‹V›; rec ‹T› "$hxref"`, aborts: true},
	{name: "printf-d", text: `printf '%d\n' ‹Q›`, aborts: true},
	{name: "printf-star", text: `printf '%.*s\n' ‹Q› x`, aborts: true},
	{name: "printf-d-var", text: `‹V›=‹Q›; printf '%d\n' "$‹V›"`, aborts: true},
	{name: "shift", text: `hxf() { shift ‹Q›; }; hxf a b`, aborts: true},
	{name: "return", text: `hxf() { return ‹Q›; }; hxf`, aborts: true},
	{name: "exit", text: `(exit ‹Q›)`, aborts: true},
	{name: "break", text: `for hxi in 1; do break ‹Q›; done`, aborts: true},
	{name: "kill", text: `kill -0 ‹Q›`, aborts: true},
	{name: "ulimit", text: `(ulimit -c ‹Q›)`, aborts: true},
	{name: "umask", text: `(umask ‹Q›)`, aborts: true},
	// name-taking builtins given the value as a name
	{name: "name-printf-v", text: `printf -v ‹Q› %s x`, aborts: true},
	{name: "name-printf-v-glued", text: `printf -v‹P› %s x`, aborts: true},
	{name: "name-printf-v-var", text: `‹V›=‹Q›; printf -v "$‹V›" %s x`, aborts: true},
	{name: "name-wait-p", text: `sleep 0 & wait -p ‹Q›`, aborts: true},
	{name: "name-wait-p-var", text: `‹V›=‹Q›; sleep 0 & wait -p "$‹V›"`, aborts: true},
	{name: "name-read", text: `read ‹Q› </dev/null`, aborts: true},
	{name: "name-read-var", text: `‹V›=‹Q›; read "$‹V›" <<< x`, aborts: true},
	{name: "name-mapfile", text: `mapfile ‹Q› </dev/null`, aborts: true},
	{name: "name-unset", text: `unset ‹Q›`, aborts: true},
	{name: "name-unset-var", text: `‹V›=‹Q›; unset "$‹V›"`, aborts: true},
	{name: "name-export", text: `export ‹Q›`, aborts: true},
	{name: "name-export-var", text: `‹V›=‹Q›; export "$‹V›"`, aborts: true},
	{name: "name-declare", text: `declare ‹Q›`, aborts: true},
	{name: "name-declare-var", text: `‹V›=‹Q›; declare "$‹V›"`, aborts: true},
	{name: "name-local-var", text: `hxf() { local "$1"; }; ‹V›=‹Q›; hxf "$‹V›"`, aborts: true},
	{name: "name-readonly", text: `readonly ‹Q›`, aborts: true},
	{name: "name-test-v", text: `test -v ‹Q›`, aborts: true},
	{name: "name-test-v-var", text: `‹V›=‹Q›; [ -v "$‹V›" ]`, aborts: true},
	{name: "name-dbracket-v", text: `‹V›=‹Q›; [[ -v $‹V› ]]`, aborts: true},
	{name: "name-getopts", text: `getopts a ‹Q›`, aborts: true},
	{name: "name-for", text: `‹V›=‹Q›; eval "for $‹V› in 1; do :; done"`, aborts: true},
	// code-taking builtins and programs
	{name: "eval", text: `eval ‹Q›`, aborts: true},
	{name: "eval-var", text: `‹V›=‹Q›; eval "$‹V›"`, aborts: true},
	{name: "eval-string", text: `eval "rec ‹T› ‹P›"`, aborts: true},
	{name: "builtin-eval", text: `builtin eval ‹Q›`, aborts: true},
	{name: "command-eval", text: `command eval ‹Q›`, aborts: true},
	{name: "source", text: `. ‹Q›`, aborts: true},
	{name: "source-bash", text: `source ‹Q›`, aborts: true},
	{name: "trap", text: `trap ‹Q› EXIT`, aborts: true},
	{name: "trap-string", text: `trap 'rec ‹T› ‹P›' EXIT`, aborts: true},
	{name: "alias-value", text: "alias hxa=‹Q›\nhxa", aborts: true},
	{name: "program", text: `‹Q› arg`, aborts: true},
	{name: "program-var", text: `‹V›=‹Q›; $‹V›`, aborts: true},
	{name: "program-var-quoted", text: `‹V›=‹Q›; "$‹V›" arg`, aborts: true},
	{name: "program-glued", text: `rec‹P› arg`, aborts: true},
	{name: "emulate", text: `emulate sh -c ‹Q›`, aborts: true},
	{name: "print-P", text: `print -P ‹Q›`, aborts: true},
	{name: "fc", text: `fc -e ‹Q›`, aborts: true},
	{name: "sh-c-value", text: `sh -c ‹Q›`, aborts: true},
	{name: "bash-herestring", text: `bash <<< ‹Q›`, aborts: true},
	{name: "sh-herestring", text: `sh <<< ‹Q›`, aborts: true},
	{name: "source-stdin", text: `source /dev/stdin <<< ‹Q›`, aborts: true},
	{name: "source-procsub", text: `. <(printf '%s\n' ‹Q›)`, aborts: true},
	{name: "bash-procsub", text: `bash <(printf '%s\n' ‹Q›)`, aborts: true},
	{name: "pipe-sh", text: `printf '%s\n' ‹Q› | sh`, aborts: true},
	{name: "pipe-bash-s", text: `printf '%s\n' ‹Q› | bash -s`, aborts: true},
	{name: "pipe-xargs", text: `printf '%s\n' ‹Q› | xargs rec ‹T›`, aborts: true},
	{name: "xargs-I", text: `xargs -I{} sh -c 'rec ‹T› {}' <<< ‹Q›`, aborts: true},
	{name: "mapfile-run", text: `mapfile -t hxa <<< ‹Q›; "${hxa[@]}"`, aborts: true},
	{name: "script-file", text: `printf '%s\n' ‹Q› > hx.sh; sh hx.sh`, aborts: true},
	{name: "env-file", text: `printf 'hxe=%s\n' ‹Q› > hx.env; . ./hx.env`, aborts: true},
	{name: "env-file-export", text: `printf 'export hxe=%s\n' ‹Q› > hx.env; . ./hx.env`, aborts: true},
	{name: "tee-file", text: `printf '%s\n' ‹Q› | tee hx.sh >/dev/null; sh hx.sh`, aborts: true},
	{name: "cp-file", text: `printf '%s\n' ‹Q› > hx.a; cp hx.a hx.sh; . ./hx.sh`, aborts: true},
	{name: "exec-file", text: `printf '%s\n' ‹Q› > hx.sh; chmod +x hx.sh; ./hx.sh`, aborts: true},
	{name: "script-file-source", text: `printf '%s\n' ‹Q› > hx.sh; . ./hx.sh`, aborts: true},
	{name: "env-eval", text: `export ‹V›=‹Q›; sh -c 'eval "$‹V›"'`, aborts: true},
	{name: "env-arith", text: `‹V›=‹Q›; export ‹V›; bash -c 'rec ‹T› $((‹V›))'`, aborts: true},
	{name: "env-prefix", text: `‹V›=‹Q› rec ‹T› a`, aborts: true},
	{name: "env-assign", text: `env ‹V›=‹Q› rec ‹T› a`, aborts: true},
	{name: "env-S", text: `env -S ‹Q›`, aborts: true},
	{name: "git-grep-O", text: `git grep --no-index -O‹P› sourced`, aborts: true},
	{name: "git-grep-pager", text: `git grep --no-index --open-files-in-pager=‹Q› sourced`, aborts: true},
	{name: "cd-git", text: `cd ‹Q› && git status --short`, aborts: true},
	{name: "cd-run", text: `cd ‹Q› && ./rec ‹T› a`, aborts: true},
	{name: "cd-source", text: `cd ‹Q› && . ./evil`, aborts: true},
	{name: "printf-format", text: `printf ‹Q›`, aborts: true},
	{name: "echo", text: `echo ‹Q›`, aborts: true},
	{name: "git-C", text: `git -C ‹Q› status --short`, aborts: true},
	{name: "hash-p", text: `hash -p ‹Q› rec; rec ‹T› a`, aborts: true},
	{name: "git-c", text: `git -c core.pager=‹Q› --no-pager log -1`, aborts: true},
	{name: "find-exec-value", text: `find . -maxdepth 0 -exec ‹Q› \;`, aborts: true},
	{name: "brace-rm-shape", text: `{rec,‹T›,-rf,‹P›}`, aborts: true},
	{name: "python", text: `python3.13t -c 'print("‹P›")'`, aborts: true},
	{name: "python-argv", text: `python3 -c 'import sys; print(sys.argv[1])' ‹Q›`, aborts: true},
	// special variables, assigned a value, then used the way the shell uses them
	{name: "special-PS4", text: `PS4=‹Q›; set -x; rec ‹T› a; set +x`, aborts: true},
	{name: "special-PS4-export", text: `PS4=‹Q›; export PS4; bash -xc 'rec ‹T› a'`, aborts: true},
	{name: "special-PATH", text: `PATH=‹Q›; rec ‹T› a`, aborts: true},
	{name: "special-PATH-prepend", text: `PATH=‹Q›:$PATH; rec ‹T› a`, aborts: true},
	{name: "special-BASH_ENV", text: `BASH_ENV=‹Q›; export BASH_ENV; bash -c 'rec ‹T› a'`, aborts: true},
	{name: "special-BASH_ENV-set-a", text: `set -a; BASH_ENV=‹Q›; bash -c 'rec ‹T› a'`, aborts: true},
	{name: "special-ENV", text: `ENV=‹Q›; export ENV; sh -i -c 'rec ‹T› a' </dev/null 2>/dev/null`, aborts: true},
	{name: "special-IFS", text: `IFS=‹Q›; hxs="a b"; rec ‹T› $hxs`, aborts: true},
	{name: "special-SHELLOPTS", text: `SHELLOPTS=‹Q›; export SHELLOPTS; bash -c 'rec ‹T› a'`, aborts: true},
	{name: "special-BASHOPTS", text: `BASHOPTS=‹Q›; export BASHOPTS; bash -c 'rec ‹T› a'`, aborts: true},
	{name: "special-TIMEFORMAT", text: `TIMEFORMAT=‹Q›; time rec ‹T› a`, aborts: true},
	{name: "special-PROMPT_COMMAND", text: `PROMPT_COMMAND=‹Q›; export PROMPT_COMMAND; bash -i -c 'rec ‹T› a' </dev/null 2>/dev/null`, aborts: true},
	{name: "special-FPATH", text: `FPATH=‹Q›; rec ‹T› a`, aborts: true},
	{name: "special-int", text: `‹S›=‹Q›; rec ‹T› "$‹S›"`, aborts: true},
	{name: "special-int-export", text: `export ‹S›=‹Q›; rec ‹T› a`, aborts: true},
	{name: "special-BASH_XTRACEFD", text: `BASH_XTRACEFD=‹Q›; set -x; :; set +x`, aborts: true},
	{name: "special-histchars", text: `histchars=‹Q›; rec ‹T› a`, aborts: true},
}

// specials are variables some shell treats as integers, or otherwise evaluates when set.
var specials = []string{"SECONDS", "RANDOM", "OPTIND", "LINENO", "COLUMNS", "LINES", "HISTCMD", "SHLVL",
	"HISTSIZE", "SAVEHIST", "TMOUT", "MAILCHECK", "KEYTIMEOUT", "FUNCNEST", "EPOCHSECONDS", "BASH_ARGV0",
	"OPTERR", "PPID", "HISTFILESIZE", "LISTMAX", "DIRSTACKSIZE", "ZLE_RPROMPT_INDENT", "PERIOD", "ERRNO", "TRY_BLOCK_ERROR",
	"TRY_BLOCK_INTERRUPT", "UID", "EUID", "GID", "EGID", "BAUD"}

// varNames are the ordinary variables a leaf may use.
var varNames = []string{"F", "G", "hxv", "file_path"}

// nest wraps a script in a construct that runs it: another shell, a wrapper, eval, a
// compound command. The script may end in a newline (a here-document).
type nest struct {
	name string
	wrap func(s string) string
}

// sq escapes s for '...'; dq for "...".
func sq(s string) string { return strings.ReplaceAll(s, "'", `'\''`) }

func dq(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
	return r.Replace(s)
}

func single(prefix, suffix string) func(string) string {
	return func(s string) string { return prefix + "'" + sq(s) + "'" + suffix }
}

func double(prefix, suffix string) func(string) string {
	return func(s string) string { return prefix + `"` + dq(s) + `"` + suffix }
}

func block(prefix, suffix string) func(string) string {
	return func(s string) string { return prefix + "\n" + s + "\n" + suffix }
}

var nests = []nest{
	{"sh-c", single("sh -c ", "")},
	{"bash-c", single("bash -c ", "")},
	{"dash-c", single("dash -c ", "")},
	{"mksh-c", single("mksh -c ", "")},
	{"ksh-c", single("ksh -c ", "")},
	{"busybox-sh-c", single("busybox sh -c ", "")},
	{"ash-c", single("ash -c ", "")},
	{"rbash-c", single("rbash -c ", "")},
	{"zsh-c", single("zsh -c ", "")},
	{"sh-ec", single("sh -ec ", "")},
	{"bash-opts-c", single("bash -o pipefail -c -- ", "")},
	{"bin-sh-c", single("/bin/sh -c ", "")},
	{"quoted-name", single("s'h' -c ", "")},
	{"backslash-name", single(`\sh -c `, "")},
	{"sh-c-double", double("sh -c ", "")},
	{"bash-c-double", double("bash -c ", "")},
	{"sh-c-positional", single("sh -c ", " sh a b")},
	{"env", single("env sh -c ", "")},
	{"env-i", single(`env -i PATH="$PATH" HXLOG="$HXLOG" sh -c `, "")},
	{"timeout", single("timeout 5 sh -c ", "")},
	{"nice", single("nice -n 1 bash -c ", "")},
	{"nohup", single("nohup sh -c ", " >/dev/null 2>&1")},
	{"setsid", single("setsid -w sh -c ", "")},
	{"stdbuf", single("stdbuf -o0 sh -c ", "")},
	{"command", single("command sh -c ", "")},
	{"exec", single("(exec sh -c ", ")")},
	{"find-exec", single("find . -maxdepth 0 -exec sh -c ", ` \;`)},
	{"xargs", single("xargs sh -c ", " </dev/null")},
	{"eval", single("eval ", "")},
	{"eval-double", double("eval ", "")},
	{"builtin-eval", single("builtin eval ", "")},
	{"emulate", single("emulate sh -c ", "")},
	{"trap", single("trap ", " EXIT")},
	{"bash-herestring", single("bash <<< ", "")},
	{"source-procsub", single(". <(printf '%s\\n' ", ")")},
	{"pipe-sh", single("printf '%s\\n' ", " | sh")},
	{"script-file", single("printf '%s\\n' ", " > hx.sh; sh hx.sh")},
	// The script reaches a file by other writers, then a shell runs the file.
	{"script-tee", single("printf '%s\\n' ", " | tee hx.sh >/dev/null; sh hx.sh")},
	{"script-cp", single("printf '%s\\n' ", " > hx.a; cp hx.a hx.sh; sh hx.sh")},
	{"script-mv", single("printf '%s\\n' ", " > hx.a; mv hx.a hx.sh; . ./hx.sh")},
	{"script-var", single(`hxs=hx.sh; printf '%s\n' `, ` > "$hxs"; sh "$hxs"`)},
	{"script-dd", single("printf '%s\\n' ", " | dd of=hx.sh 2>/dev/null; sh hx.sh")},
	{"script-sed", single("printf '%s\\n' ", " > hx.a; sed -n p hx.a > hx.sh; bash hx.sh")},
	{"script-exec", single("printf '%s\\n' ", " > hx.sh; chmod +x hx.sh; ./hx.sh")},
	{"script-echo", single("echo ", " > hx.sh; sh hx.sh")},
	{"script-append", single("printf '%s\\n' ", " >> hx.sh; . ./hx.sh")},
	{"source-heredoc", block(". /dev/stdin <<'HXEOF'", "HXEOF\n")},
	{"sh-heredoc", block("sh <<'HXEOF'", "HXEOF\n")},
	{"function", block("hxg() {", "}\nhxg")},
	{"subshell", block("(", ")")},
	{"group", block("{", "}")},
	{"if", block("if true; then", "fi")},
	{"for", block("for hxi in 1; do", "done")},
	{"while", block("while :; do", "break\ndone")},
	{"pipe", block("{", "} | cat >/dev/null")},
	{"cmdsub", block(`: "$(`, `)"`)},
	{"background", block("{", "} &\nwait")},
	{"and", block("true && {", "}")},
}

// placeholders are the spellings a leaf's placeholder is drawn from; Render gets the
// same value for each.
var placeholders = []string{"<<x>>", "<<x>>", "<<tool_input.command>>", "{{ y }}"}

// genCommand is a generated hook command and what its recorder calls must receive.
type genCommand struct {
	text  string
	parts []string        // the statements, to find which one fails alone
	forms []string        // leaf and nest names, for the report
	wants map[string]want // by recorder tag; absent: not checked
	must  map[string]bool // tags that must arrive whenever the harmless value's run got there
}

// generate draws a command of one to three statements.
func generate(c chooser) genCommand {
	g := genCommand{wants: map[string]want{}, must: map[string]bool{}}
	var b strings.Builder
	n := 1 + c.Intn(3)
	aborted := false
	for i := range n {
		var l leaf
		if c.Intn(3) > 0 { // two in three: a command of accepted forms is run, not only refused
			l = observedLeaves[c.Intn(len(observedLeaves))]
		} else {
			l = evalLeaves[c.Intn(len(evalLeaves))]
		}
		tag := "T" + strconv.Itoa(i)
		s := instantiate(c, l.text, tag)
		name := l.name
		for depth := c.Intn(4); depth > 1; depth-- { // 0 or 1 nest usually, up to 2
			nt := nests[c.Intn(len(nests))]
			s = nt.wrap(s)
			name = nt.name + "(" + name + ")"
		}
		g.forms = append(g.forms, name)
		if l.want != nil {
			g.wants[tag] = l.want
		}
		g.parts = append(g.parts, s)
		if !aborted && !l.aborts && !l.cond {
			g.must[tag] = true
		}
		aborted = aborted || l.aborts || l.cond // a later statement may sit behind && or ||
		if i > 0 && !strings.HasSuffix(b.String(), "\n") {
			join := []string{"; ", "\n", " && ", " || "}[c.Intn(4)]
			if strings.TrimSpace(join) != ";" && join != "\n" {
				s = "{ " + s + "\n}" // the whole statement is conditional, not its first command
			}
			b.WriteString(join)
		}
		b.WriteString(s)
	}
	g.text = b.String()
	return g
}

func instantiate(c chooser, text, tag string) string {
	ph := placeholders[c.Intn(len(placeholders))]
	v := varNames[c.Intn(len(varNames))]
	s := specials[c.Intn(len(specials))]
	var b strings.Builder
	for {
		i := strings.Index(text, "‹")
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		tok := text[i+len("‹") : i+len("‹")+1]
		text = text[i+len("‹")+1+len("›"):]
		switch tok {
		case "P":
			b.WriteString(ph)
		case "Q":
			b.WriteString([]string{ph, `"` + ph + `"`, "'" + ph + "'"}[c.Intn(3)])
		case "T":
			b.WriteString(tag)
		case "V":
			b.WriteString(v)
		case "S":
			b.WriteString(s)
		}
	}
}
