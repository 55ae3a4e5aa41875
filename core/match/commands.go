package match

import "slices"

// Command is one command a Bash line runs, as the "if" rules read it (line.go).
type Command struct {
	// Words are the words bash passes to it: quotes removed, backslash and $'...' escapes
	// decoded, braces expanded. A part of a word known only at run time (a parameter,
	// command, arithmetic or process substitution) reads as Substitution.
	Words []string
	// Dynamic reports that some word's value is only known at run time: a substitution,
	// or an unquoted glob bash may replace by file names.
	Dynamic bool
	// Written reports a simple command of the line as written (also one inside $(...), a
	// compound command or a function body). It is false for a command the line makes run
	// (sudo's, timeout's, bash -c's, eval's, find -exec's, /bin/rm read again as rm) and
	// for a guess (a later word of a program this does not know, code in an argument).
	Written bool
}

// Substitution stands for a substitution's value in Command.Words; no word bash passes to
// a program can hold it.
const Substitution = substitution

// Commands reads a Bash line as the "if" rules do and returns every command it runs, in
// the order the parser meets them: each simple command of the line (joined by ;, &&, ||,
// |, inside compound commands and substitutions) followed by the commands it makes run.
// known is false when the line does not parse or runs a command that cannot be known
// ($CMD, a pipe into sh, an alias, python -c): such a line may run anything, and cmds
// then holds only what was read before that was found.
func Commands(line string) (cmds []Command, known bool) {
	var in lineInfo
	parsed := in.readLine(line)
	for _, c := range in.cmds {
		d := false
		for _, x := range c.dynamic {
			d = d || x
		}
		cmds = append(cmds, Command{Words: slices.Clone(c.words), Dynamic: d, Written: c.written})
	}
	return cmds, parsed && !in.unknown
}
