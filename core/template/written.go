package template

import (
	"path"

	"mvdan.cc/sh/v3/syntax"
)

// This file refuses the values of a command that writes a file and then runs it
// (printf '%s\n' <<x>> > s.sh; sh s.sh): the value would be read as code from the file.

// runsWritten refuses every value of the level when a file the script writes, by a
// redirection or tee with a literal name, is then run: named as a command, or as an
// argument of a shell, interpreter, wrapper or code-running program (sh s.sh, . ./s.sh,
// python3 s.py, timeout 5 ./s.sh).
func (a *analysis) runsWritten(f *syntax.File) {
	written := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Redirect:
			switch x.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
				if x.Word != nil {
					if s, ok := unquoteWord(x.Word); ok {
						written[path.Clean(s)] = true
					}
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) > 1 {
				if prog, ok := unquoteWord(x.Args[0]); ok && path.Base(prog) == "tee" {
					for _, w := range x.Args[1:] {
						if s, ok := unquoteWord(w); ok {
							written[path.Clean(s)] = true
						}
					}
				}
			}
		}
		return true
	})
	if len(written) == 0 {
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		x, ok := n.(*syntax.CallExpr)
		if !ok || len(x.Args) == 0 {
			return true
		}
		prog, ok := unquoteWord(x.Args[0])
		if !ok {
			return true
		}
		words := x.Args[:1]
		if kindOf(prog) != kindData && !(kindOf(prog) == kindBuiltin && dataBuiltin[prog]) {
			words = x.Args
		}
		for _, w := range words {
			if s, ok := unquoteWord(w); ok && written[path.Clean(s)] {
				reason := "the command writes " + path.Clean(s) + " and then runs it, so a value written there would run as code"
				for src := range a.pieces {
					if !a.drop[src] {
						a.refuse(src, reason)
					}
				}
				for _, srcs := range a.positional {
					for _, src := range srcs {
						a.refuse(src, reason)
					}
				}
				return false
			}
		}
		return true
	})
}
