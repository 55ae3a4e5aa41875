package template

import (
	"maps"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file follows variables that hold values to where they are used.

// follow checks where the script uses variables that hold values: a variable assigned
// a value (F=<<x>>), a for loop's variable over values, and the positional parameters
// of a nested script given values (sh -c '...' sh <<x>>). Each use ($F, "${F}", "$@")
// must be in an allowed context too, as if the value were written there, except that a
// use inside a nested script is refused: the outer shell expands it unescaped.
func (a *analysis) follow(f *syntax.File) {
	tainted := map[string][]int{}
	for name, srcs := range a.positional {
		tainted[name] = srcs
	}
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
					add(x.Name.Value, marks(text(x)))
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
