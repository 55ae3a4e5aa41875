//go:build unix

package template

import (
	"slices"
	"strings"
)

// Hostile values for the differential test. Each one, if any shell at any level ever
// runs part of it as code, runs pwn (the trap program on PATH: it logs its argv and
// leaves an XPWN file) or touches an XPWN file itself; the rest are data that a shell
// would change if it expanded them (globs, tildes, braces, escapes). The run directory
// holds the files some of them name: evil (a script that runs pwn), evilbin/ (every
// program name the grammar uses, each one pwn) and evilrepo/ (a git repository whose
// configuration runs pwn).

// harmless is the value of the baseline run: which recorder calls a command reaches.
const harmless = "hx0"

// kitchenSink is one value that runs pwn through every way of getting code run: an
// array subscript (arithmetic), $(...), backticks, breaking out of '...' and "...",
// a command separator, and new lines that end a here-document.
const kitchenSink = "a[$(pwn subscript)]'\"`pwn backtick`\"'$(pwn cmdsub);pwn semi\nEOF\nHXEOF\npwn newline\n"

// subscript runs pwn where a shell evaluates the value as arithmetic: a subscript of a
// parameter that is set (zsh evaluates it only then; bash and mksh always).
const subscript = "HOME[$(pwn subscript)]"

// coreValues are the ways of getting code run, one each: the long forms run them all
// with every command, the short form the kitchen sink and a path.
var coreValues = []string{
	kitchenSink,
	"$(pwn cmdsub)",
	subscript,
	"x[$(touch XPWN-subscript)]+1",
	"'\"`pwn backtick`\"'$(pwn quotes);pwn semi",
	"x\nEOF\nHXEOF\npwn newline\n",
	"./evil",
	"evilbin",
	"evilrepo",
}

// pathValues name the run directory's traps: a script (evil), a PATH entry (evilbin)
// and a git repository whose configuration runs pwn (evilrepo).
var pathValues = []string{"./evil", "evilbin", "evilrepo"}

// moreValues are drawn in turn, a few per command in the short form, all of them in the
// seeds' long form.
var moreValues = []string{
	"",
	"'", `"`, `\`, `\\`, `'\''`, `'"'"'`, `\'`, `\"`,
	"`pwn bt`", "; pwn semi", "|pwn pipe", "&pwn amp", "&&pwn and", ">XPWN-redirect",
	"$(touch XPWN-cmdsub)", "\\$(pwn escaped)", "'$(pwn single)'", "\"$(pwn double)\"",
	"'\"$(pwn mixed)\"'", "\"'$(pwn mixed2)'\"", "\\`pwn bt2\\`", "${IFS}pwn${IFS}ifs",
	"$((1+1))", "${PATH}", "$HOME", "$0", "$$", "$?", "$@", "$*", "$-", "$#", "$!", "$_",
	"${x@P}", "${!PATH}", "\\[$(pwn prompt)\\]", "%(pwn)T", "%n%s%x", "%s",
	"*", "?", "[a]", "~", "~root", "{a,b}", "{}", "{pwn,x}", "!", "!!", "^pwn^", "#", " # x",
	"-rf", "--", "-n", "-e", "-v a[$(pwn opt)]", "--help", " -x", "+x",
	"\n", "a\nb", "\npwn nl\n", "\r\npwn cr", "\tpwn tab",
	"pwn word", "touch XPWN-word", "/dev/null", "..", ".", "/", "evil",
	"EOF", "HXEOF", "x\nHXEOF\npwn heredoc2",
	"a[$(pwn s1)]=1", "a[$(pwn subscript)]", "x[`pwn s2`]", "hxa[$(pwn s3)]", "1+a[$(pwn s4)]", "F[$(pwn s5)]", "a[$(touch XPWN-s6)]",
	"$(pwn cmdsub)[1]", "(pwn paren)", "((1))", "1e3", "0x10", "08", "-1", "999999999999999999999",
	"x;pwn", "x'y", "x\"y", "x\\y", "a b  c", "  ", "\t",
	"\"); __import__('os').system('pwn py'); print(\"",
	"__import__('os').system('pwn py2')",
	"héllo wörld ✓ 日本 \u202e\u200b", "\u00a0\u2028\u2029", "\x01\x02\x1b[31m\x7f",
	"\xff\xfe$(pwn utf8)\x80'\"", "\xc3(", "\xed\xa0\x80",
	strings.Repeat("a", 30000) + "$(pwn long)",
	strings.Repeat("'\"\\$`", 2000) + "$(pwn long2)",
}

// allValues is every hostile value.
var allValues = append(append([]string{}, coreValues...), moreValues...)

// shortValues are the short form's values for case i: the kitchen sink, an array
// subscript (bash's arithmetic runs it only when it is the whole value), and in turn a
// trap path, a glob or one of moreValues.
func shortValues(i int) []string {
	n := len(pathValues) + 2
	switch {
	case i%n < len(pathValues):
		return []string{kitchenSink, subscript, pathValues[i%n]}
	case i%n == len(pathValues):
		return []string{kitchenSink, subscript, "*"}
	}
	return []string{kitchenSink, subscript, moreValues[(i/n)%len(moreValues)]}
}

// seedValues are the short form's values for seed i: the kitchen sink, the subscript,
// every trap path, a glob, an operator of test, and one of moreValues in turn.
func seedValues(i int) []string {
	return slices.Concat([]string{kitchenSink, subscript}, pathValues, []string{"*", "!", moreValues[i%len(moreValues)]})
}

// longValues are the long form's: every core value and k of moreValues, in turn.
func longValues(i, k int) []string {
	vs := slices.Clone(coreValues)
	for j := range k {
		vs = append(vs, moreValues[(i*k+j)%len(moreValues)])
	}
	return vs
}
