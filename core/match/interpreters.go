package match

import (
	"path"
	"regexp"
	"strings"
)

// Programs that run code given as text, for "if" rules. A shell's -c script, eval's words
// and a here-string or here-document a shell or source reads are read like the line
// itself. Code that is not text of the line (a shell or source reading a pipe, a file
// descriptor or a process substitution), and code in another language (python -c, perl
// -e, awk's system(), sed's e, git's aliases and --exec), makes the line unknown: it
// matches every rule. A script file (bash x.sh, python x.py, . ./env.sh) is not looked
// into: the rule sees the line as written.

// versionSuffix is a version glued to a program name: bash5.2, python3.13t, perl5.36.
var versionSuffix = regexp.MustCompile(`[-_.]?[0-9][0-9.]*[a-z]?$`)

// family is a program name without its version suffix.
func family(name string) string {
	if f := versionSuffix.ReplaceAllString(name, ""); f != "" {
		return f
	}
	return name
}

var shellNames = map[string]bool{"sh": true, "bash": true, "rbash": true, "dash": true, "zsh": true, "ksh": true,
	"mksh": true, "pdksh": true, "oksh": true, "lksh": true, "ash": true, "yash": true, "posh": true, "fish": true,
	"csh": true, "tcsh": true, "osh": true, "ysh": true}

// bourne shells read a script as bash does, near enough for finding the commands it runs.
var bourne = map[string]bool{"sh": true, "bash": true, "rbash": true, "dash": true, "ksh": true, "mksh": true,
	"pdksh": true, "oksh": true, "lksh": true, "ash": true, "yash": true, "posh": true, "osh": true}

func isShell(name string) bool { return shellNames[name] || shellNames[family(name)] }

// shell adds what a shell runs: its -c script, or the script it reads from standard input
// (no operand, -s, -i, or an operand naming a descriptor: /dev/stdin, /dev/fd/N).
func (in *lineInfo) shell(c simpleCommand, depth int) {
	args, dyn := c.words[1:], c.dynamic[1:]
	script, stdin, i := false, false, 0
	for ; i < len(args); i++ {
		a := args[i]
		if dyn[i] {
			in.unknown = true // an option or a script (bash <(...)) only known at run time
			return
		}
		if a == "--" || a == "-" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			break
		}
		switch {
		case a == "--rcfile" || a == "--init-file":
			if i++; i < len(args) && (dyn[i] || isDescriptor(args[i])) {
				in.unknown = true // bash --rcfile <(echo rm x) -i
				return
			} else if i < len(args) {
				in.files.ran(args[i], 1)
			}
		case a[1:] == "o" || a[1:] == "O":
			i++ // bash -o pipefail -c '...'
		case strings.HasPrefix(a, "--"):
		case a[0] == '-' && strings.ContainsRune(a[1:], 'c'):
			script = true // -c, -ec, -xc: the script is the first word after the options
		case a[0] == '-' && strings.ContainsAny(a[1:], "si"):
			stdin = true
		}
	}
	switch {
	case !bourne[family(path.Base(c.words[0]))]:
		in.unknown = true // zsh's =rm, fish, csh: a syntax this does not read
	case script && i < len(args):
		in.script(args[i:i+1], dyn[i:i+1], depth)
	case script:
		in.unknown = true // -c without a script word this reads as one
	case stdin || i >= len(args) || isDescriptor(args[i]):
		in.stdinScript(c, depth)
	default:
		in.files.ran(args[i], 1)
	}
}

// source adds what source and . run: a script file is left as written; a descriptor is
// read like a shell's standard input.
func (in *lineInfo) source(c simpleCommand, depth int) {
	i := 1
	if i < len(c.words) && c.words[i] == "--" && !c.dynamic[i] {
		i++
	}
	switch {
	case i >= len(c.words):
	case c.dynamic[i] || strings.HasPrefix(c.words[i], "-"):
		in.unknown = true // . <(...), . "$F", an option (bash 5.3's source -p PATH)
	case isDescriptor(c.words[i]):
		in.stdinScript(c, depth)
	default:
		in.files.ran(c.words[i], 1)
	}
}

// shellers start a shell reading standard input when given no command: su, runuser,
// script, sudo -s, doas -s.
var shellers = map[string]bool{"su": true, "runuser": true, "script": true, "sudo": true, "doas": true, "ksu": true, "login": true}

// sheller reads the input of a program that starts a shell when it was given no command
// (-c, --command, or for sudo and doas a command word).
func (in *lineInfo) sheller(c simpleCommand, hasCommand bool, depth int) {
	for _, a := range c.words[1:] {
		if a == "-c" || strings.HasPrefix(a, "--command") || strings.HasPrefix(a, "--session-command") ||
			len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'c') && c.words[0] != "sudo" && c.words[0] != "doas" {
			hasCommand = true
		}
	}
	if !hasCommand {
		in.stdinScript(c, depth) // echo 'rm x' | su
	}
}

