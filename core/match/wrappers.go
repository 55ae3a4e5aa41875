package match

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What a Bash line runs, for "if" rules. A rule about rm must see the rm in "/bin/rm x",
// "command rm x", "sudo rm x", "timeout 5 rm x", "xargs rm", "find . -exec rm {} ;" and
// "bash -c 'rm x'". Claude Code's permission rules strip process wrappers (timeout, time,
// nice, nohup, stdbuf, bare xargs) before matching and check each subcommand of a compound
// line; for a guard, selecting too often is safe and too rarely is not, so this goes
// further: every command a wrapper below runs is a command of the line, a program named
// by a path is also matched by its base name, the script of a shell's -c (and of eval,
// watch, env -S) is read like the line itself, and where what runs cannot be known (a
// wrapper's option it does not know, a script only known at run time, nesting past
// maxNesting) the line matches every rule. Wrappers that are not listed (npx, docker
// exec, ssh, ...) are not looked into: the rule sees them as written.

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

// shells run the script given to -c.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true}

// lineInfo is what a line runs.
type lineInfo struct {
	cmds    []simpleCommand
	dynamic bool // some word's value is only known at run time
	unknown bool // a command it runs cannot be known: the line matches every rule
	steps   int  // commands looked at, bounded by maxCommands
}

// read adds the commands of a shell line; it reports false when the line does not parse.
func (in *lineInfo) read(line string, depth int) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true // assignments alone run nothing; keep walking into $() etc.
		}
		var c simpleCommand
		for _, w := range call.Args {
			s, dyn := wordValue(w)
			c.words = append(c.words, s)
			c.dynamic = append(c.dynamic, dyn)
			in.dynamic = in.dynamic || dyn
		}
		in.add(c, depth)
		return true
	})
	return true
}

// add adds one simple command and what it runs.
func (in *lineInfo) add(c simpleCommand, depth int) {
	if len(c.words) == 0 || in.unknown {
		return // once unknown, the line matches every rule: nothing more to look at
	}
	if in.steps++; in.steps > maxCommands {
		in.unknown = true
		return
	}
	for _, d := range c.dynamic {
		in.dynamic = in.dynamic || d // xargs and find -exec add arguments unknown here
	}
	if c.dynamic[0] || depth > maxNesting {
		in.unknown = true // the command run is unknown
		return
	}
	in.cmds = append(in.cmds, c)
	name := c.words[0]
	if base := path.Base(name); base != name && strings.Contains(name, "/") {
		// /bin/rm, ./rm: matched by their base name too (selecting too often is safe).
		c = simpleCommand{words: append([]string{base}, c.words[1:]...), dynamic: c.dynamic}
		in.cmds = append(in.cmds, c)
		name = base
	}
	args, dyn := c.words[1:], c.dynamic[1:]
	switch {
	case shells[name]:
		in.shellScript(args, dyn, depth)
	case name == "eval":
		in.script(args, dyn, depth)
	case name == "find":
		in.findExec(args, dyn, depth)
	default:
		if w, ok := wrappers[name]; ok {
			in.wrapped(w, name, args, dyn, depth)
		}
	}
}

// script reads words joined by spaces as a shell line (eval, watch, env -S).
func (in *lineInfo) script(words []string, dyn []bool, depth int) {
	for _, d := range dyn {
		if d {
			in.unknown = true
			return
		}
	}
	if len(words) > 0 && !in.read(strings.Join(words, " "), depth+1) {
		in.unknown = true
	}
}

// shellScript reads a shell's -c script; a shell reading a file or its stdin runs what
// cannot be known here, and is left to the rule as written.
func (in *lineInfo) shellScript(args []string, dyn []bool, depth int) {
	c, i := false, 0
	for ; i < len(args); i++ {
		a := args[i]
		if dyn[i] {
			in.unknown = true // an option only known at run time
			return
		}
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			break
		}
		switch {
		case a == "--rcfile" || a == "--init-file" || a[1:] == "o" || a[1:] == "O":
			i++ // bash -o pipefail -c '...'
		case a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'c'):
			c = true // -c, -ec, -xc: the script is the first word after the options
		}
	}
	switch {
	case c && i < len(args):
		in.script(args[i:i+1], dyn[i:i+1], depth)
	case c:
		in.unknown = true // -c without a script word this reads as one
	}
}

// findExec adds the commands of find's -exec, -execdir, -ok and -okdir.
func (in *lineInfo) findExec(args []string, dyn []bool, depth int) {
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
			in.add(withMoreArgs(args[i+1:j], dyn[i+1:j]), depth+1)
		}
		i = j
	}
}

// wrapped adds the command a wrapper runs. An option it does not know may take a value, so
// after each such option the word after the command is a candidate too.
func (in *lineInfo) wrapped(w wrapper, name string, args []string, dyn []bool, depth int) {
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
				in.script(args[i+1:min(i+2, len(args))], dyn[i+1:min(i+2, len(args))], depth)
				return
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
					in.script(script, sdyn, depth)
					return
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
			in.add(withMoreArgs([]string{"echo"}, []bool{false}), depth+1) // xargs' default
		}
		return
	}
	for k := i; k <= i+unsure && k < len(args); k++ {
		if k > i && strings.HasPrefix(args[k], "-") {
			continue
		}
		sub := simpleCommand{words: args[k:], dynamic: dyn[k:]}
		switch {
		case w.shell:
			in.script(sub.words, sub.dynamic, depth)
		case w.moreArgs:
			in.add(withMoreArgs(sub.words, sub.dynamic), depth+1)
		default:
			in.add(sub, depth+1)
		}
	}
}

// withMoreArgs is a command that gets more arguments at run time (xargs, find -exec {}):
// a last word of unknown value stands for them.
func withMoreArgs(words []string, dyn []bool) simpleCommand {
	return simpleCommand{words: append(words[:len(words):len(words)], ""), dynamic: append(dyn[:len(dyn):len(dyn)], true)}
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
