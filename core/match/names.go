package match

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Variable names, for "if" rules. Bash evaluates the subscript of a variable name it is
// given as arithmetic, so a name runs the $(...) in it: test -v 'a[$(rm x)]', [[ -v ]],
// read, printf -v, declare and the other declaration builtins, declare -n's target,
// unset, mapfile, wait -p, getopts, let and (( )). A literal name is read like any word
// holding a substitution (line.go's deferred); a name only known at run time ("$y") makes
// the line unknown. So does a builtin that writes a variable whose value bash runs
// (printf -v BASH_ENV s: codeVariables), and a variable expanded inside arithmetic
// ($(( $v )), a[$i]), where bash evaluates its value as an expression.

// nameTaker says where a builtin takes variable names: the options whose value is a name
// (printf -v), the options with another value, and which operands are names.
type nameTaker struct {
	named   string // short options whose value is a name
	valued  string // short options whose value is not a name
	operand int    // 0: no operand is a name; -1: every operand is; n: the n-th operand is
	assigns bool   // operands are NAME or NAME=VALUE (declare); with -n the value is a name too
}

var nameTakers = map[string]nameTaker{
	"read":      {named: "a", valued: "dinNptu", operand: -1},
	"mapfile":   {valued: "dnOsuCc", operand: -1},
	"readarray": {valued: "dnOsuCc", operand: -1},
	"printf":    {named: "v"},
	"wait":      {named: "p"},
	"getopts":   {operand: 2},
	"unset":     {operand: -1},
	"let":       {operand: -1},
	"declare":   {operand: -1, assigns: true},
	"typeset":   {operand: -1, assigns: true},
	"local":     {operand: -1, assigns: true},
	"export":    {operand: -1, assigns: true},
	"readonly":  {operand: -1, assigns: true},
	"nameref":   {operand: -1, assigns: true},
}

// names makes the line unknown when a builtin run as a command (read "$y", builtin
// declare "$y=1", test -v "$y") is given a variable name only known at run time, or a
// name whose value bash runs.
func (in *lineInfo) names(c simpleCommand) {
	name, args, dyn := c.words[0], c.words[1:], c.dynamic[1:]
	if name == "test" || name == "[" {
		in.testNames(args, dyn)
		return
	}
	t, ok := nameTakers[name]
	if !ok {
		return
	}
	operand, nameref := 0, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if operand == 0 && dyn[i] && !(name == "printf" && i == len(args)-1) {
			in.unknown = true // may be an option naming a variable (o=-v; printf "$o" "$y" q)
			return
		}
		if a == "--" && operand == 0 {
			operand = 1
			continue
		}
		if operand == 0 && len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			for k := 1; k < len(a); k++ {
				isNamed := strings.IndexByte(t.named, a[k]) >= 0
				if a[k] == 'n' && t.assigns {
					nameref = true
				} else if isNamed || strings.IndexByte(t.valued, a[k]) >= 0 {
					value, vdyn := a[k+1:], false
					if value == "" && i+1 < len(args) {
						i++
						value, vdyn = args[i], dyn[i]
					}
					if isNamed && !in.knownName(value, vdyn) {
						return // printf -v "$y", read -a "$y"
					}
					break
				}
			}
			continue
		}
		operand++
		if t.operand != -1 && t.operand != operand {
			continue
		}
		target, value, hasValue := a, "", false
		if t.assigns {
			target, value, hasValue = strings.Cut(a, "=")
			target = strings.TrimSuffix(target, "+") // NAME+=VALUE
		}
		if !in.knownName(target, dyn[i] && (!hasValue || strings.Contains(target, substitution))) {
			return // read "$y", builtin declare "$y=1"
		}
		if hasValue && codeVariables[nameOf(target)] || nameref && (!hasValue || !in.knownName(value, dyn[i])) {
			in.unknown = true // builtin export BASH_ENV=s (a script this does not read); declare -n r="$y"; declare -n r
			return
		}
	}
}

// knownName reports whether a variable name is literal and is not a variable whose value
// bash runs; otherwise it makes the line unknown. A literal name holding a substitution
// (a[$(rm x)]) was read by deferred.
func (in *lineInfo) knownName(s string, dyn bool) bool {
	if dyn || codeVariables[nameOf(s)] {
		in.unknown = true
		return false
	}
	return true
}

