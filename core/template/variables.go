package template

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file follows variables that hold values to where they are used.

// follow checks where the script uses variables that hold values: a variable assigned
// a value (F=<<x>>, G="$F"), the positional parameters of a nested script given values
// (sh -c '...' sh <<x>>), and the shell's own variables that take a value from the
// command ($_). Each use ("$F", "${F}", "$@") must be in an allowed context too, as if
// the value were written there, except that a use inside a nested script is refused:
// the outer shell expands it unescaped. A value is never assigned to a special variable
// (specials.go), and uses checks the forms of every use.
func (a *analysis) follow(f *syntax.File) {
	tainted := map[string][]int{}
	var level []int
	for name, srcs := range a.positional {
		tainted[name] = srcs
		level = append(level, srcs...)
	}
	for src := range a.pieces {
		if !a.drop[src] {
			level = append(level, src)
		}
	}
	if len(level) > 0 {
		// The shell's own variables that take a value from the command: $_ is the last
		// argument of the previous command (eval "$_" after echo <<x>>), BASH_REMATCH
		// and zsh's MATCH what [[ =~ ]] captured, REPLY and OPTARG what read, select and
		// getopts stored.
		slices.Sort(level)
		for _, name := range strings.Fields("_ BASH_REMATCH MATCH match REPLY OPTARG BASH_COMMAND BASH_ARGV") {
			tainted[name] = level
		}
	}
	defer a.uses(f, tainted)
	cur, curText := f, a.src
	for round := 0; round < 4; round++ {
		grew := false
		syntax.Walk(cur, func(n syntax.Node) bool {
			add := func(name string, srcs []int) {
				if len(srcs) > 0 && len(tainted[name]) == 0 {
					tainted[name], grew = srcs, true
				}
			}
			text := func(n syntax.Node) string { return curText[n.Pos().Offset():n.End().Offset()] }
			switch x := n.(type) {
			case *syntax.Assign:
				if x.Name != nil {
					srcs := marks(text(x))
					if len(srcs) > 0 && special(x.Name.Value) {
						for _, src := range srcs {
							a.refuse(src, "it is assigned to "+x.Name.Value+", a variable the shell or a program it runs reads as code, as a path to run or as a rule for reading other text")
						}
					}
					add(x.Name.Value, srcs)
				}
			case *syntax.ForClause:
				if wi, ok := x.Loop.(*syntax.WordIter); ok && wi.Name != nil {
					var srcs []int
					for _, w := range wi.Items {
						srcs = append(srcs, marks(text(w))...)
					}
					add(wi.Name.Value, srcs)
				}
			}
			return true
		})
		if len(tainted) == 0 || !grew && round > 0 {
			return
		}
		// The text again with each use of a tainted variable replaced by its value's marker.
		var b strings.Builder
		last, uses := 0, 0
		syntax.Walk(f, func(n syntax.Node) bool {
			pe, ok := n.(*syntax.ParamExp)
			if !ok || pe.Param == nil {
				return true
			}
			srcs := tainted[pe.Param.Value]
			if len(srcs) == 0 || int(pe.Pos().Offset()) < last {
				return true
			}
			if pe.Excl {
				for _, src := range srcs {
					a.refuse(src, "a variable holding it is used as a variable name (${!...}), which bash evaluates")
				}
			}
			b.WriteString(a.src[last:pe.Pos().Offset()])
			b.WriteString(marker(srcs[0]))
			last, uses = int(pe.End().Offset()), uses+1
			return false
		})
		if uses == 0 {
			return
		}
		b.WriteString(a.src[last:])
		text := b.String()
		g, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
		if err != nil {
			return // the text parsed with the values in place; a use cannot break it
		}
		pieces := maps.Clone(a.pieces)
		for _, srcs := range tainted {
			for _, src := range srcs {
				if _, ok := pieces[src]; !ok {
					pieces[src] = piece{ph: 0, src: src}
				}
			}
		}
		re := &analysis{chains: map[int][]quoting{}, leading: a.leading, refused: a.refused, depth: a.depth,
			src: text, pieces: pieces, drop: a.drop, funcs: map[string]bool{},
			seen: map[*syntax.Word]bool{}, ok: map[int]bool{}, raw: true}
		re.pass(g)
		a.order = append(a.order, re.order...)
		cur, curText = g, text
	}
}

