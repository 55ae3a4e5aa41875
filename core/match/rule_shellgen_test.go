package match

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

// The grammar of the differential "if" rule test (rule_shell_test.go): Bash lines that
// run a recorded program (rm, git, curl) through the constructs bash offers for running a
// program whose name is not a plain word of the line: spellings of the command word,
// wrappers, shells and interpreters fed by -c, here-strings, heredocs, pipes and process
// substitutions, compound commands, substitutions and redirections, with decoys that only
// mention a program. Every line is safe to run in the sandbox: the recorded programs are
// recorders there, and everything else writes only under the working directory.

// choices drives the grammar: from a seeded math/rand source (the short test) or from a
// fuzzer's bytes (FuzzIfRuleShell), where a spent input always picks choice 0, the
// simplest, so every input ends.
type choices struct {
	rnd   *rand.Rand
	bytes []byte
	depth int
}

func (c *choices) n(k int) int {
	if c.rnd != nil {
		return c.rnd.Intn(k)
	}
	if len(c.bytes) == 0 {
		return 0
	}
	b := c.bytes[0]
	c.bytes = c.bytes[1:]
	return int(b) % k
}

func (c *choices) pick(list ...string) string { return list[c.n(len(list))] }

// maxGenDepth bounds nesting; past it only plain commands are made.
const maxGenDepth = 4

