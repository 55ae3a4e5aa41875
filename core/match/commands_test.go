package match

import (
	"bytes"
	"flag"
	"math/rand"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The differential test of Commands' words (the policy facts' "commands"): generated
// lines of printf commands whose words are literal data spelled every way bash quotes a
// word, joined the ways bash joins commands, run by the real bash; each printf prints a
// marker and then its arguments NUL-separated, and Commands must give those same words,
// command by command. printf only prints, so no line can run anything else: every special
// character the generator writes is quoted or escaped.

var (
	wordsLines = flag.Int("words.lines", 400, "generated lines of TestCommandWordsShell")
	wordsSeed  = flag.Int64("words.seed", 1, "seed of TestCommandWordsShell's generator")
)

// marker starts each command's output.
const marker = "MK" // letters wordText and the plain words never hold

// wordText is bytes a word may hold: every shell special character, spaces, a newline,
// a tab and a byte that is not UTF-8.
const wordText = "ab Z09_-./=:,+%@ \t\n'\"\\$`!#&;|<>(){}[]*?~^\xff"

// text is a short run of wordText.
func (c *choices) text() string {
	var b strings.Builder
	for n := c.n(5); n > 0; n-- {
		b.WriteByte(wordText[c.n(len(wordText))])
	}
	return b.String()
}

// wordPart is one quoted or unquoted part of a word and the text bash makes of it
// (without brace expansion, which wordGen applies by expanding the whole line).
func (c *choices) wordPart() string {
	s := c.text()
	switch c.n(6) {
	case 0: // single quotes
		return shellQuote(s)
	case 1: // double quotes: \ " $ ` escaped; a backslash before anything else stays
		var b strings.Builder
		b.WriteByte('"')
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '\\', '"', '$', '`':
				b.WriteByte('\\')
			case '!':
				b.WriteString(`"'!'"`) // history expansion is off under -c; kept quoted anyway
				continue
			}
			b.WriteByte(s[i])
		}
		if c.n(3) == 0 {
			b.WriteString(`\q`) // stays as \q
		}
		return b.String() + `"`
	case 2: // ANSI-C quoting
		return c.pick(`$'\n'`, `$'\t'`, `$'\x41\x7a'`, `$'\101'`, `$'\''`, `$'\\'`, `$'\u00e9'`, `$'a\qb'`,
			`$'\e'`, `$'\cA'`, `$'\xff'`, `$''`, `$'\"'`, `$'\?'`, `$'\0777'`)
	case 3: // backslash escapes, outside quotes
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '\n' {
				b.WriteString("$'\\n'") // \<newline> is a line continuation, not a character
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
		return b.String()
	case 4: // a brace expansion
		return c.pick("{a,b}", "{x,}", "{1,2,3}", "p{q,r}s", "{a,b}{c,d}", "{a}", "{,}", "{'a b',c}")
	}
	// plain characters; a leading # is a comment, a leading ~ a tilde expansion, a
	// trailing = before ( an array: written where they stay words
	return c.pick("a", "rm", "-rf", "--", "x/y", "a=b", "x:y", "%s", "@", "-", "1", "a*q", "zz?", "[q]", "a#b", "^x", "a~")
}

// word is one argument made of one to three parts.
func (c *choices) word() string {
	var b strings.Builder
	for n := 1 + c.n(3); n > 0; n-- {
		b.WriteString(c.wordPart())
	}
	return b.String()
}

// printfLine is a line of printf commands, each printing marker and its words.
func (c *choices) printfLine() string {
	cmd := func() string {
		words := []string{`printf '%s\0'`, marker}
		for n := c.n(5); n > 0; n-- {
			words = append(words, c.word())
		}
		return strings.Join(words, c.pick(" ", "  ", "\t"))
	}
	line := cmd()
	for n := c.n(3); n > 0; n-- {
		next := cmd()
		switch c.n(6) {
		case 0:
			next = "{ " + next + "; }"
		case 1:
			next = "( " + next + " )"
		case 2:
			next = "if true; then " + next + "; fi"
		case 3:
			next = "for i in 1; do " + next + "; done"
		}
		line += c.pick("; ", " && ", "\n", ";\n") + next
	}
	if c.n(4) == 0 {
		line += c.pick(" # a comment", "  ", ";")
	}
	return line
}

