package template

import (
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file decides where a value may go once the shell has quoted it. Quoting keeps a
// value one word of data for the shell that reads the hook's command; what the program
// then does with that word is the program's business, and some programs run it (eval,
// sh -c, python -c, awk) or read it as an option (-o FILE). So, as html/template does
// for HTML, a placeholder is allowed only in a context where the value is known to stay
// data, and everywhere else it is a compile error:
//
//   - an argument word of a simple command whose program is a literal name that is not
//     a shell, an interpreter, a wrapper that runs its arguments as a command, or a shell
//     builtin that reads its arguments as code, names or arithmetic (see kindOf);
//   - the target of a redirection (a file name), and the here-string or input file of a
//     command that reads its input as data;
//   - the value of a variable assignment that is a statement of its own (FOO=v; not
//     FOO=v cmd, which puts it in a program's environment) to a name the shell and the
//     programs it runs do not read as code (specials.go), a case subject or pattern; the
//     variable's uses are checked too (variables.go);
//   - the -c script of sh, bash, dash or ash when the script is a literal word: the
//     script is checked by these same rules and the value is escaped for both shells,
//     as deep as the nesting goes. Wrappers whose options are known (env without -S,
//     command, exec, nice, nohup, setsid, stdbuf, time, timeout, npx, bunx)
//     are looked through to the command they run.
//
// Anything else is refused: a value that is, or is part of, a program name; a value in
// the environment of a program; a value piped or fed into a program that is not known to
// read its input as data; a value in a command the parser cannot read; a positional
// parameter of a nested script. A value at the start of an argument word is marked, so
// that a value starting with "-" is refused when the command is rendered (Render).
//
// The boundary of the model: a program not named here that runs one of its arguments
// as code or as a command (a user's own script that evals $1, `uv run`) is treated as
// any other program; its argument is data as far as the shell is concerned.

// marker stands for placeholder piece src in the text parsed for the check: letters and
// digits only, so it is one plain word in any quoting context.
func marker(src int) string { return "HOOKEXECPH" + strconv.Itoa(src) + "X" }

var markerRE = regexp.MustCompile(`HOOKEXECPH([0-9]+)X`)

// maxDepth bounds nested sh -c scripts.
const maxDepth = 8

// refusal is a placeholder piece refused, and why.
type refusal struct {
	p      piece
	reason string
}

// analysis is the result of checking one command: for each placeholder piece (by src,
// its index in the top-level pieces), the quoting of the inner shells it passes through,
// innermost first; whether its value starts an argument word; and the refusals.
type analysis struct {
	chains  map[int][]quoting
	leading map[int]bool
	refused map[int]string
	order   []int // refused srcs in the order found

	// per level
	src    string
	pieces map[int]piece   // by src: the placeholder pieces of this level
	drop   map[int]bool    // srcs in comments at this level: never substituted
	funcs  map[string]bool // functions defined in this level's script
	seen   map[*syntax.Word]bool
	ok     map[int]bool // srcs found in an allowed slot
	depth  int

	positional map[string][]int // a nested script's $0, $1, ..., $@, $*: the values given
	raw        bool             // the pass over variables' uses: no escaping applies
	allexport  bool             // the shell runs with -a: every assignment is exported
}

func newAnalysis() *analysis {
	return &analysis{chains: map[int][]quoting{}, leading: map[int]bool{}, refused: map[int]string{}}
}

// refuse records why src cannot be substituted; the first reason is kept.
func (a *analysis) refuse(src int, reason string) {
	if _, ok := a.refused[src]; ok {
		return
	}
	a.refused[src] = reason
	a.order = append(a.order, src)
}

// refusals returns the refused pieces in source order.
func (a *analysis) refusals(pieces map[int]piece) []refusal {
	var out []refusal
	for _, src := range a.order {
		out = append(out, refusal{p: pieces[src], reason: a.refused[src]})
	}
	sortRefusals(out)
	return out
}

func sortRefusals(r []refusal) {
	for i := 1; i < len(r); i++ {
		for j := i; j > 0 && r[j].p.off < r[j-1].p.off; j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
}

// level checks one shell script: the pieces of its text (placeholders carry their src)
// and the quoting the escaper chose for each at this level.
func (a *analysis) level(pieces []piece, how map[int]quoting, depth int) {
	var b strings.Builder
	sub := &analysis{chains: a.chains, leading: a.leading, refused: a.refused, depth: depth, positional: a.positional, allexport: a.allexport,
		pieces: map[int]piece{}, drop: map[int]bool{}, funcs: map[string]bool{},
		seen: map[*syntax.Word]bool{}, ok: map[int]bool{}}
	for _, p := range pieces {
		if p.ph < 0 {
			b.WriteString(p.lit)
			continue
		}
		sub.pieces[p.src] = p
		if how[p.src] == quoteDrop {
			sub.drop[p.src] = true
		}
		b.WriteString(marker(p.src))
	}
	sub.src = b.String()
	defer func() { a.order = append(a.order, sub.order...) }()
	if depth > maxDepth {
		for src := range sub.pieces {
			sub.refuse(src, "it is inside more than "+strconv.Itoa(maxDepth)+" nested shell scripts")
		}
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(sub.src), "")
	if err != nil {
		for src := range sub.pieces {
			if !sub.drop[src] {
				sub.refuse(src, "the command cannot be parsed as shell ("+parseError(err)+"), so no placeholder in it can be proven to stay data")
			}
		}
		return
	}
	sub.pass(f)
	sub.follow(f)
}

// pass checks a parsed script.
func (a *analysis) pass(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			a.funcs[fd.Name.Value] = true
		}
		return true
	})
	// A process substitution >(prog) receives what the command writes to it: with a
	// program that may run its input, any value written anywhere could reach it.
	syntax.Walk(f, func(n syntax.Node) bool {
		if ps, ok := n.(*syntax.ProcSubst); ok && ps.Op == syntax.CmdOut {
			if prog := a.codeReader(ps); prog != "" {
				for src := range a.pieces {
					if !a.drop[src] {
						a.refuse(src, "the command writes to >("+prog+" ...), which may run what it reads as code")
					}
				}
			}
		}
		return true
	})
	a.runsWritten(f)
	syntax.Walk(f, a.visit)
	for src := range a.pieces {
		if !a.drop[src] && !a.ok[src] {
			a.refuse(src, "it is not in a position where a value is known to stay data (an argument, a redirection target, an assignment)")
		}
	}
}