// holeShapes are the lines of issue 25's hole 5 and the constructs its brief names, each
// run as written (and composed with the rest by the grammar).
var holeShapes = []string{
	"{rm,-rf,x}",
	"bash <<< 'rm -rf x'",
	". <(echo rm -rf x)",
	"source /dev/stdin <<< 'rm -rf x'",
	"bash <<'EOF'\nrm -rf x\nEOF",
	"echo 'rm -rf x' | sh",
	"eval \"$(echo rm -rf x)\"",
	"$(echo rm) -rf x",
	"X=rm; $X -rf x",
	"shopt -s expand_aliases\nalias x=rm\nx -rf y",
	"ls() { command rm \"$@\"; }; ls -rf x",
	"hash -p /usr/bin/rm ls; ls -rf x",
	"command -p rm -rf x",
	"\\rm -rf x",
	"'r'm -rf x",
	"/usr/bin/../bin/rm -rf x",
	"/usr/bin/r[m] -rf x",
	"echo x | xargs rm",
	"find . -maxdepth 0 -exec rm -rf {} \\;",
	"env -S 'rm -rf x'",
	"nice -n 5 ionice -c 3 chrt -o 0 taskset 1 stdbuf -o0 flock f setsid nohup rm -rf x",
	"script -qc 'rm -rf x' /dev/null",
	"su -c 'rm -rf x'",
	"busybox rm -rf x",
	"python3 -c 'import os; os.system(\"rm -rf x\")'",
	"perl -e 'system(\"rm -rf x\")'",
	"awk 'BEGIN{system(\"rm -rf x\")}'",
	"sh -c \"bash -c 'dash -c \\\"rm -rf x\\\"'\"",
	"git -c alias.z='!rm -rf x' z",
	"echo x | sed -n '1e rm -rf x'",
	"time -p rm -rf x",
	"exec rm -rf x",
	"$'\\x72m' -rf x",
	"bash -c \"$(printf 'rm -rf x')\"",
	"python3 <<< 'import os; os.system(\"rm x\")'",
	"git push origin main",
	"timeout 5 git push",
	"curl -s http://127.0.0.1:9/",
	// found while making the matcher pass the above: code bash or a program runs later
	"printf -v v '%s' 'a[$(rm -rf x)]'; echo $((v))",
	"x='a[$(rm -rf y)]'; (( x ))",
	"PS4='$(rm -rf x)'; set -x; :",
	"BASH_ENV=<(echo 'rm -rf x') bash -c :",
	"trap 'rm -rf x' EXIT",
	"mapfile -C 'rm -rf x' -c 1 <<< a",
	"tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm -rf x' .",
	"echo 'rm -rf x' | xargs -I{} sh -c {}",
	"touch 'rm -rf x' && find 'rm -rf x' -maxdepth 0 -exec sh -c {} \\;",
	"ln -sf /usr/bin/rm r && ./r -rf x",
	"cp /bin/rm r2 && ./r2 -rf x",
	"zsh -c '=rm -rf x'",
	"make -f /dev/stdin <<< $'all:\\n\\trm -rf x'",
	"vim -es -c '!rm -rf x' -c q",
	"ssh -o ProxyCommand='rm -rf x' -o BatchMode=yes h",
	"awk -v c='rm -rf x' 'BEGIN{system(c)}'",
	"sed 's/.*/rm -rf x/e' <<< a",
	"perl -MPOSIX -e 'system q(rm -rf x)'",
	"git -C . -c alias.z='!rm -rf x' z",
	"git init -q && git commit -q --allow-empty -m i && git rebase -q --exec 'rm -rf x' --root",
	"git init -q && git commit -q --allow-empty -m i && git rebase -q -x 'git push origin main' --root",
	"env -S 'sh -c \"rm -rf x\"'",
	"timeout 5 bash <<< 'rm -rf x'",
	"nohup sh <<< 'rm -rf x'",
	"bash -s -- a <<< 'rm -rf x'",
	". /dev/fd/3 3<<< 'rm -rf x'",
	"exec 3<<<'rm -rf x'; bash <&3",
	"{ bash; } <<< 'rm -rf x'",
	"coproc rm -rf x; wait",
	"/proc/self/exe -c 'rm -rf x'",
	"command eval 'rm -rf x'",
	"dash <<EOF\nrm -rf x\nEOF",
	"echo 'rm -rf x' | su",
	"su -c '{rm,-rf,x}'",
	"script -qc 'rm -rf x # a\n && true' /dev/null",
	"sh <<'EOF'\nbash -lc 'printf '\\''%s\\n'\\'' '\\''git push'\\'' & wait; busybox rm -- x'\nEOF",
	"script -qc \"'r'm -rf x\" /dev/null",
	"su <<< 'rm -rf x'",
	"bash --rcfile <(echo 'rm -rf x') -i <<< ''",
	"bash -c \". -- /dev/stdin <<< 'rm -rf x'\"",
	"eval -- 'rm -rf x'",
	"env -S 'rm\\_-rf\\_x'",
	"env -S 'sh -c \\\"rm -rf x\\\"'",
	"awk -f /dev/stdin <<< 'BEGIN{system(\"rm -rf x\")}'",
	"python3 /dev/stdin <<< 'import os; os.system(\"rm -rf x\")'",
	// a script file the line writes, then runs
	"echo 'rm -rf x' > s.sh; bash s.sh",
	"printf 'rm -rf x\\n' > s; . ./s",
	"cat > s <<'EOF'\nrm -rf x\nEOF\nchmod +x s; ./s",
	"echo 'rm -rf x' | tee s >/dev/null; timeout 5 sh s",
	"echo 'import os; os.system(\"rm -rf x\")' > p.py; python3 p.py",
	"mkdir -p b; printf '#!/bin/sh\\nrm -rf x\\n' > b/ls; chmod +x b/ls; PATH=./b:$PATH ls",
	// a value the line does not spell out, evaluated as an expression
	"v=$(printf 'a[\\x24(rm -rf x)]'); echo $((v))",
	"v=$(printf 'a[\\x24(rm -rf x)]'); [[ v -gt 0 ]]",
	"v=$(printf 'a[\\x24(rm -rf x)]'); echo ${!v}",
	"v=$(printf '\\x24(rm -rf x)'); echo ${v@P}",
	"declare -i n; n=$(printf 'a[\\x24(rm -rf x)]')",
	"a=(1); v=$(printf 'a[\\x24(rm -rf x)]'); echo ${a[v]}",
	"s=abc; v=$(printf 'a[\\x24(rm -rf x)]'); echo ${s:v}",
	"v=$(printf 'a[\\x24(rm -rf x)]'); a[v]=1",
	"read v < <(printf 'a[\\x24(rm -rf x)]'); let v",
	"f() { (( $1 )); }; f \"$(printf 'a[\\x24(rm -rf x)]')\"",
	"for v in \"$(printf 'a[\\x24(rm -rf x)]')\"; do (( v )); done",
	// a variable name built at run time, given to a builtin that takes a name (bash
	// evaluates its subscript as arithmetic), a trap action and BASH_ENV/ENV the line makes
	"x=\\$; y=\"a[$x(rm z)]\"; test -v \"$y\"",
	"x=\\$; y=\"a[$x(rm z)]\"; [[ -v $y ]]",
	"x=\\$; y=\"a[$x(rm z)]\"; read \"$y\" <<< q",
	"x=\\$; y=\"a[$x(rm z)]\"; printf -v \"$y\" q",
	"x=\\$; y=\"a[$x(rm z)]\"; declare \"$y=1\"",
	"x=\\$; y=\"a[$x(rm z)]\"; declare -n r=\"$y\"; : \"$r\"",
	"x=\\$; y=\"a[$x(rm z)]\"; f(){ local \"$y=1\"; }; f",
	"trap \"$(echo rm z)\" EXIT",
	"trap \"$(printf 'rm z')\" EXIT",
	"echo 'rm z' > s; BASH_ENV=s bash -c :",
	"echo 'rm z' > s; export BASH_ENV=s; bash -c :",
	"echo 'rm z' > s; declare -x BASH_ENV=s; bash -c :",
	"echo 'rm z' > s; printf -v BASH_ENV s; export BASH_ENV; bash -c :",
	"echo 'rm z' > s; ENV=s sh -i <<< ''",
}

