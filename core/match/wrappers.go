package match

import (
	"path"
	"strings"
)

// Wrappers, for "if" rules: programs that run a command given as their arguments. A rule
// about rm must see the rm in "command rm x", "sudo rm x", "timeout 5 rm x", "xargs rm" and
// "find . -exec rm {} ;". Claude Code's permission rules strip process wrappers (timeout,
// time, nice, nohup, stdbuf, bare xargs); for a guard, selecting too often is safe and too
// rarely is not, so every command a wrapper below runs is a command of the line, and a
// wrapper option it does not know may take a value, so the word after it is tried as the
// command too. A program that is neither a wrapper here, nor a shell or interpreter
// (interpreters.go), nor a leaf is looked into by guesses (unknownProgram).

// maxNesting bounds wrappers and scripts inside each other, and maxCommands the commands
// looked at in one line (unknown options multiply the candidates); past either, the line
// matches every rule.
const (
	maxNesting  = 16
	maxCommands = 1024
)

// wrapper says how a wrapper's arguments lead to the command it runs: options that take a
// value (short letters and long names, without dashes), how many operands come before the
// command, whether NAME=VALUE words are skipped, and whether the command's arguments come
// from elsewhere at run time (xargs, find -exec).
type wrapper struct {
	valued      string   // short options that take a value ("u" for sudo -u USER)
	valuedLong  []string // long options that take a value, when not written --name=value
	operands    int      // words before the command (timeout's duration, taskset's mask)
	assignments bool     // NAME=VALUE words before the command are skipped (env, sudo)
	shell       bool     // the rest is one shell script (watch joins its words)
	moreArgs    bool     // the command gets more arguments at run time
	plain       bool     // no options at all (nohup: its first word is the command)
}

var wrappers = map[string]wrapper{
	"command":  {},
	"builtin":  {},
	"exec":     {valued: "a"},
	"nohup":    {plain: true},
	"time":     {valued: "fo", valuedLong: []string{"format", "output"}},
	"nice":     {valued: "n", valuedLong: []string{"adjustment"}},
	"ionice":   {valued: "cnp", valuedLong: []string{"class", "classdata", "pid", "pgid", "uid"}},
	"stdbuf":   {valued: "ioe", valuedLong: []string{"input", "output", "error"}},
	"timeout":  {valued: "sk", valuedLong: []string{"signal", "kill-after"}, operands: 1},
	"sudo":     {valued: "ugCDhprtTUR", valuedLong: []string{"user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "command-timeout", "other-user", "chroot"}, assignments: true},
	"doas":     {valued: "uC"},
	"env":      {valued: "uC", valuedLong: []string{"unset", "chdir"}, assignments: true},
	"xargs":    {valued: "adEeIiLlnPs", valuedLong: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}, moreArgs: true},
	"setsid":   {},
	"chrt":     {valued: "T", operands: 1},
	"taskset":  {operands: 1},
	"unbuffer": {},
	"watch":    {valued: "ndq", valuedLong: []string{"interval", "differences", "equexit"}, shell: true},
	"busybox":  {plain: true},
	"flock":    {valued: "wEc", valuedLong: []string{"timeout", "conflict-exit-code", "command"}, operands: 1},
}

// findExec adds the commands of find's -exec, -execdir, -ok and -okdir.
func (in *lineInfo) findExec(c simpleCommand, depth int) {
	args, dyn := c.words[1:], c.dynamic[1:]
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(args) && args[j] != ";" && args[j] != "+" {
			j++
		}
		if j > i+1 {
			in.add(c.sub(withMoreArgs(args[i+1:j], replaced(args[i+1:j], dyn[i+1:j], "{}"))), depth+1)
		}
		i = j
	}
}

