package match

import (
	"errors"
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// What a Bash line runs, for "if" rules: every simple command of the line, as bash will
// see its words (quotes removed, braces expanded), and every command those commands run
// that the line itself spells out (wrappers.go, interpreters.go, scripts.go). Where the program that
// runs, or the code a program runs, is not text of the line (a $VAR or $() command word,
// a glob, a pipe into a shell, an alias, python -c), the line is unknown and matches
// every rule: for a guard, selecting too often is safe and too rarely is not.

// maxBraces bounds the words one brace expansion may make; past it, the line is unknown.
// maxValueParts bounds the NAME=value parts of one word read as code (a=b=c=...).
const (
	maxBraces     = 256
	maxValueParts = 8
	maxGuessed    = 64 << 10 // the longest text read as code on a guess; longer is unknown
)

// lineInfo is what a line runs.
type lineInfo struct {
	cmds    []simpleCommand
	dynamic bool // some word's value is only known at run time
	unknown bool // a command it runs cannot be known: the line matches every rule
	steps   int  // commands looked at, bounded by maxCommands
	files   *fileUse
	// Bash evaluates some variables' values as expressions (arithmetic, ${!v}, ${v@P},
	// subscripts, declare -i), where a[$(rm x)] runs rm. evaluates: the line has such a
	// place; fed: some variable may hold text the line does not spell out.
	evaluates, fed bool
}

// readLine reads a whole Bash line; it reports false when the line does not parse.
func (in *lineInfo) readLine(line string) bool {
	in.files = &fileUse{}
	if !in.read(line, 0) {
		return false
	}
	if in.files.made() {
		in.unknown = true // a script the line runs may be one it wrote
	}
	if in.evaluates && in.fed {
		in.unknown = true // v=$(...); echo $((v)): the value is code bash may run
	}
	return true
}

// evaluation reports whether a node makes bash evaluate a variable's value as an
// expression: arithmetic, [[ -eq ]], ${!v}, ${v@P}, a subscript or a slice.
func evaluation(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
		return true
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			return true
		}
	case *syntax.ParamExp:
		return x.Excl || x.Index != nil && !allElements(x.Index) || x.Slice != nil ||
			x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && strings.Contains(x.Exp.Word.Lit(), "P")
	case *syntax.Assign:
		return x.Index != nil || x.Naked && x.Value != nil && strings.HasPrefix(x.Value.Lit(), "-") && strings.Contains(x.Value.Lit(), "i")
	}
	return false
}

// allElements reports whether a subscript is [@] or [*], which evaluates nothing.
func allElements(e syntax.ArithmExpr) bool {
	w, ok := e.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

// feeds reports whether a for loop gives its variable values the line does not spell out.
func feeds(n syntax.Node) bool {
	f, ok := n.(*syntax.ForClause)
	if !ok {
		return false
	}
	it, ok := f.Loop.(*syntax.WordIter)
	if !ok {
		return false
	}
	if len(it.Items) == 0 && !it.InPos.IsValid() {
		return true // for v; do: the positional parameters
	}
	for _, w := range it.Items {
		if feedsWord(w) {
			return true
		}
	}
	return false
}

// feedsWord reports whether a word's value may be text the line does not spell out: a
// command or process substitution, a parameter (which concatenation can make code of), or
// a glob; an arithmetic expansion and $?, $#, $$, $! are numbers.
func feedsWord(w *syntax.Word) bool {
	var parts func([]syntax.WordPart, bool) bool
	parts = func(ps []syntax.WordPart, quoted bool) bool {
		for _, p := range ps {
			switch x := p.(type) {
			case *syntax.Lit:
				if !quoted && isGlob(x.Value) {
					return true
				}
			case *syntax.SglQuoted, *syntax.ArithmExp:
			case *syntax.DblQuoted:
				if parts(x.Parts, true) {
					return true
				}
			case *syntax.ParamExp:
				if !(x.Param != nil && strings.Contains("?#$!", x.Param.Value) && len(x.Param.Value) == 1 && x.Exp == nil && x.Repl == nil) {
					return true
				}
			default:
				return true
			}
		}
		return false
	}
	return parts(w.Parts, false)
}

// read adds the commands of a shell line; it reports false when the line does not parse.
func (in *lineInfo) read(line string, depth int) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if in.unknown {
			return false
		}
		in.evaluates = in.evaluates || evaluation(n)
		in.fed = in.fed || feeds(n)
		in.arithmeticNames(n) // names.go
		switch x := n.(type) {
		case *syntax.Stmt:
			if call, ok := x.Cmd.(*syntax.CallExpr); ok {
				in.call(call, x.Redirs, depth)
			}
		case *syntax.DeclClause: // declare x='a[$(rm y)]': a value bash may read as code later
			in.declared(x)
			for _, a := range x.Args {
				in.assigned(a, depth)
			}
		case *syntax.UnaryTest: // [[ -v $y ]]
			if w, ok := x.X.(*syntax.Word); ok && (x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar) {
				if _, dyn, _ := wordValue(w); dyn {
					in.unknown = true
				}
			}
		}
		return true // and on into $(), <(), here-documents, function bodies
	})
	return true
}