// line makes one complete Bash line.
func (c *choices) line() string {
	c.depth = 0
	return c.list()
}

// list is a command or a list, pipeline or compound command of them.
func (c *choices) list() string {
	if c.depth >= maxGenDepth {
		return c.simple()
	}
	c.depth++
	defer func() { c.depth-- }()
	switch c.n(10) {
	case 0, 1:
		return c.simple()
	case 2:
		return c.runner()
	case 3:
		a, b := c.list(), c.list()
		return a + c.pick(" | ", " && ", " || ", "; ", "\n", " & wait; ") + b
	case 4:
		return c.compound(c.list())
	case 5:
		return c.substituted(c.list())
	case 6:
		return c.decoy() + c.pick("; ", " && ", " | ") + c.list()
	case 7:
		return c.named(c.list())
	case 8:
		return c.hidden(c.list())
	}
	return holeShapes[c.n(len(holeShapes))]
}

// named runs a line from a subscript that bash evaluates when a builtin is given the
// variable name holding it: the name is built at run time, so the line never spells
// $( before the code.
func (c *choices) named(s string) string {
	var y string
	if strings.ContainsAny(s, "]\n") {
		s = c.target()
		if strings.ContainsAny(s, "]\n") {
			s = "rm -rf x"
		}
	}
	if strings.ContainsAny(s, "\"\\`$") {
		y = "y=$(printf 'a[\\x24(%s)]' " + shellQuote(s) + "); "
	} else {
		y = c.pick("x=\\$; ", "x='$'; ") + "y=\"a[$x(" + s + ")]\"; "
	}
	return y + c.pick(`test -v "$y"`, `[ -v "$y" ]`, `[[ -v $y ]]`, `read "$y" <<< q`, `printf -v "$y" q`,
		`declare "$y=1"`, `typeset "$y=1"`, `declare -n r="$y"; : "$r"`, `f(){ local "$y=1"; }; f`, `unset "$y"`,
		`export "$y=1"`, `readonly "$y=1"`, `mapfile -t "$y" <<< q`, `sleep 0 & wait -p "$y"`, `getopts a "$y"`,
		`let "$y"`, `(( $y ))`, `echo $(( $y ))`, `builtin declare "$y=1"`, `o=-v; printf "$o" "$y" q`,
		`[[ -R $y ]]`, `declare -n r; r="$y"; : "$r"`)
}

