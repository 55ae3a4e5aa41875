package template

import (
	"strings"
)

// This file checks the builtins whose arguments stay data, and their exceptions.

// builtin checks the data builtins' exceptions: printf -v names a variable (bash
// evaluates a subscript in it), and test's arithmetic comparisons and -v evaluate.
func (a *analysis) builtin(name string, ws []arg) {
	switch name {
	case "printf":
		for i := 1; i < len(ws); i++ {
			w := ws[i]
			if strings.HasPrefix(a.word(w), "-v") || strings.HasPrefix(w.lit, "-v") {
				// printf -v NAME and -vNAME: bash evaluates a subscript in the name as
				// arithmetic, and the output stored in NAME is a value the check does
				// not follow to its uses.
				a.denyArgs(ws[1:], "printf -v stores its output in a variable named by a word (bash evaluates a subscript in the name as arithmetic), and the check does not follow that variable")
				return
			}
			if !strings.HasPrefix(w.lit, "-") || len(w.marks) > 0 || w.lit == "--" {
				// printf reads options only before its format: the arguments after it
				// are printed by the format, never read as options.
				if w.lit == "--" && len(w.marks) == 0 {
					i++
				}
				a.data(ws[1:min(i+1, len(ws))], false)
				if i+1 < len(ws) {
					if f := ws[i]; !f.literal || len(f.marks) > 0 || numericConversion(f.lit) {
						// zsh evaluates the argument of %d, %x, %f, ... (and of a *
						// width) as arithmetic, which runs a subscript's $(...).
						a.denyArgs(ws[i+1:], "printf's format is not literal or has a numeric conversion (%d, %x, %f, *), and zsh evaluates a number argument as arithmetic")
						return
					}
					a.data(ws[i+1:], true)
				}
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
		if !testShape(name, ws[1:]) {
			a.denyArgs(ws[1:], name+" with a value is allowed only as one string, a unary test (-n "+`"$F"`+") or a comparison (a = b): with more operands, or a value where an operator goes, the value's text (!, (, -a) changes how test parses")
			return
		}
	}
	a.data(ws[1:], false)
}

// testShape reports whether test's operands parse the same whatever the values are:
// POSIX fixes the meaning of up to three operands by their count and the literal
// operator, so a value is allowed as the one operand, as the operand of a literal unary
// operator, or as an operand of a literal binary one.
func testShape(name string, ops []arg) bool {
	if name == "[" && len(ops) > 0 && ops[len(ops)-1].literal && ops[len(ops)-1].lit == "]" && len(ops[len(ops)-1].marks) == 0 {
		ops = ops[:len(ops)-1]
	}
	op := func(w arg, table map[string]bool) bool { return w.literal && len(w.marks) == 0 && table[w.lit] }
	switch len(ops) {
	case 1:
		return true
	case 2:
		return op(ops[0], testUnary)
	case 3:
		return op(ops[1], testBinary) && len(ops[1].marks) == 0
	}
	for _, w := range ops {
		if len(w.marks) > 0 {
			return false
		}
	}
	return true
}

var (
	testUnary  = set("! -n -z -e -f -d -r -w -x -s -L -h -b -c -p -S -g -u -k -t")
	testBinary = set("= != == -nt -ot -ef < >")
)

var testArith = set("-eq -ne -lt -le -gt -ge -v -R")

// numericConversion reports whether a printf format has a conversion other than %s,
// %b and %q, or a * width or precision: one that may read its argument as a number
// (%c too: zsh 5.9 does not evaluate it, but it is refused rather than trusted).
func numericConversion(format string) bool {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.*'", format[j]) >= 0 {
			if format[j] == '*' {
				return true
			}
			j++
		}
		if j >= len(format) {
			return false
		}
		if strings.IndexByte("%sbq", format[j]) < 0 {
			return true
		}
		i = j
	}
	return false
}