// parseError is the parser's message without its line:column prefix.
func parseError(err error) string {
	return parsePosRE.ReplaceAllString(err.Error(), "")
}

var parsePosRE = regexp.MustCompile(`^[0-9]+:[0-9]+: `)

// marks returns the srcs of the markers in text.
func marks(text string) []int {
	var out []int
	for _, m := range markerRE.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

func (a *analysis) text(n syntax.Node) string {
	return a.src[n.Pos().Offset():n.End().Offset()]
}

// claim marks a word as an allowed slot for its values.
func (a *analysis) claim(w *syntax.Word) {
	if w == nil {
		return
	}
	a.seen[w] = true
	for _, src := range marks(a.text(w)) {
		a.ok[src] = true
	}
}

// deny refuses every value in the node's text.
func (a *analysis) deny(n syntax.Node, reason string) {
	if w, ok := n.(*syntax.Word); ok {
		a.seen[w] = true
	}
	for _, src := range marks(a.text(n)) {
		a.refuse(src, reason)
	}
}

func (a *analysis) visit(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.Stmt:
		a.stmt(x)
	case *syntax.CallExpr:
		a.call(x)
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			if len(marks(a.text(x.X))) > 0 {
				if prog := a.codeReader(x.Y); prog != "" {
					a.deny(x.X, "its value is piped into "+prog+", which may run what it reads as code")
				}
			}
		}
	case *syntax.DeclClause:
		for _, as := range x.Args {
			a.deny(as, x.Variant.Value+" may export its value or evaluate it as arithmetic")
		}
	case *syntax.LetClause, *syntax.ArithmCmd, *syntax.ArithmExp:
		a.deny(x, "arithmetic evaluates its value as an expression")
	case *syntax.TestClause:
		a.deny(x, "[[ ]] is not POSIX sh (dash, a usual /bin/sh, has none) and bash reads its operands as patterns, arithmetic or names: compare a value with case instead")
	case *syntax.CaseClause:
		a.claim(x.Word)
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				a.claim(p)
			}
		}
	case *syntax.ForClause:
		// Not a shape hooks use: the loop variable would hold the value (issue 25's
		// shrink to what real hooks write).
		if wi, ok := x.Loop.(*syntax.WordIter); ok {
			for _, w := range wi.Items {
				a.deny(w, "a for loop's list may not hold a value: only a program's argument, a redirection target, an assignment of its own or a case subject may")
			}
		}
	case *syntax.Word:
		if !a.seen[x] {
			a.deny(x, "it is not in a position where a value is known to stay data (an argument, a redirection target, an assignment)")
		}
	}
	return true
}