// call adds one simple command, its words expanded as bash expands them before it runs.
func (in *lineInfo) call(call *syntax.CallExpr, redirs []*syntax.Redirect, depth int) {
	for _, a := range call.Assigns {
		if in.unknown {
			return
		}
		in.assigned(a, depth)
	}
	c := simpleCommand{first: true}
	for _, w := range call.Args {
		words := []*syntax.Word{w}
		if split := (&syntax.Word{Parts: w.Parts}); syntax.SplitBraces(split) { // a copy: Walk is still to visit w
			words = words[:0]
			for e, err := range expand.BracesSeq(nil, split) {
				if err != nil || len(words) == maxBraces {
					in.unknown = true
					return
				}
				words = append(words, e)
			}
		}
		for _, e := range words {
			s, dyn, glob := wordValue(e)
			if s == "" && !dyn && len(words) > 1 && isUnquotedEmpty(e) {
				continue // {rm,}: brace expansion drops the empty word
			}
			c.words = append(c.words, s)
			c.dynamic = append(c.dynamic, dyn || glob)
			in.dynamic = in.dynamic || dyn
			in.fed = in.fed || feedsWord(e) // f "$(...)": a function's parameters
		}
	}
	for _, r := range redirs {
		switch r.Op {
		case syntax.WordHdoc: // <<< word
			s, dyn, _ := wordValue(r.Word)
			c.heres = append(c.heres, s)
			c.input = c.input || dyn
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				s, dyn := hereDocument(r)
				c.heres = append(c.heres, s)
				c.input = c.input || dyn
			}
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			c.input = true
		}
	}
	in.fed = in.fed || c.input
	in.files.mentionCall(c, redirs)
	for i, w := range c.words {
		if !c.dynamic[i] {
			in.deferred(w, depth)
		}
	}
	for _, h := range c.heres {
		in.deferred(h, depth)
	}
	if len(c.words) > 0 {
		in.add(c, depth)
	}
}

// deferred reads literal text holding a substitution ('a[$(rm x)]', '$(rm x)') as a shell
// line: bash may expand it later, when a variable holding it is used in arithmetic
// (printf -v x '%s' 'a[$(rm x)]'; echo $((x))), a prompt or an eval.
func (in *lineInfo) deferred(s string, depth int) {
	if !strings.Contains(s, "$(") && !strings.Contains(s, "`") && !strings.Contains(s, "${") {
		return
	}
	in.maybeScript(s, depth)
	// As a word, which is how arithmetic and prompts expand it; text with a substitution
	// that does not parse as one may still run one: unknown.
	if !in.read(": "+s, depth+1) {
		in.unknown = true
	}
}