// nameOf is a variable name without its subscript: a[1] is a.
func nameOf(s string) string {
	n, _, _ := strings.Cut(s, "[")
	return n
}

// testNames makes the line unknown when test or [ may be given -v or -R with a name
// only known at run time: either operator is written and some word is only known at run
// time, or the operator itself may be (test "$op" "$y": a word only known at run time
// that is not the last and is not followed by a binary operator).
func (in *lineInfo) testNames(args []string, dyn []bool) {
	if n := len(args); n > 0 && args[n-1] == "]" {
		args, dyn = args[:n-1], dyn[:n-1]
	}
	operator, unknownWord := false, false
	for i, a := range args {
		operator = operator || !dyn[i] && (a == "-v" || a == "-R")
		unknownWord = unknownWord || dyn[i]
		if dyn[i] && i+1 < len(args) && (dyn[i+1] || !testBinary[args[i+1]]) {
			operator = true // a unary operator only known at run time
		}
	}
	if operator && unknownWord {
		in.unknown = true
	}
}

// testBinary are test's binary operators: the word before one is an operand.
var testBinary = map[string]bool{"=": true, "==": true, "!=": true, "<": true, ">": true, "-eq": true, "-ne": true,
	"-lt": true, "-le": true, "-gt": true, "-ge": true, "-nt": true, "-ot": true, "-ef": true}

// declared makes the line unknown when a declaration (declare, local, export, ...) is
// given a name only known at run time ("$y=1"), declare -n a target only known at run
// time, naming a variable whose value bash runs, or none (declare -n r; r="$y" sets it), or a value for BASH_ENV or ENV that
// is not a literal path (a literal path is a script file the line runs: scripts.go).
func (in *lineInfo) declared(d *syntax.DeclClause) {
	nameref := d.Variant != nil && d.Variant.Value == "nameref"
	for _, a := range d.Args {
		if a.Naked && a.Value == nil && nameref {
			in.unknown = true // declare -n r; r="$y": the target is set later
			return
		}
		if a.Naked && a.Value != nil {
			s, dyn, _ := wordValue(a.Value)
			switch {
			case !dyn && (strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+")):
				nameref = nameref || strings.HasPrefix(s, "-") && strings.Contains(s, "n")
			case dyn, nameref:
				in.unknown = true // declare "$y=1", export "$y"; declare -n r; r="$y"
				return
			}
			continue
		}
		if nameref && a.Value != nil {
			if s, dyn, _ := wordValue(a.Value); !in.knownName(s, dyn) {
				return // declare -n r="$y"; declare -n r=BASH_ENV
			}
		}
	}
}

// arithmeticNames makes the line unknown when arithmetic (or a subscript) expands a
// parameter or a command substitution: bash evaluates the text it gives as an
// expression, so $(( $v )) runs what a[$(rm x)] in v says. $?, $#, $$, $! and ${#v} are
// numbers.
func (in *lineInfo) arithmeticNames(n syntax.Node) {
	var exprs []syntax.Node
	switch x := n.(type) {
	case *syntax.ArithmExp:
		exprs = append(exprs, x.X)
	case *syntax.ArithmCmd:
		exprs = append(exprs, x.X)
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			exprs = append(exprs, e)
		}
	case *syntax.CStyleLoop:
		exprs = append(exprs, x.Init, x.Cond, x.Post)
	case *syntax.ParamExp:
		if x.Index != nil && !allElements(x.Index) {
			exprs = append(exprs, x.Index)
		}
		if x.Slice != nil {
			exprs = append(exprs, x.Slice.Offset, x.Slice.Length)
		}
	case *syntax.Assign:
		if x.Index != nil {
			exprs = append(exprs, x.Index)
		}
	}
	for _, e := range exprs {
		if e == nil {
			continue
		}
		syntax.Walk(e, func(m syntax.Node) bool {
			switch p := m.(type) {
			case *syntax.ArithmExp:
				return false // a number
			case *syntax.CmdSubst, *syntax.ProcSubst:
				in.unknown = true
			case *syntax.ParamExp:
				if !p.Length && !(p.Param != nil && len(p.Param.Value) == 1 && strings.Contains("?#$!", p.Param.Value) && p.Exp == nil && p.Repl == nil) {
					in.unknown = true
				}
			}
			return !in.unknown
		})
	}
}
