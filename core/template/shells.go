package template

import (
	"strconv"
	"strings"
)

// This file checks the words of a shell and its -c script as a nested level.

// shell checks the words of a shell: its options must be literal, a -c script is
// checked as a nested level when the shell is one the escaper models, a script file's
// arguments are data, and a -c script's positional parameters are refused.
func (a *analysis) shell(name string, ws []arg) {
	b := baseName(name)
	cmdMode, allexport := false, false
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
			if s[0] == '-' && strings.ContainsRune(s[1:], 'a') || s[0] == '-' && strings.ContainsRune(s[1:], 'o') && i+1 < len(ws) && ws[i+1].lit == "allexport" {
				allexport = true
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
		a.nested(script, positional, allexport)
	}
}

// bashLong are bash's long options that take no value.
var bashLong = set("--norc --noprofile --posix --login --noediting --restricted --verbose --version --help --debugger --dump-strings")

// nested checks a literal -c script as a shell level of its own and composes the
// quoting of each value in it: the inner shell's quoting first, then the outer one's.
func (a *analysis) nested(script arg, positional []int, allexport bool) {
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
	inner := &analysis{chains: map[int][]quoting{}, leading: a.leading, refused: a.refused, allexport: allexport}
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
