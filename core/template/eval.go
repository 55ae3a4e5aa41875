package template

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A placeholder whose value a command runs as code cannot be made safe by quoting: the
// quotes protect the value from the shell that reads the hook's command line, and then
// eval, sh -c or python -c read it again as a program. Such placeholders are compile
// errors, like one in a here-document.
//
// The check parses the command (with each placeholder replaced by an inert marker word)
// and looks at every simple command, including those in pipelines, lists, $(...) and
// after wrappers such as env, command, exec, sudo, nice, timeout and xargs.

// marker stands for placeholder i in the text parsed for the check: letters and digits
// only, so it is one plain word in any quoting context.
func marker(i int) string { return "HOOKEXECPH" + strconv.Itoa(i) + "X" }

// evalContext reports the first placeholder of a shell command that lands where a
// command runs its argument as code, with the reason.
func evalContext(pieces []piece) (piece, string) {
	var b strings.Builder
	byMarker := map[string]piece{}
	for i, p := range pieces {
		if p.ph < 0 {
			b.WriteString(p.lit)
			continue
		}
		m := marker(i)
		byMarker[m] = p
		b.WriteString(m)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(b.String()), "")
	if err != nil {
		return piece{}, "" // not valid shell: the shell reports it; quoting was checked already
	}
	src := b.String()
	found := func(text string) (piece, bool) {
		for m, p := range byMarker {
			if strings.Contains(text, m) {
				return p, true
			}
		}
		return piece{}, false
	}
	var hit piece
	reason := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if reason != "" {
			return false
		}
		switch x := n.(type) {
		case *syntax.BinaryCmd:
			// A value piped into a program that reads its stdin as code.
			if x.Op != syntax.Pipe && x.Op != syntax.PipeAll {
				return true
			}
			if why := readsStdinAsCode(callWords(x.Y, src)); why != "" {
				if p, ok := found(src[x.X.Pos().Offset():x.X.End().Offset()]); ok {
					hit, reason = p, "its value is piped into "+why+", which runs it as code; quoting cannot make that safe"
				}
			}
		case *syntax.CallExpr:
			words := make([]string, len(x.Args))
			for i, w := range x.Args {
				words[i] = src[w.Pos().Offset():w.End().Offset()]
			}
			if i, why := codeArg(words); why != "" {
				for _, w := range words[i:] {
					if p, ok := found(w); ok && (why != "-c" || w == words[i]) {
						hit, reason = p, "it is an argument "+describe(words, why)+" runs as code; quoting cannot make that safe"
						break
					}
				}
			}
		}
		return true
	})
	return hit, reason
}

// evalArgv is evalContext for exec form: the words are the argv.
func evalArgv(words [][]piece) (piece, string) {
	text := make([]string, len(words))
	for i, w := range words {
		for _, p := range w {
			if p.ph >= 0 {
				text[i] += marker(p.ph)
			} else {
				text[i] += p.lit
			}
		}
	}
	i, why := codeArg(text)
	if why == "" {
		return piece{}, ""
	}
	for j := i; j < len(words); j++ {
		if why == "-c" && j != i {
			break
		}
		for _, p := range words[j] {
			if p.ph >= 0 {
				return p, "it is an argument " + describe(text, why) + " runs as code; quoting cannot make that safe"
			}
		}
	}
	return piece{}, ""
}

func describe(words []string, why string) string {
	if why == "-c" {
		return "that " + path.Base(unquote(words[0])) + " " + why
	}
	return why
}

// callWords returns the words of the first simple command of stmt (for a pipe's reader).
func callWords(s *syntax.Stmt, src string) []string {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	out := make([]string, len(call.Args))
	for i, w := range call.Args {
		out[i] = src[w.Pos().Offset():w.End().Offset()]
	}
	return out
}

var shellNames = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true, "mksh": true, "fish": true}

// codeFlags are the interpreters' options whose next word is a program.
var codeFlags = map[string]map[string]bool{
	"python":     {"-c": true},
	"python2":    {"-c": true},
	"python3":    {"-c": true},
	"perl":       {"-e": true, "-E": true},
	"ruby":       {"-e": true},
	"node":       {"-e": true, "--eval": true, "-p": true, "--print": true},
	"deno":       {"eval": true},
	"php":        {"-r": true},
	"awk":        {},
	"osascript":  {"-e": true},
	"pwsh":       {"-Command": true, "-c": true},
	"powershell": {"-Command": true, "-c": true},
}