// hidden runs a line as code bash reads from a place the line fills at run time: a trap
// action made by a substitution, or a script file the line writes and names in BASH_ENV
// or ENV.
func (c *choices) hidden(s string) string {
	sq := shellQuote(s)
	if c.n(2) == 0 {
		return c.pick("trap ", "trap -- ") + "\"$(printf '%s' " + sq + ")\" " + c.pick("EXIT", "ERR; false", "EXIT; exit 0")
	}
	return c.pick("printf '%s\\n' "+sq+" > s", "cat > s <<'EOF_S'\n"+s+"\nEOF_S") + "; " +
		c.pick("BASH_ENV=s bash -c :", "export BASH_ENV=s; bash -c :", "declare -x BASH_ENV=s; bash -c :",
			"printf -v BASH_ENV s; export BASH_ENV; bash -c :", "env BASH_ENV=./s bash -c :",
			"BASH_ENV=$(echo s) bash -c :", "read BASH_ENV <<< s; export BASH_ENV; bash -c :",
			"ENV=s sh -i <<< ''", "export ENV=s; sh -i <<< ''", "BASH_ENV=s bash -c : < /dev/null")
}

// compound puts a line inside one of bash's compound commands.
func (c *choices) compound(s string) string {
	switch c.n(12) {
	case 0:
		return "( " + s + " )"
	case 1:
		return "{ " + s + "; }"
	case 2:
		return "f() { " + s + "; }; f"
	case 3:
		return "if true; then " + s + "; fi"
	case 4:
		return "for i in 1; do " + s + "; done"
	case 5:
		return "case x in x) " + s + ";; esac"
	case 6:
		return "! { " + s + "; }"
	case 7:
		return "{ " + s + "; } 2>/dev/null >out.txt"
	case 8:
		return "while true; do " + s + "; break; done"
	case 9:
		return "function g { " + s + "; }; g"
	case 10:
		return "coproc { " + s + "; }; wait"
	}
	return "time { " + s + "; }"
}

// substituted runs a line inside a substitution or a redirection's process.
func (c *choices) substituted(s string) string {
	switch c.n(9) {
	case 0:
		return "echo $(" + s + ")"
	case 1:
		return "x=$(" + s + ")"
	case 2:
		return "echo `" + strings.ReplaceAll(s, "`", "\\`") + "`"
	case 3:
		return "cat <(" + s + ")"
	case 4:
		return "true > >(" + s + "); wait"
	case 5:
		return ": \"${x:-$(" + s + ")}\""
	case 6:
		return "[[ -n $(" + s + ") ]]"
	case 7:
		return "echo $(( $(" + s + ") + 0 ))"
	}
	return "cat <<EOF\n$(" + s + ")\nEOF"
}

// simple is one simple command: a recorded program spelled some way, a wrapper around
// one, or a decoy.
func (c *choices) simple() string {
	switch c.n(6) {
	case 0, 1:
		return c.target()
	case 2, 3:
		if c.depth < maxGenDepth+2 {
			c.depth++
			defer func() { c.depth-- }()
			return c.wrapper(c.simple())
		}
		return c.target()
	case 4:
		return c.decoy()
	}
	return holeShapes[c.n(len(holeShapes))]
}