// bashWords runs a line in an empty directory and returns the words each printf printed.
func bashWords(t *testing.T, dir, line string) [][]string {
	t.Helper()
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", line)
	cmd.Dir, cmd.Env = dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent-home", "LC_ALL=C.UTF-8"} // $'\u00e9' is é in a UTF-8 locale (an agent's shell), \u00E9 in C
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	require.NoError(t, cmd.Run(), "bash: %q: %s", line, stderr.String())
	fields := strings.Split(out.String(), "\x00")
	require.Equal(t, "", fields[len(fields)-1], "printf ends each word with NUL")
	var cmds [][]string
	for _, f := range fields[:len(fields)-1] {
		if f == marker {
			cmds = append(cmds, []string{})
			continue
		}
		require.NotEmpty(t, cmds, "a word before the first marker: %q", line)
		cmds[len(cmds)-1] = append(cmds[len(cmds)-1], f)
	}
	return cmds
}

// parsedWords are the words Commands gives each printf the line writes.
// parsedWords are the words Commands gives each printf the line writes, and whether the
// line is known. Two kinds of line are not, by design: one that is not UTF-8 (the parser
// refuses it; a JSON payload's command is UTF-8) and one with a word holding ` $( or ${,
// which the "if" parser also reads as code bash may run later (printf -v v '%s'
// 'a[$(rm x)]'; echo $((v))) and which may not parse as such.
func parsedWords(t *testing.T, dir, line string) ([][]string, bool) {
	cmds, known := Commands(line)
	if !known {
		if utf8.ValidString(line) {
			code := false
			for _, ws := range bashWords(t, dir, line) {
				for _, w := range ws {
					code = code || strings.Contains(w, "`") || strings.Contains(w, "$(") || strings.Contains(w, "${")
				}
			}
			require.True(t, code, "a line of printf and data is known: %q", line)
		}
		return nil, false
	}
	var out [][]string
	for _, c := range cmds {
		if !c.Written || slices.Equal(c.Words, []string{"true"}) { // if true; then
			continue
		}
		require.GreaterOrEqual(t, len(c.Words), 3, "%q", line)
		require.Equal(t, []string{"printf", `%s\0`, marker}, c.Words[:3], "%q", line)
		out = append(out, slices.Clone(c.Words[3:]))
	}
	return out, true
}

func TestCommandWordsShell(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	dir := t.TempDir()
	c := &choices{rnd: rand.New(rand.NewSource(*wordsSeed))}
	start, compared := time.Now(), 0
	for i := 0; i < *wordsLines; i++ {
		line := c.printfLine()
		if parsed, known := parsedWords(t, dir, line); known {
			compared++
			assert.Equal(t, bashWords(t, dir, line), parsed, "line %q", line)
		}
		if t.Failed() {
			t.Fatalf("seed %d, line %d", *wordsSeed, i)
		}
	}
	t.Logf("%d lines, %d known and compared with bash, in %v", *wordsLines, compared, time.Since(start).Round(time.Millisecond))
	assert.Greater(t, compared, *wordsLines/2, "most generated lines are known")
}

func FuzzCommandWordsShell(f *testing.F) {
	if _, err := exec.LookPath("bash"); err != nil {
		f.Skip("bash not installed")
	}
	for _, seed := range []string{"", "\x01\x02\x03", "\x04\x05\x00\x01\x02\x03\x04\x05", "\x02\x03\x04\x05\x01\x01\x01"} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		line := (&choices{bytes: b}).printfLine()
		if parsed, known := parsedWords(t, dir, line); known {
			assert.Equal(t, bashWords(t, dir, line), parsed, "line %q", line)
		}
	})
}

// Commands of compound and wrapped lines: which are written, which a command makes run.
func TestCommands(t *testing.T) {
	type cmd struct {
		words   string // joined by "|"
		written bool
		dynamic bool
	}
	for _, tc := range []struct {
		line  string
		want  []cmd
		known bool
	}{
		{"a && b | c; (d) & echo $(f)", []cmd{{"a", true, false}, {"b", true, false}, {"c", true, false},
			{"d", true, false}, {"echo|\x00", true, true}, {"f", true, false}}, true},
		{"e $(f)", []cmd{{"e|\x00", true, true}}, false}, // an unknown program given a program only known at run time
		{"timeout 5 rm x", []cmd{{"timeout|5|rm|x", true, false}, {"rm|x", false, false}}, true},
		{"eval 'rm x'", []cmd{{"eval|rm x", true, false}, {"rm|x", false, false}}, true},
		{"ls *.go", []cmd{{"ls|*.go", true, true}}, true},
		{"rm -rf ~ ~/x", []cmd{{"rm|-rf|~|~/x", true, false}}, true}, // a tilde is not expanded: bash gives $HOME
		{"$X y", nil, false},
		{"if", nil, false},
	} {
		t.Run(tc.line, func(t *testing.T) {
			cmds, known := Commands(tc.line)
			var got []cmd
			for _, c := range cmds {
				got = append(got, cmd{strings.Join(c.Words, "|"), c.Written, c.Dynamic})
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.known, known)
		})
	}
}