// uses checks the forms in which a level reads its variables once one of them holds a
// value. A use must be "$F" or "${F}" inside double quotes: every operator transforms,
// evaluates or looks up the value (${F@P} expands it as a prompt, ${!F} and ${a[F]}
// evaluate it, unquoted $F is split and globbed). And since the shell also reads
// variables by name (arithmetic evaluates a variable's value as an expression, at any
// depth; declare -i and -n give a name attributes; read, mapfile and printf -v assign
// to a name; eval and trap run text that may name one; set -a exports every assignment),
// a level where a variable holds a value may do none of these.
func (a *analysis) uses(f *syntax.File, tainted map[string][]int) {
	var all []int
	for _, srcs := range tainted {
		all = append(all, srcs...)
	}
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	refuseAll := func(reason string) {
		for _, src := range all {
			a.refuse(src, reason)
		}
	}
	if a.allexport {
		refuseAll("the shell runs with set -a (allexport), which exports every variable assigned, so a program the script runs could read a variable holding it from its environment")
	}
	quoted := map[*syntax.ParamExp]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if d, ok := n.(*syntax.DblQuoted); ok {
			for _, p := range d.Parts {
				if pe, ok := p.(*syntax.ParamExp); ok {
					quoted[pe] = true
				}
			}
		}
		return true
	})
	arith := func(e syntax.Node) {
		if e != nil && !reflect.ValueOf(e).IsNil() && namesVariable(a.text(e)) {
			refuseAll("the script evaluates arithmetic that names a variable (" + a.text(e) + "), and arithmetic evaluates a variable's value as an expression, so a value held in a variable could run as code")
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if x.Param != nil {
				if srcs := tainted[x.Param.Value]; len(srcs) > 0 {
					reason := ""
					switch {
					case !plainParam(x):
						reason = "a variable holding it is expanded as " + a.text(x) + `: only "$F" or "${F}" is allowed, since an operator transforms, evaluates or looks up the value`
					case !quoted[x]:
						reason = "a variable holding it is expanded unquoted (" + a.text(x) + `): only a double-quoted "$F" or "${F}" keeps it one word of data`
					}
					if reason != "" {
						for _, src := range srcs {
							a.refuse(src, reason)
						}
					}
				}
			}
			if x.Excl || x.Names != 0 {
				refuseAll("the script expands a variable by indirection (" + a.text(x) + "), which looks up a name at run time")
			}
			if x.Index != nil {
				arith(x.Index)
			}
			if x.Slice != nil {
				arith(x.Slice.Offset)
				arith(x.Slice.Length)
			}
		case *syntax.ArithmExp:
			arith(x.X)
		case *syntax.ArithmCmd:
			arith(x.X)
		case *syntax.LetClause:
			for _, e := range x.Exprs {
				arith(e)
			}
		case *syntax.CStyleLoop:
			arith(x.Init)
			arith(x.Cond)
			arith(x.Post)
		case *syntax.Assign:
			if x.Index != nil {
				arith(x.Index)
			}
			if x.Array != nil {
				for _, el := range x.Array.Elems {
					if el.Index != nil {
						arith(el.Index)
					}
				}
			}
			if x.Name != nil && runsCode[x.Name.Value] {
				refuseAll("the script assigns " + x.Name.Value + ", whose text the shell runs, while a variable holds the value")
			}
		case *syntax.DeclClause:
			refuseAll(x.Variant.Value + " gives a variable an attribute or exports it (" + a.text(x) + "): a variable holding the value could be evaluated as arithmetic (-i), as a name (-n), or read by a program from its environment")
		case *syntax.TestClause:
			syntax.Walk(x.X, func(m syntax.Node) bool {
				switch t := m.(type) {
				case *syntax.BinaryTest:
					if t.Op >= syntax.TsEql && t.Op <= syntax.TsGtr {
						refuseAll("[[ ]] with an arithmetic comparison (" + a.text(t) + ") evaluates its operands, and the variables they name, as arithmetic")
					}
				case *syntax.UnaryTest:
					if t.Op == syntax.TsVarSet || t.Op == syntax.TsRefVar {
						refuseAll("[[ " + a.text(t) + " ]] looks up a variable by name, evaluating a subscript as arithmetic")
					}
				}
				return true
			})
		case *syntax.CallExpr:
			if why := a.readsNames(x); why != "" {
				refuseAll(why)
			}
		}
		return true
	})
}

// readsNames says why a simple command reads a variable by name or runs text as code,
// or returns "": the name-taking builtins, printf -v, test -v, set -a, and the builtins
// that run code.
func (a *analysis) readsNames(x *syntax.CallExpr) string {
	if len(x.Args) == 0 {
		return ""
	}
	name, ok := unquoteWord(x.Args[0])
	if !ok {
		return ""
	}
	// A word that is not literal is left to the option rule, which refuses a value
	// starting with "-" at the start of a word.
	opts := func(yes func(string) bool) bool {
		for _, w := range x.Args[1:] {
			if s, ok := unquoteWord(w); ok && yes(s) {
				return true
			}
		}
		return false
	}
	switch name {
	case "read", "mapfile", "readarray", "getopts", "unset", "wait", "let", "declare", "typeset", "local",
		"export", "readonly", "eval", "trap", "alias", "source", ".", "fc", "bind", "complete", "compgen", "enable", "hash",
		"integer", "float", "emulate", "print", "sched", "zmodload", "autoload", "functions", "shift", "ulimit":
		return name + " takes a variable name or runs text as code, at a level where a variable holds the value: the check does not follow a value through it"
	case "printf":
		if opts(func(s string) bool { return strings.HasPrefix(s, "-v") }) {
			return "printf -v assigns to a variable by name (bash evaluates a subscript in it), at a level where a variable holds the value"
		}
	case "test", "[":
		if opts(func(s string) bool { return s == "-v" || s == "-R" }) {
			return "test -v looks up a variable by name (bash evaluates a subscript in it), at a level where a variable holds the value"
		}
		if opts(func(s string) bool { return testArith[s] }) {
			return "test's numeric comparisons evaluate a bare name as arithmetic in mksh, at a level where a variable holds the value"
		}
	case "set":
		if opts(func(s string) bool {
			return s == "allexport" || len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsRune(s, 'a')
		}) {
			return "set -a (allexport) exports every variable assigned, so a program the script runs could read a variable holding the value from its environment"
		}
	}
	return ""
}

// plainParam reports whether a parameter expansion is $name or ${name}: no operator.
func plainParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && p.NestedParam == nil && !p.Excl && !p.Length && !p.Width &&
		!p.IsSet && p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil && p.Repl == nil &&
		p.Names == 0 && p.Exp == nil
}

// namesVariable reports whether arithmetic text may read a variable: it holds a name or
// an expansion (0x1F is refused too: failing closed costs a hex literal).
func namesVariable(text string) bool {
	return strings.ContainsAny(text, "$`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
}