// target runs rm, git or curl, its command word spelled one of the ways bash reads as it.
func (c *choices) target() string {
	var prog, args string
	switch c.n(3) {
	case 0:
		prog, args = "rm", c.pick("-rf x", "x", "-f x", "-r -f x", "-rf", "-- x")
	case 1:
		prog, args = "git", c.pick("push origin main", "push", "status", "commit -m 'rm x'", "push --force")
	default:
		prog, args = "curl", c.pick("-s http://127.0.0.1:9/", "http://127.0.0.1:9/x")
	}
	head, rest := prog[:1], prog[1:]
	switch c.n(23) {
	case 0:
		return prog + " " + args
	case 1:
		return "/bin/" + prog + " " + args
	case 2:
		return "/usr/bin/" + prog + " " + args
	case 3:
		return "/usr/bin/../bin/" + prog + " " + args
	case 4:
		return "\\" + prog + " " + args
	case 5:
		return "'" + head + "'" + rest + " " + args
	case 6:
		return "\"" + prog + "\" " + args
	case 7:
		return head + "''" + rest + " " + args
	case 8:
		return head + "\\" + rest + " " + args
	case 9:
		if !strings.ContainsAny(args, " '") {
			return "{" + prog + "," + args + "}"
		}
		return "{" + prog + ",} " + args
	case 10:
		return fmt.Sprintf("$'\\x%02x'%s %s", head[0], rest, args)
	case 11:
		return "${P:-" + prog + "} " + args
	case 12:
		return "{ P=" + prog + "; $P " + args + "; }"
	case 13:
		return "$(echo " + prog + ") " + args
	case 14:
		return "\"$(printf " + prog + ")\" " + args
	case 15:
		return "/usr/bin/" + head + "[" + rest[:1] + "]" + rest[1:] + " " + args
	case 16:
		return "shopt -s expand_aliases\nalias q=" + prog + "\nq " + args
	case 17:
		return "{ h() { " + prog + " \"$@\"; }; h " + args + "; }"
	case 18:
		return "{ hash -p /usr/bin/" + prog + " ls; ls " + args + "; }"
	case 19:
		return "( exec " + prog + " " + args + " )"
	case 20:
		return "`echo " + prog + "` " + args
	case 21:
		return "{ ln -sf /usr/bin/" + prog + " lnk && ./lnk " + args + "; }"
	}
	return "/bin//" + prog + " " + args
}

// decoy mentions a program without running it.
func (c *choices) decoy() string {
	return c.pick("echo rm -rf x", "printf '%s\\n' 'git push'", "grep -q rm /dev/null", "cat <<'EOF'\nrm -rf x\nEOF",
		": rm -rf x", "echo 'bash -c \"rm x\"'", "test -e rm", "type rm >/dev/null", "command -v curl >/dev/null",
		"echo git push # rm x\n", "true", "ls rm 2>/dev/null", "find . -name rm", "timeout 5 true")
}

// wrapper runs a simple command through a program that runs its arguments.
func (c *choices) wrapper(s string) string {
	switch c.n(34) {
	case 0:
		return "timeout 5 " + s
	case 1:
		return "timeout -s KILL -k 1 5 " + s
	case 2:
		return "nice -n 5 " + s
	case 3:
		return "nice -5 " + s
	case 4:
		return "nohup " + s
	case 5:
		return "setsid " + s
	case 6:
		return "stdbuf -oL -eL " + s
	case 7:
		return "ionice -c3 " + s
	case 8:
		return "chrt -o 0 " + s
	case 9:
		return "taskset 1 " + s
	case 10:
		return "flock -w 1 lock " + s
	case 11:
		return "env " + s
	case 12:
		return "env -i A=1 " + s
	case 13:
		return "env -u HOME -- " + s
	case 14:
		return "command " + s
	case 15:
		return "command -p " + s
	case 16:
		return "time " + s
	case 17:
		return "busybox " + s
	case 18:
		return "echo x | xargs " + s
	case 19:
		return "xargs -I{} " + s + " {} <<< x"
	case 20:
		return "find . -maxdepth 0 -exec " + s + " {} \\;"
	case 21:
		return "find . -maxdepth 0 -execdir " + s + " {} +"
	case 22:
		return "runuser -u root -- " + s
	case 23:
		return "setpriv --reuid=0 " + s
	case 24:
		return "prlimit --nofile=1024 " + s
	case 25:
		return "timeout 0.5 watch -n 0.1 -t -x " + s
	case 26:
		return "env -C . " + s
	case 27:
		return "nice --adjustment=3 " + s
	case 28:
		return "xargs -0 -n1 " + s + " < /dev/null"
	case 29:
		return "exec " + s
	case 30:
		return "chrt --other 0 " + s
	case 31:
		return "taskset -c 0 " + s
	case 32:
		return "ionice -t -c 2 -n 7 " + s
	}
	return "flock lock " + s
}