// stmt checks the statement's redirections: an output target is a file name; a file or
// here-string read as input must go to a command that reads its input as data.
func (a *analysis) stmt(s *syntax.Stmt) {
	for _, r := range s.Redirs {
		if r.Word == nil || len(marks(a.text(r.Word))) == 0 {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.WordHdoc:
			if s.Cmd != nil {
				if prog := a.codeReader(s.Cmd); prog != "" {
					a.deny(r.Word, "it is fed to the standard input of "+prog+", which may run what it reads as code")
					continue
				}
			}
			a.claim(r.Word)
		case syntax.Hdoc, syntax.DashHdoc:
			a.deny(r.Word, "in a here-document delimiter")
		default:
			a.claim(r.Word)
		}
	}
}

func (a *analysis) arg(w *syntax.Word) arg {
	out := arg{w: w, marks: marks(a.text(w))}
	if len(out.marks) == 0 && !hasExpansion(w) {
		out.lit, out.literal = unquoteWord(w)
		return out
	}
	out.lit, out.literal = unquoteWord(w)
	if out.literal {
		out.lead = leading(out.lit)
		return out
	}
	// Not literal: a value inside an expansion that starts the word may start it.
	for _, p := range flatParts(w.Parts) {
		if l, ok := p.(*syntax.Lit); ok {
			if v, _ := unquoteLit(l.Value, false); v != "" {
				out.lead = leading(v)
				break
			}
			continue
		}
		if s, ok := p.(*syntax.SglQuoted); ok && !s.Dollar {
			if s.Value != "" {
				out.lead = leading(s.Value)
				break
			}
			continue
		}
		out.lead = marks(a.src[p.Pos().Offset():p.End().Offset()])
		break
	}
	return out
}

// quote runs the escaper over one level's pieces and returns the quoting of each
// placeholder (by src) and the placeholders it refused.
func quote(pieces []piece) (map[int]quoting, []refusal) {
	how := map[int]quoting{}
	var refused []refusal
	var e escaper
	for _, p := range pieces {
		if p.ph < 0 {
			for i := 0; i < len(p.lit); i++ {
				e.pos = p.off + i
				e.step(p.lit[i])
			}
			continue
		}
		e.pos = p.off
		q, reason := e.placeholder()
		if reason != "" {
			refused = append(refused, refusal{p: p, reason: reason})
			continue
		}
		how[p.src] = q
	}
	if reason, at := e.finish(); reason != "" && len(how)+len(refused) > 0 {
		p := blame(pieces, at)
		seen := false
		for _, r := range refused {
			seen = seen || r.p.src == p.src
		}
		if !seen {
			refused = append(refused, refusal{p: p, reason: reason})
			delete(how, p.src)
		}
	}
	return how, refused
}

// argvLevel is the check for exec form: the words are the argv, literal.
func (a *analysis) argvLevel(words [][]piece) {
	a.pieces, a.seen, a.ok, a.funcs, a.drop = map[int]piece{}, map[*syntax.Word]bool{}, map[int]bool{}, map[string]bool{}, map[int]bool{}
	ws := make([]arg, len(words))
	for i, w := range words {
		var b strings.Builder
		for _, p := range w {
			if p.ph >= 0 {
				a.pieces[p.src] = p
				b.WriteString(marker(p.src))
			} else {
				b.WriteString(p.lit)
			}
		}
		ws[i] = arg{lit: b.String(), literal: true}
		ws[i].marks = marks(ws[i].lit)
		ws[i].lead = leading(ws[i].lit)
	}
	a.command(ws)
	for src := range a.pieces {
		if !a.ok[src] {
			a.refuse(src, "it is not in a position where a value is known to stay data")
		}
	}
}
