package template

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file refuses the values of a command that writes a file and runs a script
// (printf '%s\n' <<x>> > s.sh; sh s.sh, or through cp, dd or a variable's name): the
// value could be read as code from the file. A written file cannot be followed by its
// name (cp a b; f=b; sh "$f"), so any write and any script run at one level refuse every
// value of it.

// writers are programs that write files from their input or from other files.
var writers = set(`tee dd cp mv install ln sed rsync tar unzip gunzip zcat patch sponge split csplit
	git curl wget scp sftp truncate touch mkfifo cpio ar`)

// runsWritten refuses every value of the level when it both writes a file (an output
// redirection other than to /dev/..., or a writer program) and runs a script file (a
// shell or interpreter given a file, . or source, or a program named by a path).
func (a *analysis) runsWritten(f *syntax.File) {
	writes, runs := "", ""
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Redirect:
			switch x.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
				if s, ok := unquoteWord(x.Word); !ok || !strings.HasPrefix(path.Clean(s), "/dev/") {
					writes = "writes " + a.text(x.Word)
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			prog, ok := unquoteWord(x.Args[0])
			if !ok {
				return true
			}
			switch k := kindOf(prog); {
			case writers[baseName(prog)]:
				writes = "runs " + prog + ", which writes files"
			case prog == "." || prog == "source":
				runs = "runs the script " + prog
			case strings.Contains(prog, "/"):
				runs = "runs " + prog
			case (k == kindShell || k == kindInterp) && hasOperand(x.Args[1:]):
				runs = "runs " + prog + " with a script operand"
			}
		}
		return true
	})
	if writes == "" || runs == "" {
		return
	}
	reason := "the command " + writes + " and " + runs + ": a value written to a file could be run as code from it"
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
}

// hasOperand reports whether any word is not an option (a script file, or a -c script's
// $0): such a shell or interpreter may run a file.
func hasOperand(ws []*syntax.Word) bool {
	for _, w := range ws {
		if s, ok := unquoteWord(w); !ok || !strings.HasPrefix(s, "-") {
			return true
		}
	}
	return false
}