// wrapped adds the command a wrapper runs, and reports whether it found one. An option it
// does not know may take a value, so after each such option the word after the command is
// a candidate too.
func (in *lineInfo) wrapped(w wrapper, c simpleCommand, depth int) (ran bool) {
	name, args, dyn := c.words[0], c.words[1:], c.dynamic[1:]
	for k, a := range args {
		if !dyn[k] && strings.ContainsAny(a, shellSyntax) {
			in.maybeScript(a, depth) // an option's script this table does not know (sudo -s 'rm x')
		}
	}
	if name == "xargs" {
		dyn = xargsReplace(args, dyn)
	}
	i, operands, unsure := 0, w.operands, 0
	for ; i < len(args) && !w.plain; i++ {
		a := args[i]
		if dyn[i] {
			in.unknown = true // an option or operand only known at run time
			return
		}
		if a == "--" {
			i += 1 + operands // the operands still come before the command: timeout -- 5 rm x
			break
		}
		if long, ok := strings.CutPrefix(a, "--"); ok {
			long, _, hasValue := strings.Cut(long, "=")
			switch {
			case name == "env" && long == "split-string", name == "flock" && long == "command":
				in.optionScript(name, args[i+1:min(i+2, len(args))], dyn[i+1:min(i+2, len(args))], depth)
				return true
			case !hasValue && contains(w.valuedLong, long):
				i++
			case !hasValue:
				unsure++
			}
			continue
		}
		if len(a) > 1 && a[0] == '-' && !(name == "nice" && isNumber(a[1:])) {
			// Short options, possibly grouped (-iu NAME) or with the value glued (-n5).
			known := false
			for k := 1; k < len(a); k++ {
				switch {
				case name == "env" && a[k] == 'S', name == "flock" && a[k] == 'c':
					script, sdyn := args[i+1:min(i+2, len(args))], dyn[i+1:min(i+2, len(args))]
					if k+1 < len(a) {
						script, sdyn = []string{a[k+1:]}, []bool{false}
					}
					in.optionScript(name, script, sdyn, depth)
					return true
				case strings.IndexByte(w.valued, a[k]) >= 0:
					if k == len(a)-1 {
						i++ // the value is the next word
					}
					known = true
				default:
					continue
				}
				break
			}
			if !known {
				unsure++
			}
			continue
		}
		if name == "nice" && strings.HasPrefix(a, "-") {
			continue // nice -5
		}
		if w.assignments && isAssignment(a) {
			variable, value, _ := strings.Cut(a, "=")
			in.files.path = in.files.path || variable == "PATH"
			if scriptVariables[variable] && value != "" {
				in.files.ran(value, 1) // env BASH_ENV=s bash -c :
			}
			in.maybeScript(value, depth) // GIT_SSH_COMMAND='rm x' and the like
			continue
		}
		if operands > 0 {
			operands--
			continue
		}
		break
	}
	if i >= len(args) {
		if name == "xargs" {
			in.add(c.sub(withMoreArgs([]string{"echo"}, []bool{false})), depth+1) // xargs' default
		}
		return
	}
	for k := i; k <= i+unsure && k < len(args); k++ {
		if k > i && strings.HasPrefix(args[k], "-") {
			continue
		}
		sub := c.sub(simpleCommand{words: args[k:], dynamic: dyn[k:]})
		switch {
		case w.shell:
			in.script(sub.words, sub.dynamic, depth)
		case w.moreArgs:
			in.add(c.sub(withMoreArgs(sub.words, sub.dynamic)), depth+1)
		default:
			in.add(sub, depth+1)
		}
	}
	return true
}

