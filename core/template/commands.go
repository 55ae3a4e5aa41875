package template

import (
	"path"

	"mvdan.cc/sh/v3/syntax"
)

// This file classifies the words of a simple command and claims or refuses the values in them.

// codeReader returns the first program in n that may read its standard input as code,
// or "": every program but the data filters of stdinReaders (at, sqlite3, psql, mail and
// a user's own tool may run what they read).
func (a *analysis) codeReader(n syntax.Node) string {
	found := ""
	syntax.Walk(n, func(m syntax.Node) bool {
		if found != "" {
			return false
		}
		switch x := m.(type) {
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			w := a.arg(x.Args[0])
			if !w.literal || len(w.marks) > 0 {
				found = "a program chosen at run time (" + a.text(x.Args[0]) + ")"
				return false
			}
			name := w.lit
			if a.funcs[name] {
				found = "the function " + name
				return false
			}
			if k := kindOf(name); !(k == kindData && stdinReaders[baseName(name)]) && !(k == kindBuiltin && stdinData[name]) {
				found = name
				return false
			}
		case *syntax.DeclClause, *syntax.LetClause, *syntax.ArithmCmd:
			// no input read
		}
		return true
	})
	return found
}

// call checks a simple command: its assignments and its words.
func (a *analysis) call(x *syntax.CallExpr) {
	for _, as := range x.Assigns {
		if len(marks(a.text(as))) == 0 {
			continue
		}
		switch {
		case len(x.Args) > 0:
			a.deny(as, "it is put in the environment of "+a.text(x.Args[0])+", which a program may read as code (LD_PRELOAD, BASH_ENV, PAGER)")
		case as.Index != nil:
			a.deny(as, "an array subscript is evaluated as arithmetic")
		default:
			a.claim(as.Value)
			if as.Array != nil {
				for _, el := range as.Array.Elems {
					if el.Index != nil {
						a.deny(el.Index, "an array subscript is evaluated as arithmetic")
					}
					a.claim(el.Value)
				}
			}
		}
	}
	if len(x.Args) == 0 {
		return
	}
	ws := make([]arg, len(x.Args))
	any := false
	for i, w := range x.Args {
		ws[i] = a.arg(w)
		any = any || len(ws[i].marks) > 0
	}
	if any {
		a.command(ws)
	}
}

// command classifies the words of one simple command (also the command
// a wrapper runs) and claims or refuses each value in them.
func (a *analysis) command(ws []arg) {
	if len(ws) == 0 {
		return
	}
	prog := ws[0]
	if len(prog.marks) > 0 {
		a.denyArgs(ws, "it is (part of) the program name, so the value would choose what runs")
		return
	}
	if !prog.literal {
		a.denyArgs(ws[1:], "the program name "+a.word(prog)+" is not a literal word, so what it does with its arguments cannot be known")
		a.mark(prog)
		return
	}
	a.mark(prog)
	name := prog.lit
	if a.funcs[name] {
		a.denyArgs(ws[1:], "it is an argument of the function "+name+" defined in this command, whose body is shell code")
		return
	}
	base := path.Base(name)
	switch kindOf(name) {
	case kindShell:
		a.shell(base, ws)
	case kindInterp:
		a.interp(base, ws)
	case kindWrapper:
		rest, why := unwrap(baseName(base), ws)
		if why == "" {
			a.data(ws[1:len(ws)-len(rest)], false)
			a.command(rest)
			return
		}
		a.denyArgs(ws[1:], why)
	case kindCode:
		a.denyArgs(ws[1:], "it is an argument of "+base+", which may run it as code")
	case kindBuiltin:
		if !dataBuiltin[name] {
			a.denyArgs(ws[1:], "it is an argument of the shell builtin "+name+", which reads it as code, a name or arithmetic")
			return
		}
		a.builtin(name, ws)
	default:
		switch baseName(base) {
		case "find":
			a.find(ws)
		case "sed":
			a.sed(base, ws)
		case "jq":
			a.jq(base, ws)
		default:
			a.codeOptions(baseName(base), ws)
			a.data(ws[1:], false)
		}
	}
}

// word is how a word is named in a message.
func (a *analysis) word(w arg) string {
	if w.w != nil {
		return a.text(w.w)
	}
	return w.lit
}

// mark records that a word was looked at, so the walk does not refuse it as unplaced.
func (a *analysis) mark(w arg) {
	if w.w != nil {
		a.seen[w.w] = true
	}
}

func (a *analysis) denyArgs(ws []arg, reason string) {
	for _, w := range ws {
		a.mark(w)
		for _, src := range w.marks {
			a.refuse(src, reason)
		}
	}
}

// data claims ws as data arguments; a value at the start of a word before a literal --
// is marked for the option rule, unless operands says that the program reads no options
// from these words (printf's arguments after the format).
func (a *analysis) data(ws []arg, operands bool) {
	dashdash := operands
	for _, w := range ws {
		a.mark(w)
		for _, src := range w.marks {
			a.ok[src] = true
		}
		if !dashdash {
			for _, src := range w.lead {
				a.leading[src] = true
			}
		}
		if w.literal && w.lit == "--" && len(w.marks) == 0 {
			dashdash = true
		}
	}
}