// runner runs a whole line as a script: through a shell, eval, source, an interpreter or
// a program that hands its argument to a shell.
func (c *choices) runner() string {
	s := c.list()
	sq := shellQuote(s)
	dq := strconv.Quote(s) // a double-quoted string literal in Python, awk, Perl and JavaScript
	switch c.n(38) {
	case 0:
		return c.pick("bash", "sh", "dash", "zsh", "mksh", "rbash", "busybox sh") + " -c " + sq
	case 1:
		return c.pick("bash -ec ", "bash -o pipefail -c ", "sh -c -- ", "bash --norc -c ", "bash -lc ") + sq
	case 2:
		return "bash -c " + sq + " name arg"
	case 3:
		return c.pick("bash", "sh", "dash", "bash -s", "zsh") + " <<< " + sq
	case 4:
		return c.pick("bash", "sh") + " <<'EOF_" + strconv.Itoa(c.depth) + "'\n" + s + "\nEOF_" + strconv.Itoa(c.depth)
	case 5:
		return "echo " + sq + " | " + c.pick("bash", "sh", "dash")
	case 6:
		return "printf '%s\\n' " + sq + " | bash -s"
	case 7:
		return "bash < <(echo " + sq + ")"
	case 8:
		return c.pick("bash", "sh") + " <(echo " + sq + ")"
	case 9:
		return "bash /dev/stdin <<< " + sq
	case 10:
		return c.pick(".", "source") + " <(echo " + sq + ")"
	case 11:
		return c.pick(".", "source") + " /dev/stdin <<< " + sq
	case 12:
		return ". /dev/fd/3 3<<< " + sq
	case 13:
		return "eval " + sq
	case 14:
		return "eval \"$(echo " + sq + ")\""
	case 15:
		return "{ S=" + sq + "; eval \"$S\"; }"
	case 16:
		return "{ S=" + sq + "; bash -c \"$S\"; }"
	case 17:
		return "python3 -c " + shellQuote("import os; os.system("+dq+")")
	case 18:
		return "python3 -c " + shellQuote("import subprocess; subprocess.run("+dq+", shell=True)")
	case 19:
		return "python3 <<< " + shellQuote("import os; os.system("+dq+")")
	case 20:
		return "perl -e " + shellQuote("exec('sh', '-c', "+perlQuote(s)+")")
	case 21:
		return "perl -e " + shellQuote("system("+perlQuote(s)+")")
	case 22:
		return "awk " + shellQuote("BEGIN{system("+dq+")}")
	case 23:
		return "awk " + shellQuote("BEGIN{print "+dq+" | \"sh\"}")
	case 24:
		return "node -e " + shellQuote("require('child_process').execSync("+dq+")")
	case 25:
		return "git -c alias.z=" + shellQuote("!"+s) + " z"
	case 26:
		return "script -qc " + sq + " /dev/null"
	case 27:
		return "su -c " + sq
	case 28:
		return "su root -c " + sq
	case 29:
		return "flock -c " + sq + " lock"
	case 30:
		return "timeout 0.5 watch -n 0.1 -t " + sq
	case 31:
		return "find . -maxdepth 0 -exec sh -c " + sq + " \\;"
	case 32:
		return "xargs -0 sh -c < <(printf '%s' " + sq + ")"
	case 33:
		if !strings.ContainsAny(s, "\n'\"\\$`;|&<>(){}") {
			return "env -S " + sq
		}
		return "env sh -c " + sq
	case 34:
		if !strings.ContainsAny(s, "\n/") {
			return "echo x | sed -n " + shellQuote("1e "+s)
		}
		return "sed -n 1p <<< x; " + s
	case 35:
		return "runuser -u root -- sh -c " + sq
	case 36:
		return "busybox sh -c " + sq
	}
	return "echo " + sq + " | xargs -0 bash -c"
}

// shellQuote single-quotes s for the shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// perlQuote is s as a Perl single-quoted string.
func perlQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
