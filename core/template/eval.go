package template

import (
	"maps"
	"path"
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
//     FOO=v cmd, which puts it in a program's environment), a case subject or pattern,
//     a for loop's list, and the string operands of [[ ]];
//   - the -c script of sh, bash, dash or ash when the script is a literal word: the
//     script is checked by these same rules and the value is escaped for both shells,
//     as deep as the nesting goes. Wrappers whose options are known (env without -S,
//     command, exec, nice, nohup, setsid, stdbuf, time, timeout, npx, bunx, find -exec)
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
	sub := &analysis{chains: a.chains, leading: a.leading, refused: a.refused, depth: depth, positional: a.positional,
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
	syntax.Walk(f, a.visit)
	for src := range a.pieces {
		if !a.drop[src] && !a.ok[src] {
			a.refuse(src, "it is not in a position where a value is known to stay data (an argument, a redirection target, an assignment)")
		}
	}
}

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
		a.test(x.X, false)
	case *syntax.CaseClause:
		a.claim(x.Word)
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				a.claim(p)
			}
		}
	case *syntax.ForClause:
		if wi, ok := x.Loop.(*syntax.WordIter); ok {
			for _, w := range wi.Items {
				a.claim(w)
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

// test claims the operands of [[ ]] except those evaluated as arithmetic or as names.
func (a *analysis) test(t syntax.TestExpr, arith bool) {
	switch x := t.(type) {
	case *syntax.Word:
		if arith {
			a.deny(x, "[[ ]] with an arithmetic comparison evaluates its value as arithmetic")
		} else {
			a.claim(x)
		}
	case *syntax.BinaryTest:
		ar := x.Op >= syntax.TsEql && x.Op <= syntax.TsGtr
		a.test(x.X, ar)
		a.test(x.Y, ar)
	case *syntax.UnaryTest:
		a.test(x.X, x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar)
	case *syntax.ParenTest:
		a.test(x.X, arith)
	}
}

// codeReader returns the first program in n that may read its standard input as code
// (anything but a data program), or "".
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
			if k := kindOf(name); k != kindData && !(k == kindBuiltin && stdinData[name]) {
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

// arg is a word as the program receives it.
type arg struct {
	w       *syntax.Word // nil in exec form
	lit     string       // the text after quote removal, when literal
	literal bool         // only quotes, escapes and markers: no expansion
	marks   []int        // srcs of the values in the word
	lead    []int        // srcs whose value may start the word
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

// leading returns the srcs of the markers at the start of s (values may be empty, so a
// run of markers all lead).
func leading(s string) []int {
	var out []int
	for {
		loc := markerRE.FindStringSubmatchIndex(s)
		if loc == nil || loc[0] != 0 {
			return out
		}
		n, _ := strconv.Atoi(s[loc[2]:loc[3]])
		out = append(out, n)
		s = s[loc[1]:]
	}
}

// flatParts lists a word's parts with double quotes opened.
func flatParts(parts []syntax.WordPart) []syntax.WordPart {
	var out []syntax.WordPart
	for _, p := range parts {
		if d, ok := p.(*syntax.DblQuoted); ok && !d.Dollar {
			out = append(out, flatParts(d.Parts)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// oneField reports whether a word with expansions still reaches the program as one word
// that does not start with an expansion's text unquoted: every expansion is inside
// double quotes, so nothing splits it into more words (a script path "$HOOKS/x.py").
func oneField(w arg) bool {
	if w.w == nil {
		return false
	}
	for _, p := range w.w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if _, ok := unquoteLit(x.Value, false); !ok {
				return false
			}
		case *syntax.SglQuoted:
			if x.Dollar {
				return false
			}
		case *syntax.DblQuoted:
		default:
			return false
		}
	}
	return true
}

func hasExpansion(w *syntax.Word) bool {
	_, ok := unquoteWord(w)
	return !ok
}

// unquoteWord removes the quoting of a word made only of literal text and quotes; ok is
// false when it holds an expansion, a glob or anything else the shell would change.
func unquoteWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			v, ok := unquoteLit(x.Value, false)
			if !ok {
				return "", false
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", false
			}
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				v, _ := unquoteLit(l.Value, true)
				b.WriteString(v)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unquoteLit removes backslashes from literal text, unquoted or inside "...". ok is
// false for unquoted text the shell would still expand (globs, a leading ~, braces).
func unquoteLit(s string, dquote bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			n := s[i+1]
			switch {
			case n == '\n':
				i++
				continue
			case !dquote || strings.IndexByte("$`\"\\", n) >= 0:
				b.WriteByte(n)
				i++
				continue
			}
		}
		if !dquote && (c == '*' || c == '?' || c == '~' && i == 0 ||
			c == '[' && strings.IndexByte(s[i:], ']') > 0 || c == '{' && strings.IndexByte(s[i:], '}') > 0) {
			return "", false // a glob, brace or tilde expansion
		}
		b.WriteByte(c)
	}
	return b.String(), true
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

// words results: command classifies the words of one simple command (also the command
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

// commandOptions are options of programs that otherwise take data whose value is a
// command line or configuration that runs one (git -c core.sshCommand=..., tar
// --to-command=..., rsync -e ...): a value in such an option is refused.
var commandOptions = map[string][]string{
	"git":   {"-c", "--config-env", "--exec-path", "--upload-pack", "--receive-pack", "--exec", "-u"},
	"tar":   {"--to-command", "--use-compress-program", "-I", "--rsh-command", "--info-script", "--new-volume-script", "-F", "--checkpoint-action"},
	"rsync": {"-e", "--rsh", "--rsync-path"},
	"scp":   {"-S", "-o", "-F"},
	"sftp":  {"-S", "-o", "-F", "-D"},
}

// codeOptions refuses a value given to one of name's commandOptions, as the option's
// next word (-e <<x>>), after = (--rsh=<<x>>) or glued to a short option (-e<<x>>).
func (a *analysis) codeOptions(name string, ws []arg) {
	opts := commandOptions[name]
	if len(opts) == 0 {
		return
	}
	for i := 1; i < len(ws); i++ {
		text := a.word(ws[i])
		if ws[i].literal && text == "--" {
			return
		}
		for _, o := range opts {
			switch {
			case ws[i].literal && text == o && i+1 < len(ws):
				a.denyArgs(ws[i+1:i+2], "it is the value of "+name+" "+o+", which runs a command")
			case strings.HasPrefix(text, o+"=") || (len(o) == 2 && len(text) > 2 && strings.HasPrefix(text, o)):
				a.denyArgs(ws[i:i+1], "it is the value of "+name+" "+o+", which runs a command")
			}
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

type kind uint8

const (
	kindData    kind = iota // a program that takes its arguments as data
	kindShell               // a shell: -c takes a script
	kindInterp              // runs a program from an argument or a file
	kindWrapper             // runs its arguments as a command
	kindCode                // runs an argument as code in some other way
	kindBuiltin             // a shell builtin
)

// versionRE strips a version from a program name: python3.11, perl5.36, node18, pypy3.
var versionRE = regexp.MustCompile(`^([A-Za-z_]+?)-?[0-9][0-9.]*$`)

// baseName is a program's name without its directory and version.
func baseName(name string) string {
	b := path.Base(name)
	if m := versionRE.FindStringSubmatch(b); m != nil {
		return m[1]
	}
	return b
}

var (
	posixShells = set("sh bash dash ash")
	allShells   = set("sh bash dash ash zsh ksh ksh93 mksh pdksh oksh yash posh fish tcsh csh rc es elvish nu nushell xonsh pwsh powershell")
	interps     = set("python pypy perl ruby node nodejs php lua luajit Rscript tclsh")
	wrappers    = set(`env command exec builtin sudo doas su runuser sg nice nohup timeout time stdbuf setsid
		chroot unshare nsenter flock script ionice chrt taskset numactl strace ltrace valgrind gdb lldb watch
		ssh rsh mosh xargs parallel systemd-run firejail bwrap setpriv cgexec run-parts start-stop-daemon
		daemonize tmux screen busybox toybox docker podman kubectl nerdctl npx bunx pnpx expect fakeroot
		proot caffeinate`)
	codePrograms = set(`eval source . trap alias awk gawk mawk nawk deno bun irb R julia osascript m4 dc ed ex
		vi vim nvim emacs make gmake bmake`)
	// Shell builtins (and keywords taking words) other than the wrappers above.
	builtins = set(`echo printf cd pwd test [ true false : exit return shift kill wait umask read
		readarray mapfile unset let declare typeset local export readonly set shopt getopts hash
		type ulimit times jobs fg bg disown suspend enable bind complete compgen compopt fc history
		dirs pushd popd caller logout help coproc select unalias`)
	// dataBuiltin are the builtins whose arguments stay data (printf -v and test's
	// arithmetic and -v are checked in builtin).
	dataBuiltin = set("echo printf cd pwd test [ true false : exit return kill wait umask")
	// stdinData are the builtins that may read a value from their input as data.
	stdinData = set("read true false : echo printf")
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// kindOf classifies a program by name (with any directory and version).
func kindOf(name string) kind {
	b := baseName(name)
	switch {
	case !strings.Contains(name, "/") && (builtins[name] || wrappers[name] && (name == "command" || name == "exec" || name == "builtin")):
		if wrappers[name] {
			return kindWrapper
		}
		return kindBuiltin
	case allShells[b]:
		return kindShell
	case interps[b]:
		return kindInterp
	case wrappers[b]:
		return kindWrapper
	case codePrograms[b] || codePrograms[name]:
		return kindCode
	}
	return kindData
}

// shell checks the words of a shell: its options must be literal, a -c script is
// checked as a nested level when the shell is one the escaper models, a script file's
// arguments are data, and a -c script's positional parameters are refused.
func (a *analysis) shell(name string, ws []arg) {
	b := baseName(name)
	cmdMode := false
	i := 1
	for ; i < len(ws); i++ {
		w := ws[i]
		if !w.literal && !(oneField(w) && len(w.marks) == 0 && !cmdMode) {
			a.denyArgs(ws[i:], "the word "+a.word(w)+" of "+name+" is not a literal word, so its options and script cannot be known")
			return
		}
		if !w.literal {
			break // a script file named by a quoted expansion: "$HOOKS/check.sh"
		}
		if len(w.marks) > 0 {
			break
		}
		a.mark(w)
		s := w.lit
		if s == "--" || s == "-" {
			i++
			break
		}
		if strings.HasPrefix(s, "--") {
			if !bashLong[s] {
				a.denyArgs(ws[i+1:], "it follows the option "+s+" of "+name+", which hookexec does not model")
				return
			}
			continue
		}
		if s != "" && (s[0] == '-' || s[0] == '+') {
			if s[0] == '-' && strings.ContainsRune(s[1:], 'c') {
				cmdMode = true
			}
			i += strings.Count(s[1:], "o") + strings.Count(s[1:], "O") // -o name
			continue
		}
		break
	}
	if i >= len(ws) {
		return
	}
	if !cmdMode {
		// A script file: what it runs is the file's business, and its arguments are data
		// to the shell as to any program. A value naming the script chooses what runs.
		a.denyArgs(ws[i:i+1], "it names the script "+name+" runs, so the value would choose what runs")
		a.data(ws[i+1:], false)
		return
	}
	script := ws[i]
	// $0, $1, ... of the script: data, as a script file's arguments are, and followed
	// into the script when it can be read.
	a.data(ws[i+1:], false)
	a.mark(script)
	var positional []int
	for _, w := range ws[i+1:] {
		positional = append(positional, w.marks...)
	}
	if len(script.marks) == 0 && len(positional) == 0 {
		return
	}
	switch {
	case !posixShells[b]:
		a.denyArgs(ws[i:i+1], "it is inside a script for "+name+", whose syntax hookexec does not model")
	case !script.literal:
		a.denyArgs(ws[i:i+1], "the "+name+" -c script "+a.word(script)+" is not a literal word, so the script cannot be read before it runs")
	default:
		a.nested(script, positional)
	}
}

// bashLong are bash's long options that take no value.
var bashLong = set("--norc --noprofile --posix --login --noediting --restricted --verbose --version --help --debugger --dump-strings")

// nested checks a literal -c script as a shell level of its own and composes the
// quoting of each value in it: the inner shell's quoting first, then the outer one's.
func (a *analysis) nested(script arg, positional []int) {
	if a.raw {
		a.denyArgs([]arg{script}, "a variable holding it is expanded into a "+"nested shell script, unescaped, which runs it as code")
		if len(positional) == 0 {
			return
		}
		// A variable holding a value passed on as the script's argument (sh -c '...' sh
		// "$1"): followed into that script too, at every level, as a value given there.
	}
	var pieces []piece
	text := script.lit
	last := 0
	for _, loc := range markerRE.FindAllStringSubmatchIndex(text, -1) {
		if loc[0] > last {
			pieces = append(pieces, piece{lit: text[last:loc[0]], ph: -1, src: -1})
		}
		src, _ := strconv.Atoi(text[loc[2]:loc[3]])
		p, ok := a.pieces[src]
		if !ok {
			// Marker text written by the user: a literal, like any other.
			pieces = append(pieces, piece{lit: text[loc[0]:loc[1]], ph: -1, src: -1})
		} else {
			pieces = append(pieces, p)
		}
		last = loc[1]
	}
	if last < len(text) {
		pieces = append(pieces, piece{lit: text[last:], ph: -1, src: -1})
	}
	how, refused := quote(pieces)
	for _, r := range refused {
		a.refuse(r.p.src, r.reason+" (in a nested shell script)")
	}
	for src := range a.pieces {
		if _, ok := how[src]; ok && !a.refusedSrc(src) {
			a.ok[src] = true
		}
	}
	inner := &analysis{chains: map[int][]quoting{}, leading: a.leading, refused: a.refused}
	if len(positional) > 0 {
		inner.positional = map[string][]int{}
		for _, name := range strings.Fields("0 1 2 3 4 5 6 7 8 9 @ *") {
			inner.positional[name] = positional
		}
	}
	inner.level(pieces, how, a.depth+1)
	a.order = append(a.order, inner.order...)
	for src, q := range how {
		if _, ok := a.pieces[src]; ok {
			a.chains[src] = append(inner.chains[src], q)
		}
	}
}

func (a *analysis) refusedSrc(src int) bool {
	_, ok := a.refused[src]
	return ok
}

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

// unwrap returns the command a wrapper runs, when its options are known: rest is the
// words from the wrapped program on. Otherwise why says why the value is refused.
func unwrap(name string, ws []arg) (rest []arg, why string) {
	unknown := "it is an argument of " + name + ", which runs its arguments as a command; only its known options are looked through"
	spec, known := wrapperSpecs[name]
	if !known {
		return nil, unknown
	}
	i := 1
	for i < len(ws) {
		w := ws[i]
		if name == "env" && w.literal && !strings.HasPrefix(w.lit, "-") && strings.Contains(w.lit, "=") {
			if len(w.marks) > 0 {
				return nil, "it is put in the environment of the program env runs, which a program may read as code (LD_PRELOAD, BASH_ENV, PAGER)"
			}
			i++
			continue
		}
		if len(w.marks) > 0 || !w.literal {
			break // the wrapped program or an operand: checked below
		}
		s := w.lit
		if s == "--" {
			i++
			break
		}
		if !strings.HasPrefix(s, "-") || s == "-" {
			break
		}
		switch {
		case spec.flags[s]:
			i++
		case spec.withValue[s]:
			i += 2
		case strings.HasPrefix(s, "--") && strings.Contains(s, "=") && spec.withValue[s[:strings.Index(s, "=")]]:
			i++
		case len(s) > 2 && s[1] != '-' && spec.withValue[s[:2]]:
			i++ // -sKILL
		default:
			return nil, unknown
		}
	}
	i += spec.operands
	if i >= len(ws) {
		return nil, unknown
	}
	for _, w := range ws[1:i] {
		if len(w.marks) > 0 || !w.literal {
			return nil, unknown
		}
	}
	return ws[i:], ""
}

type wrapperSpec struct {
	flags, withValue map[string]bool
	operands         int // words before the command (timeout's duration)
}

var wrapperSpecs = map[string]wrapperSpec{
	"env":     {flags: set("-i --ignore-environment -0 --null"), withValue: set("-u --unset -C --chdir")},
	"command": {flags: set("-p")},
	"exec":    {flags: set("-c -l"), withValue: set("-a")},
	"builtin": {},
	"nice":    {withValue: set("-n --adjustment")},
	"nohup":   {},
	"setsid":  {flags: set("-f --fork -w --wait -c --ctty")},
	"stdbuf":  {withValue: set("-i -o -e --input --output --error")},
	"time":    {flags: set("-p -v --verbose --portability"), withValue: set("-f --format -o --output")},
	"timeout": {flags: set("--foreground --preserve-status -v --verbose"), withValue: set("-s --signal -k --kill-after"), operands: 1},
	// npx prettier --write <<x>>: the package's program runs with the arguments (-c runs code).
	"npx":  {flags: set("-y --yes --no --no-install -q --quiet --silent"), withValue: set("-p --package")},
	"bunx": {flags: set("--bun")},
}

// builtin checks the data builtins' exceptions: printf -v names a variable (bash
// evaluates a subscript in it), and test's arithmetic comparisons and -v evaluate.
func (a *analysis) builtin(name string, ws []arg) {
	switch name {
	case "printf":
		for i := 1; i+1 < len(ws); i++ {
			if ws[i].literal && ws[i].lit == "-v" {
				a.denyArgs(ws[i+1:i+2], "printf -v names a variable with its value, and bash evaluates a subscript in it as arithmetic")
				i++
				continue
			}
			if !strings.HasPrefix(ws[i].lit, "-") || len(ws[i].marks) > 0 {
				// printf reads options only before its format: the arguments after it
				// are printed by the format, never read as options.
				a.data(ws[1:i+1], false)
				a.data(ws[i+1:], true)
				return
			}
		}
	case "echo":
		// echo reads options only from its first words: a value after a word that is
		// not an option is printed as it is.
		for i := 1; i < len(ws); i++ {
			if !ws[i].literal || len(ws[i].marks) > 0 || !strings.HasPrefix(ws[i].lit, "-") {
				a.data(ws[1:i+1], false)
				a.data(ws[i+1:], true)
				return
			}
		}
	case "test", "[":
		for _, w := range ws[1:] {
			if w.literal && len(w.marks) == 0 && testArith[w.lit] {
				a.denyArgs(ws[1:], "test "+w.lit+" evaluates its operands as arithmetic in bash")
				return
			}
		}
	}
	a.data(ws[1:], false)
}

var testArith = set("-eq -ne -lt -le -gt -ge -v -R")

// find's -exec, -execdir, -ok and -okdir run a command: it is checked as one.
func (a *analysis) find(ws []arg) {
	var own []arg
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if w.literal && len(w.marks) == 0 && (w.lit == "-exec" || w.lit == "-execdir" || w.lit == "-ok" || w.lit == "-okdir") {
			a.mark(w)
			j := i + 1
			for j < len(ws) && !(ws[j].literal && (ws[j].lit == ";" || ws[j].lit == "+")) {
				j++
			}
			a.command(ws[i+1 : j])
			if j < len(ws) {
				a.mark(ws[j])
			}
			i = j
			continue
		}
		own = append(own, w)
	}
	a.data(own, false)
}

// sed's script (the first operand, or the word after -e) may run commands (GNU sed's
// e and s///e): a value there is refused; a value naming an input file is data.
func (a *analysis) sed(name string, ws []arg) {
	script := false
	var files []arg
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		switch {
		case w.literal && len(w.marks) == 0 && (w.lit == "-e" || w.lit == "-f" || w.lit == "--expression" || w.lit == "--file"):
			a.mark(w)
			if i+1 < len(ws) {
				a.denyArgs(ws[i+1:i+2], "it is in the script of "+name+", which may run commands")
			}
			i++
			script = true
		case len(w.marks) > 0 && !script:
			a.denyArgs(ws[i:i+1], "it is in the script of "+name+", which may run commands")
			script = true
		case w.literal && strings.HasPrefix(w.lit, "-") && len(w.marks) == 0:
			if strings.HasPrefix(w.lit, "-e") || strings.HasPrefix(w.lit, "--expression=") {
				script = true
			}
			a.mark(w)
		case !script:
			a.mark(w)
			script = true
		default:
			files = append(files, w)
		}
	}
	a.data(files, false)
}

// jq's first operand is its program: a value there is refused; files after it are data.
func (a *analysis) jq(name string, ws []arg) {
	program := false
	var rest []arg
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if w.literal && len(w.marks) == 0 && strings.HasPrefix(w.lit, "-") && !program {
			a.mark(w)
			switch w.lit {
			case "--arg", "--argjson", "--slurpfile", "--rawfile":
				rest = append(rest, ws[min(i+1, len(ws)-1):min(i+3, len(ws))]...)
				i += 2
			case "-f", "--from-file":
				program = true
			case "--indent", "-L":
				i++
			}
			continue
		}
		if !program {
			a.denyArgs(ws[i:i+1], "it is the program of "+name)
			program = true
			continue
		}
		rest = append(rest, w)
	}
	a.data(rest, false)
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
