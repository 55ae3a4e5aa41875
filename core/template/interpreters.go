package template

import (
	"strings"
)

// This file checks the words of an interpreter (python, perl, node, ...): its options and its program.

// interp checks an interpreter's words. Its program is a script file (the first word
// that is not an option) or inline code (the word after a code flag such as -c or -e,
// or the rest of a word like -c'code'). A value in an option or in the program is
// refused; the words after the program are its arguments (sys.argv, @ARGV), data as a
// script file's are. An option the table does not know refuses every value, since it
// may take a value of its own or run code (-m, -M, -r).
func (a *analysis) interp(name string, ws []arg) {
	spec := interpSpecs[baseName(name)]
	i := 1
	program := -1
	for ; i < len(ws) && program < 0; i++ {
		w := ws[i]
		a.mark(w)
		if !w.literal || len(w.marks) > 0 || !strings.HasPrefix(w.lit, "-") || w.lit == "-" {
			program = i
			break
		}
		s := w.lit
		switch {
		case s == "--":
			program = i + 1
		case spec.code[s]:
			program = i + 1
		case spec.long[s]:
		case strings.HasPrefix(s, "--"):
			a.denyArgs(ws[1:], "it is an argument of "+name+" "+s+", an option hookexec does not model")
			return
		default:
			for j := 1; j < len(s); j++ {
				c := s[j]
				switch {
				case strings.IndexByte(spec.codeLetters, c) >= 0:
					program = i + 1
					if rest := s[j+1:]; strings.Trim(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
						// -c'code': the rest of the word is the program. Letters only
						// (-pe) may be more options, so the next word is taken as the
						// program: at worst a value there is refused needlessly.
						program = i
					}
				case strings.IndexByte(spec.singles, c) >= 0:
					continue
				default:
					a.denyArgs(ws[1:], "it is an argument of "+name+" "+s+", an option hookexec does not model")
					return
				}
				break
			}
		}
	}
	if program < 0 || program >= len(ws) {
		return
	}
	w := ws[program]
	a.mark(w)
	if len(w.marks) > 0 || !w.literal && !oneField(w) || w.literal && w.lit == "-" {
		a.denyArgs(ws[1:], "it is in the program "+name+" runs (inline code or a script file), so the value would be run as code")
		return
	}
	a.denyArgs(ws[1:program], "it is an option of "+name)
	if b := baseName(name); b == "perl" || b == "ruby" {
		for _, o := range ws[1:program] {
			if o.literal && strings.HasPrefix(o.lit, "-") && !strings.HasPrefix(o.lit, "--") && strings.ContainsAny(o.lit[1:], "np") {
				// -n and -p loop over the operands as files: perl opens each with a
				// magic open, so "cmd|" runs cmd.
				a.denyArgs(ws[program+1:], "it is a file operand of "+name+" "+o.lit+", which opens it with a magic open (\"cmd|\" runs cmd)")
				return
			}
		}
	}
	a.data(ws[program+1:], false)
}

type interpSpec struct {
	singles     string          // one-letter options that take no value
	codeLetters string          // one-letter options whose value is code (-c, -e)
	code, long  map[string]bool // whole-word code options; long options taking no value
}

var interpSpecs = map[string]interpSpec{
	"python":  {singles: "uBEsSIObdqvPR", codeLetters: "c"},
	"pypy":    {singles: "uBEsSIObdqvPR", codeLetters: "c"},
	"perl":    {singles: "wWXTtlnpas", codeLetters: "eE"},
	"ruby":    {singles: "wWnpal", codeLetters: "e"},
	"node":    {codeLetters: "ep", code: set("--eval --print"), long: set("--no-warnings --enable-source-maps --trace-warnings --no-deprecation")},
	"nodejs":  {codeLetters: "ep", code: set("--eval --print"), long: set("--no-warnings --enable-source-maps --trace-warnings --no-deprecation")},
	"php":     {singles: "nq", codeLetters: "r"},
	"lua":     {singles: "W", codeLetters: "e"},
	"luajit":  {codeLetters: "e"},
	"Rscript": {codeLetters: "e", long: set("--vanilla --no-save --no-restore --quiet")},
	"tclsh":   {},
}