// isDescriptor reports whether a path names an open file rather than a script file.
func isDescriptor(p string) bool {
	return strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/")
}

// stdinScript reads the here-strings and here-documents of a shell reading its input;
// input from anywhere else (a pipe, a file, a process substitution) is unknown.
func (in *lineInfo) stdinScript(c simpleCommand, depth int) {
	if c.input || len(c.heres) == 0 {
		in.unknown = true
		return
	}
	for _, h := range c.heres {
		if !in.read(h, depth+1) {
			in.unknown = true
			return
		}
	}
}

var interpreterNames = map[string]bool{"python": true, "pypy": true, "perl": true, "ruby": true, "node": true,
	"nodejs": true, "deno": true, "bun": true, "php": true, "lua": true, "luajit": true, "tclsh": true, "wish": true,
	"expect": true, "Rscript": true, "R": true, "julia": true, "pwsh": true, "powershell": true, "osascript": true,
	"guile": true, "racket": true, "sbcl": true, "clisp": true, "ocaml": true, "ghci": true, "runghc": true,
	"elixir": true, "erl": true, "escript": true, "groovy": true, "jshell": true, "scala": true, "swift": true,
	"irb": true, "gdb": true, "jrunscript": true}

func isInterpreter(name string) bool { return interpreterNames[name] || interpreterNames[family(name)] }

// interpreter makes the line unknown unless the interpreter runs a script file: its first
// argument is not an option (python's flag-only options and -m are known).
func (in *lineInfo) interpreter(c simpleCommand) {
	python := strings.HasPrefix(family(c.words[0]), "py")
	for i := 1; i < len(c.words); i++ {
		a := c.words[i]
		switch {
		case c.dynamic[i]:
		case a == "-" || a == "--":
		case isDescriptor(a):
		case !strings.HasPrefix(a, "-"):
			in.files.ran(a, 1)
			return // a script file
		case python && a == "-m":
			return // a module
		case python && (a == "-W" || a == "-X"):
			i++
			continue
		case python && strings.Trim(a[1:], "bBdEhiIOPqRsSuvV") == "":
			continue
		}
		break
	}
	in.unknown = true // inline code, or code read from standard input
}

func isAwk(name string) bool {
	switch family(name) {
	case "awk", "gawk", "mawk", "nawk", "original-awk", "busybox-awk":
		return true
	}
	return false
}

// awk makes the line unknown when a program may run a command: system(), a pipe to or
// from one, gawk's @load and -l, or text known only at run time.
func (in *lineInfo) awk(c simpleCommand) {
	for i, a := range append(c.words[1:len(c.words):len(c.words)], c.heres...) {
		if i+1 < len(c.words) && c.dynamic[i+1] || isDescriptor(a) || strings.Contains(a, "system") || strings.ContainsAny(a, "|@") ||
			a == "-l" || strings.HasPrefix(a, "--load") || strings.HasPrefix(a, "-E") || strings.HasPrefix(a, "--exec") {
			in.unknown = true
			return
		}
	}
}

// sedExec finds GNU sed's e command and the s command's e flag (over-approximated: any e
// after a non-letter, or among s flags).
var sedExec = regexp.MustCompile(`(^|[^A-Za-z])[gpiImMw0-9]*e`)

// sed makes the line unknown when a script may run a command (GNU sed's e) or is known
// only at run time.
func (in *lineInfo) sed(c simpleCommand) {
	for i, a := range append(c.words[1:len(c.words):len(c.words)], c.heres...) {
		if i+1 < len(c.words) && c.dynamic[i+1] || isDescriptor(a) || sedExec.MatchString(a) && !strings.HasPrefix(a, "--e") {
			in.unknown = true
			return
		}
	}
}

// gitRuns are git options and subcommands that run a command given on the line or set
// one that a later git command runs (aliases, pagers, editors, ssh commands).
var gitRuns = map[string]bool{"-c": true, "--config-env": true, "--exec-path": true, "-x": true, "--exec": true,
	"--upload-pack": true, "-u": true, "--receive-pack": true, "--extcmd": true, "-O": true,
	"--open-files-in-pager": true, "--to-cmd": true, "--cc-cmd": true, "--sequence-editor": true, "--tool": true,
	"-t": true, "--ext-diff": true, "run": true, "foreach": true, "config": true, "filter-branch": true,
	"difftool": true, "mergetool": true, "instaweb": true, "credential": true}

// git makes the line unknown when git is told to run a command (git -c alias.x='!rm ...',
// rebase --exec, bisect run, submodule foreach, grep -O), to configure one, or is given a
// word known only at run time (which may be any of these).
func (in *lineInfo) git(c simpleCommand) {
	for i, a := range c.words[1:] {
		name, _, _ := strings.Cut(a, "=")
		if c.dynamic[i+1] || gitRuns[name] || strings.HasPrefix(a, "-c") && len(a) > 2 && !strings.HasPrefix(a, "--") {
			in.unknown = true
			return
		}
	}
}