// wrappers run the rest of their arguments as a command; the value is how many of their
// own option words to skip before it ("-" options are skipped as they come).
var wrappers = map[string]bool{"env": true, "command": true, "exec": true, "sudo": true, "nice": true,
	"nohup": true, "timeout": true, "busybox": true, "time": true, "stdbuf": true, "setsid": true, "xargs": true, "doas": true}

// codeArg finds where a simple command takes code: the index of the word holding the
// program and why ("eval", "source", "-c", ...); why is "" when no word is code. Every
// word from the index on is code for eval and source; for "-c"-style options only the
// word at the index is (later words are the program's $0, $1, ...).
func codeArg(words []string) (int, string) {
	i := 0
	for i < len(words) {
		name := path.Base(unquote(words[i]))
		switch {
		case strings.Contains(name, "=") && i == 0:
			i++ // VAR=value before the command
			continue
		case wrappers[name]:
			i++
			for i < len(words) && (strings.HasPrefix(unquote(words[i]), "-") || strings.Contains(words[i], "=") || isNumber(words[i])) {
				if name == "xargs" && (unquote(words[i]) == "-I" || unquote(words[i]) == "-i") && i+1 < len(words) {
					i++ // -I {} takes a value
				}
				i++
			}
			continue
		case name == "eval" || name == "source" || name == "." || name == "trap":
			if i+1 < len(words) {
				return i + 1, name
			}
			return 0, ""
		case shellNames[name]:
			for j := i + 1; j < len(words); j++ {
				w := unquote(words[j])
				if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
					return 0, "" // a script file or stdin: its arguments are data
				}
				if !strings.HasPrefix(w, "--") && strings.Contains(w, "c") && j+1 < len(words) {
					return j + 1, "-c"
				}
			}
			return 0, ""
		case codeFlags[name] != nil:
			if name == "awk" {
				// awk's first non-option word is its program.
				for j := i + 1; j < len(words); j++ {
					w := unquote(words[j])
					if w == "-f" {
						return 0, ""
					}
					if w == "-v" || w == "-F" {
						j++
						continue
					}
					if !strings.HasPrefix(w, "-") {
						return j, "-c"
					}
				}
				return 0, ""
			}
			for j := i + 1; j+1 < len(words); j++ {
				if codeFlags[name][unquote(words[j])] {
					return j + 1, "-c"
				}
			}
			return 0, ""
		}
		return 0, ""
	}
	return 0, ""
}

// readsStdinAsCode reports the program when a command runs its standard input: a shell or
// interpreter with no program argument, or source /dev/stdin.
func readsStdinAsCode(words []string) string {
	i := 0
	for i < len(words) && (strings.Contains(words[i], "=") || wrappers[path.Base(unquote(words[i]))] && path.Base(unquote(words[i])) != "xargs") {
		i++
	}
	if i >= len(words) {
		return ""
	}
	name := path.Base(unquote(words[i]))
	if name == "xargs" {
		// xargs turns its input into arguments: code when the command it runs takes code.
		if _, why := codeArg(words[i:]); why != "" {
			return "xargs " + why
		}
		if j := i + 1; j < len(words) {
			for j < len(words) && strings.HasPrefix(unquote(words[j]), "-") {
				j++
			}
			if j < len(words) {
				if n := path.Base(unquote(words[j])); shellNames[n] || n == "eval" {
					return "xargs " + n
				}
			}
		}
		return ""
	}
	if (name == "source" || name == ".") && i+1 < len(words) && unquote(words[i+1]) == "/dev/stdin" {
		return name + " /dev/stdin"
	}
	if !shellNames[name] && codeFlags[name] == nil {
		return ""
	}
	for _, w := range words[i+1:] {
		if u := unquote(w); u == "-" || u == "-s" {
			return name
		} else if !strings.HasPrefix(u, "-") {
			return "" // a script file: stdin is its data
		}
	}
	if _, why := codeArg(words[i:]); why != "" {
		return ""
	}
	return name
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// unquote removes one level of plain quotes around a word, enough to recognise a program
// name or an option.
func unquote(w string) string {
	if len(w) >= 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] {
		return w[1 : len(w)-1]
	}
	return w
}