// optionScript reads the script of env -S or flock -c. env -S splits its string itself:
// \_ is a space there, other escapes and ${VAR} are left unknown.
func (in *lineInfo) optionScript(name string, words []string, dyn []bool, depth int) {
	if name == "env" && len(words) == 1 && !dyn[0] {
		s := strings.ReplaceAll(words[0], `\_`, " ")
		if strings.Contains(s, `\`) || strings.Contains(s, "${") {
			in.unknown = true
			return
		}
		words = []string{s}
	}
	in.script(words, dyn, depth)
}

// withMoreArgs is a command that gets more arguments at run time (xargs, find -exec {}):
// a last word of unknown value stands for them.
func withMoreArgs(words []string, dyn []bool) simpleCommand {
	return simpleCommand{words: append(words[:len(words):len(words)], ""), dynamic: append(dyn[:len(dyn):len(dyn)], true)}
}

// replaced marks the words holding a replacement string (find's {}, xargs -I's) as known
// only at run time: sh -c {} runs a file name or an input line.
func replaced(words []string, dyn []bool, mark string) []bool {
	out := append([]bool(nil), dyn...)
	for i, w := range words {
		out[i] = out[i] || strings.Contains(w, mark)
	}
	return out
}

// xargsReplace applies replaced to xargs' words after -I STR, -iSTR or --replace[=STR].
func xargsReplace(args []string, dyn []bool) []bool {
	for i, a := range args {
		mark, next := "", i+1
		switch {
		case a == "-I" && i+1 < len(args):
			mark, next = args[i+1], i+2
		case a == "-i" || a == "--replace":
			mark = "{}"
		case strings.HasPrefix(a, "--replace="):
			mark = strings.TrimPrefix(a, "--replace=")
		case strings.HasPrefix(a, "-I") || strings.HasPrefix(a, "-i"):
			mark = a[2:]
		default:
			continue
		}
		return append(dyn[:next:next], replaced(args[next:], dyn[next:], mark)...)
	}
	return dyn
}

// sub is a command that c runs, with c's input (a wrapper's here-string reaches it).
func (c simpleCommand) sub(s simpleCommand) simpleCommand {
	s.heres, s.input = c.heres, c.input
	return s
}

// unknownProgram adds what a program this file does not know may run. It may be a wrapper
// of its own (strace, setpriv, runuser, docker exec), so each later word that is not an
// option starts a command too; and it may hand an argument, or its here-document, to a
// shell (su -c, script -c, ssh, tmux), so each argument or here-document that reads as a
// shell line is read as one. These are guesses on the guard's side: a suffix is not
// looked into again, and an argument that does not parse is data.
func (in *lineInfo) unknownProgram(c simpleCommand, depth int) {
	if c.suffix || leaves[path.Base(c.words[0])] {
		return
	}
	for k := 1; k < len(c.words); k++ {
		w := c.words[k]
		if !c.dynamic[k] && strings.ContainsAny(w, shellSyntax) {
			in.maybeScript(w, depth) // su -c 'rm x', --command='rm x'
		}
		switch {
		case w == "" || strings.HasPrefix(w, "-") || isAssignment(w):
			continue // an option, or data
		case c.dynamic[k] && (strings.Contains(w, substitution) || strings.Contains(w, "/")):
			in.unknown = true // a program only known at run time, or a glob of paths (/usr/bin/r[m])
			return
		case c.dynamic[k]:
			continue // a glob of file names in the working directory: data
		}
		sub := simpleCommand{words: c.words[k:], dynamic: c.dynamic[k:]}
		if copiers[path.Base(c.words[0])] {
			sub = withMoreArgs(sub.words, sub.dynamic) // ln -s /bin/rm r; ./r -rf x: run later, with any arguments
		}
		sub.suffix = true
		in.add(c.sub(sub), depth+1)
	}
	for _, h := range c.heres {
		in.maybeScript(h, depth)
	}
}

// shellSyntax are the characters that make a word, read as a shell line, mean more than
// itself ({curl,-s,u} is curl -s u under su -c).
const shellSyntax = " \t\n;|&{}()<>$`'\"\\*?[~"

// copiers make a program (a link, a copy) that the line may run under another name.
var copiers = map[string]bool{"ln": true, "cp": true, "install": true, "mv": true, "link": true, "rsync": true}

// leaves are programs known to run nothing they are given: their arguments are data.
var leaves = map[string]bool{}

func init() {
	for _, name := range strings.Fields(`echo printf cat ls grep egrep fgrep head tail wc cut tr uniq
		mkdir rmdir touch chmod chown chgrp pwd cd test [ true false : basename dirname
		realpath readlink stat file sleep date id whoami uname hostname tee diff cmp comm paste
		join fold nl od xxd hexdump base64 md5sum sha1sum sha256sum sha512sum jq mktemp seq yes
		du df ps kill export local declare typeset readonly unset set shift return exit break
		continue read shopt type which wait umask ulimit pushd popd dirs let
		printenv rm curl wget unlink truncate sync tput clear history jobs fg bg disown`) {
		leaves[name] = true
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isNumber(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// isAssignment reports whether a word is NAME=VALUE.
func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
