package match

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A variable name only known at run time, given where bash evaluates its subscript,
// selects every Bash rule; a literal one is read as the line spells it, so everyday uses
// of the same builtins still select only the rules their commands match.
func TestRuleBashNames(t *testing.T) {
	p := `x=\$; y="a[$x(rm z)]"; `
	unknown := []string{
		p + `test -v "$y"`, p + `[ -v "$y" ]`, p + `[[ -v $y ]]`, p + `[[ -R $y ]]`, p + `read "$y" <<< q`,
		p + `read -ra "$y" <<< q`, p + `printf -v "$y" q`, p + `printf -v"$y" q`, p + `declare "$y=1"`,
		p + `declare -n r="$y"; : "$r"`, p + `f(){ local "$y=1"; }; f`, p + `export "$y"`, p + `unset "$y"`,
		p + `mapfile "$y" <<< q`, p + `sleep 0 & wait -p "$y"`, p + `getopts a "$y"`, p + `let "$y"`,
		p + `(( $y ))`, p + `echo $(( $y + 1 ))`, p + `a[$y]=1`, p + `echo "${a[$y]}"`, p + `builtin declare "$y=1"`,
		p + `o=-v; printf "$o" "$y" q`, p + `test "$o" "$y"`, p + `for (( i = 0; i < $y; i++ )); do :; done`,
		`trap "$(echo rm z)" EXIT`, `trap -- "$(printf 'rm z')" EXIT`,
		`echo 'rm z' > s; BASH_ENV=s bash -c :`, `echo 'rm z' > s; export BASH_ENV=s; bash -c :`,
		`echo 'rm z' > s; declare -x BASH_ENV=s; bash -c :`, `printf -v BASH_ENV s; export BASH_ENV; bash -c :`,
		`echo 'rm z' > s; ENV=s sh -i <<< ''`, `echo 'rm z' > s; env BASH_ENV=./s bash -c :`,
		`BASH_ENV+=s bash -c :`, p + `declare -n r; r="$y"; : "$r"`, p + `builtin declare -n r; r="$y"; : "$r"`, `declare -n r=BASH_ENV; r=s; bash -c :`, `read BASH_ENV <<< s; bash -c :`,
	}
	for _, line := range unknown {
		require.True(t, ruleMatch(t, "Bash(rm *)", "Bash", `{"command":`+quote(line)+`}`), "%s", line)
	}
	literal := []string{
		`test -v HOME`, `[[ -v a[1] ]]`, `read -r line <<< q`, `read -p "$prompt" v <<< q`, `printf -v out '%s' "$x"`,
		`printf '%s\n' "$x"`, `declare -x A="$x"`, `local -r n=1`, `declare -n r=v`, `unset v`, `mapfile -t lines <<< q`,
		`getopts ab opt`, `let i=i+1`, `(( i++ ))`, `echo $(( i + 1 ))`, `echo $(( $# + 1 ))`,
		`trap 'echo done' EXIT`, `BASH_ENV=env.sh bash -c :`, `[ -n "$x" ]`, `[ "$a" = "$b" ]`, `test -f "$f"`,
	}
	for _, line := range literal {
		require.False(t, ruleMatch(t, "Bash(rm *)", "Bash", `{"command":`+quote(line)+`}`), "%s", line)
	}
	// A literal name holding a substitution, and a literal trap action, are read as code.
	for _, line := range []string{`test -v 'a[$(rm z)]'`, `printf -v 'a[$(rm z)]' q`, `trap 'rm z' EXIT`,
		`declare -n r='a[$(rm z)]'; : "$r"`} {
		require.True(t, ruleMatch(t, "Bash(rm *)", "Bash", `{"command":`+quote(line)+`}`), "%s", line)
	}
}
