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