// hereDocument is a here-document's body as the command reads it: as written when its
// delimiter is quoted, else with backslashes removed as in double quotes.
func hereDocument(r *syntax.Redirect) (string, bool) {
	quoted := false
	for _, p := range r.Word.Parts {
		if lit, ok := p.(*syntax.Lit); !ok || strings.Contains(lit.Value, `\`) {
			quoted = true
		}
	}
	if !quoted {
		s, dyn, _ := wordValueIn(r.Hdoc, true)
		return s, dyn
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			return "", true
		}
		b.WriteString(lit.Value)
	}
	return b.String(), false
}

// isUnquotedEmpty reports whether a word is made of unquoted literals only.
func isUnquotedEmpty(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			return false
		}
	}
	return true
}

// assigned looks at a NAME=value assignment: bash reads some variables' values as code
// later (arithmetic on a[$(...)], PROMPT_COMMAND, GIT_SSH_COMMAND, an eval "$X"), so a
// value that reads as a shell line is read as one.
func (in *lineInfo) assigned(a *syntax.Assign, depth int) {
	if a.Name != nil && a.Name.Value == "PATH" {
		in.files.path = true
	}
	if a.Name != nil && scriptVariables[a.Name.Value] && (a.Append || a.Index != nil || a.Array != nil) {
		in.unknown = true // BASH_ENV+=s: a value this does not know
	}
	if a.Value != nil {
		s, dyn, _ := wordValue(a.Value)
		in.fed = in.fed || feedsWord(a.Value)
		if a.Name != nil && scriptVariables[a.Name.Value] && !dyn && s != "" {
			in.files.ran(s, 0) // BASH_ENV=s bash -c :: a script file, which the line may write
		}
		switch {
		case !dyn:
			in.maybeScript(s, depth)
			in.deferred(s, depth)
		case a.Name != nil && codeVariables[a.Name.Value]:
			in.unknown = true // BASH_ENV=<(echo rm x) bash -c :
		}
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				if s, dyn, _ := wordValue(e.Value); !dyn {
					in.maybeScript(s, depth)
					in.deferred(s, depth)
				}
			}
		}
	}
}

// codeVariables are variables whose value bash runs or sources: a value only known at run
// time makes the line unknown.
var codeVariables = map[string]bool{"BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true, "PS0": true, "PS1": true,
	"PS2": true, "PS3": true, "PS4": true}

// scriptVariables name a script file a shell runs at start: bash's BASH_ENV, sh's ENV.
var scriptVariables = map[string]bool{"BASH_ENV": true, "ENV": true}

// add adds one simple command and what it runs.
func (in *lineInfo) add(c simpleCommand, depth int) {
	if len(c.words) == 0 || in.unknown {
		return // once unknown, the line matches every rule: nothing more to look at
	}
	if in.steps++; in.steps > maxCommands {
		in.unknown = true
		return
	}
	if c.dynamic[0] || depth > maxNesting {
		in.unknown = true // the command run is unknown ($CMD, $(...), a glob)
		return
	}
	c.written = c.first && depth == 0
	in.cmds = append(in.cmds, c)
	name := c.words[0]
	own := 1 // a wrapper's argument: counted once as a mention
	if c.first {
		own = 0
	}
	if strings.Contains(name, "/") {
		in.files.ran(name, own) // ./s, /tmp/s
	} else {
		in.files.commands = append(in.files.commands, scriptUse{name, own})
	}
	if len(name) > 1 && name[0] == '=' {
		name = name[1:] // zsh (a user's shell for the Bash tool) runs =rm as the rm on PATH
		c = c.sub(simpleCommand{words: append([]string{name}, c.words[1:]...), dynamic: c.dynamic, suffix: c.suffix})
		in.cmds = append(in.cmds, c)
	}
	if base := path.Base(name); base != name && strings.Contains(name, "/") {
		// /bin/rm, ./rm: matched by their base name too (selecting too often is safe).
		c = c.sub(simpleCommand{words: append([]string{base}, c.words[1:]...), dynamic: c.dynamic, suffix: c.suffix})
		in.cmds = append(in.cmds, c)
		name = base
	}
	args, dyn := c.words[1:], c.dynamic[1:]
	in.names(c) // names.go
	switch {
	case isShell(name):
		in.shell(c, depth)
	case name == "eval":
		if len(args) > 0 && args[0] == "--" && !dyn[0] {
			args, dyn = args[1:], dyn[1:]
		}
		in.script(args, dyn, depth)
	case name == "source" || name == ".":
		in.source(c, depth)
	case name == "read" || name == "mapfile" || name == "readarray" || name == "getopts" || name == "printf" || name == "wait":
		in.fed = true // read v, printf -v v, wait -p v: a value from input or a format
		if name == "mapfile" || name == "readarray" {
			in.unknownProgram(c, depth) // -C 'rm x': a callback
		}
	case name == "trap":
		for i, a := range args {
			if dyn[i] {
				in.unknown = true // trap "$(echo rm x)" EXIT: code only known at run time
				return
			}
			in.maybeScript(a, depth) // the action runs at the signal
		}
	case name == "alias" || name == "unalias":
		in.unknown = true // an alias makes any word run any text
	case name == "hash" || name == "enable":
		for _, a := range args {
			if strings.HasPrefix(a, "-") && strings.ContainsAny(a, "pf") {
				in.unknown = true // hash -p /bin/rm ls; enable -f lib name
			}
		}
	case name == "find":
		in.findExec(c, depth)
	case name == "git":
		in.git(c)
	case name == "sed" || name == "gsed":
		in.sed(c)
	case isAwk(name):
		in.awk(c)
	case isInterpreter(name):
		in.interpreter(c)
	default:
		w, ok := wrappers[name]
		ran := false
		if ok {
			ran = in.wrapped(w, c, depth)
		} else {
			in.unknownProgram(c, depth)
		}
		if shellers[name] {
			in.sheller(c, ran, depth)
		}
	}
}

// script reads words joined by spaces as a shell line (eval, watch, env -S); a word only
// known at run time, or a line that does not parse, makes the line unknown.
func (in *lineInfo) script(words []string, dyn []bool, depth int) {
	for _, d := range dyn {
		if d {
			in.unknown = true
			return
		}
	}
	if len(words) > 0 && !in.read(strings.Join(words, " "), depth+1) {
		in.unknown = true
	}
}

// maybeScript reads text that may be code (an argument, an assigned value) as a shell
// line, when it parses as one; otherwise it is data.
func (in *lineInfo) maybeScript(s string, depth int) {
	for rest, n := s, 0; n < maxValueParts; n++ {
		_, after, ok := strings.Cut(rest, "=")
		if !ok {
			break
		}
		in.maybeText(after, depth) // --checkpoint-action=exec=rm x, ProxyCommand=rm x
		rest = after
	}
	in.maybeText(s, depth)
}

// parsedLines is the longest run of s's first lines that parses: a shell runs the lines
// of a script before the one with a syntax error ("" when there is none).
func parsedLines(s string) string {
	for tries := 0; tries < maxNesting; tries++ {
		_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
		if err == nil {
			return s
		}
		var perr syntax.ParseError
		if !errors.As(err, &perr) || perr.Pos.Line() <= 1 {
			return ""
		}
		lines := strings.SplitAfter(s, "\n")
		s = strings.Join(lines[:min(int(perr.Pos.Line())-1, len(lines))], "")
	}
	return ""
}

// maybeText reads text as a shell line when it parses as one; a leading ! or | is a shell
// escape in vim, less, gdb and LESSOPEN.
func (in *lineInfo) maybeText(s string, depth int) {
	if t := strings.TrimLeft(s, "!| "); t != s {
		in.maybeText(t, depth)
	}
	if strings.TrimSpace(s) == "" {
		return
	}
	if in.steps++; depth >= maxNesting || in.steps > maxCommands || len(s) > maxGuessed {
		in.unknown = true
		return
	}
	sub := lineInfo{steps: in.steps, files: in.files}
	if !sub.read(s, depth+1) && !sub.read(parsedLines(s), depth+1) {
		return
	}
	in.cmds = append(in.cmds, sub.cmds...)
	in.dynamic = in.dynamic || sub.dynamic
	in.evaluates = in.evaluates || sub.evaluates
	in.fed = in.fed || sub.fed
	in.unknown = in.unknown || sub.unknown
	in.steps = sub.steps
}
