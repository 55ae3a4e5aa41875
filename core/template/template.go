// Package template compiles hook commands with placeholders and renders them for
// execution, quoting every substituted value for the shell context it lands in.
//
// A placeholder is <<expr>> (preferred) or {{expr}} (seed syntax; spaces allowed inside
// the braces), where expr is a dotted path with optional [i] indexes such as
// tool_args.file_path or files[0]. Text that looks like a placeholder but is not one, such
// as the here-document in cat <<EOF, is literal.
//
// Compile reads a command the way /bin/sh will, once, and decides for each placeholder
// whether its value goes in as a bare word ('v'), inside '...' or inside "...". A
// placeholder it cannot quote safely (a here-document, $'...', `...`, ${...}, arithmetic,
// an unterminated quote, or text whose parse differs between dash and bash) is a compile
// error, never a guess. A command without shell syntax compiles to Direct mode and is
// exec'd without a shell; CompileArgs compiles an argv that never sees a shell.
//
// A placeholder is allowed only where the value provably stays data once the shell has
// quoted it (analysis.go): an argument of a program that is not a shell, interpreter, wrapper
// or code-reading builtin, a redirection target, an assignment of its own, a case subject,
// or a literal sh -c script, where it is escaped for both shells. Anywhere else, and in a
// command the parser cannot read, it is a compile error listing every such placeholder.
// Render refuses, per fire, a value that would start an argument with "-" (an option), or
// that no process can receive (a NUL byte, an argument over MaxArg).
//
// The package does not look values up, run anything, or check that the command is valid
// shell: values arrive rendered, and the shell reports its own syntax errors. What a
// program it does not know does with an argument is that program's business.
package template

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-shellwords"
)

// Mode says how a compiled command is executed.
type Mode uint8

const (
	Shell  Mode = iota // run as /bin/sh -c script
	Direct             // no shell syntax: exec'd directly, argv split once at compile time
	Args               // exec form from a hook's "args" list: no shell ever
)

// String returns "shell", "direct" or "args".
func (m Mode) String() string {
	switch m {
	case Shell:
		return "shell"
	case Direct:
		return "direct"
	case Args:
		return "args"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// Sentinel errors, wrapped by *Error.
var (
	// ErrEmpty is returned by Compile for a blank command and by CompileArgs for no args.
	ErrEmpty = errors.New("hookexec: template: empty command")
	// ErrUnsafe is returned by Compile for a placeholder in a context it cannot quote.
	ErrUnsafe = errors.New("hookexec: template: placeholder cannot be quoted safely")
)

// Error is the error Compile and CompileArgs return.
type Error struct {
	Err         error  // ErrEmpty or ErrUnsafe
	Placeholder string // the placeholder as written, e.g. "<<x>>"; "" for ErrEmpty
	Offset      int    // byte offset of Placeholder in the command
	Reason      string // why, e.g. "inside a here-document body"
}

func (e *Error) Error() string {
	if e.Placeholder == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("hookexec: template: placeholder %s at byte %d: %s", e.Placeholder, e.Offset, e.Reason)
}

// Unwrap returns ErrEmpty or ErrUnsafe.
func (e *Error) Unwrap() error { return e.Err }

// Errors is what Compile and CompileArgs return when more than one placeholder is
// refused: one *Error each, in the order they appear in the command.
type Errors []*Error

func (e Errors) Error() string {
	msgs := make([]string, len(e))
	for i, x := range e {
		msgs[i] = x.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap returns the *Error values, for errors.Is and errors.As.
func (e Errors) Unwrap() []error {
	out := make([]error, len(e))
	for i, x := range e {
		out[i] = x
	}
	return out
}

// ErrValue is returned (wrapped in *ValueError) by Render for a value that must not be
// substituted: it would be read as an option, or cannot be passed to a process at all.
var ErrValue = errors.New("hookexec: template: value refused")

// ValueError is the error Render returns.
type ValueError struct {
	Placeholder string // the expr, e.g. "tool_input.file_path"
	Reason      string
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("hookexec: template: the value of <<%s>> was refused: %s", e.Placeholder, e.Reason)
}

// Unwrap returns ErrValue.
func (e *ValueError) Unwrap() error { return ErrValue }

// MaxArg is the longest argument string Render passes: Linux refuses an exec with an
// argument of 128 KiB or more (MAX_ARG_STRLEN, counting the NUL).
const MaxArg = 128<<10 - 1

// Command is a compiled hook command. Safe for concurrent use.
type Command struct {
	mode   Mode
	source string
	names  []string // distinct exprs; a placeholder's index is its position here

	// Shell form, for Shell and Direct: each segment's literal, then its placeholder.
	script []segment
	tail   string // literal after the last placeholder
	size   int    // bytes of literal text in the script

	argv [][]part // Direct and Args: argv words

	live []bool // by placeholder: some occurrence is substituted (not only in comments)
	lead []bool // by placeholder: some occurrence may start an argument word (option rule)
}

type segment struct {
	lit   string
	ph    int
	how   quoting
	chain []quoting // quoting for the nested shells the value passes through, innermost first
}

// part is a piece of an argv word: literal text, or placeholder ph when ph >= 0.
type part struct {
	lit   string
	ph    int
	chain []quoting // exec form: quoting for a nested shell script (sh -c), innermost first
}

// Compile parses a shell command string. It returns an *Error wrapping ErrEmpty for a
// blank command, or ErrUnsafe for a placeholder in a context that cannot be made safe.
// Without placeholders every non-blank command compiles.
func Compile(command string) (*Command, error) { return compile(command, false) }

// CompileLiteral is Compile for a dialect without placeholders (Claude Code's): "{{.ID}}"
// and "<<EOF>>" are text like any other, passed to the shell as written.
func CompileLiteral(command string) (*Command, error) { return compile(command, true) }

func compile(command string, literal bool) (*Command, error) {
	if strings.TrimSpace(command) == "" {
		return nil, &Error{Err: ErrEmpty}
	}
	s := scanner{literal: literal}
	pieces := s.scan(command)
	c := &Command{mode: Shell, source: command, names: s.names}
	if len(c.names) == 0 {
		c.tail, c.size = command, len(command)
		if argv, ok := splitDirect(pieces); ok {
			c.mode, c.argv = Direct, argv
		}
		return c, nil
	}
	how, refused := quote(pieces)
	a := newAnalysis()
	for _, r := range refused {
		a.refuse(r.p.src, r.reason)
	}
	a.level(pieces, how, 0)
	if err := a.err(pieces); err != nil {
		return nil, err
	}
	c.live = make([]bool, len(c.names))
	c.lead = make([]bool, len(c.names))
	nested := false
	lit := strings.Builder{}
	for _, p := range pieces {
		if p.ph < 0 {
			lit.WriteString(p.lit)
			continue
		}
		chain := a.chains[p.src]
		nested = nested || len(chain) > 0
		c.script = append(c.script, segment{lit: lit.String(), ph: p.ph, how: how[p.src], chain: chain})
		c.live[p.ph] = c.live[p.ph] || how[p.src] != quoteDrop && !slices.Contains(chain, quoteDrop)
		c.lead[p.ph] = c.lead[p.ph] || a.leading[p.src]
		c.size += lit.Len()
		lit.Reset()
	}
	c.tail = lit.String()
	c.size += len(c.tail)
	if argv, ok := splitDirect(pieces); ok && !nested {
		c.mode, c.argv = Direct, argv
	}
	return c, nil
}

// err returns the refusals as an *Error, or Errors when there are several.
func (a *analysis) err(pieces []piece) error {
	bysrc := map[int]piece{}
	for _, p := range pieces {
		if p.ph >= 0 {
			bysrc[p.src] = p
		}
	}
	rs := a.refusals(bysrc)
	if len(rs) == 0 {
		return nil
	}
	list := make(Errors, len(rs))
	for i, r := range rs {
		// A reason quoting the checked text names each value by its placeholder, not by
		// the marker that stood for it.
		reason := markerRE.ReplaceAllStringFunc(r.reason, func(m string) string {
			src, _ := strconv.Atoi(markerRE.FindStringSubmatch(m)[1])
			if p, ok := bysrc[src]; ok {
				return p.lit
			}
			return m
		})
		list[i] = &Error{Err: ErrUnsafe, Placeholder: r.p.lit, Offset: r.p.off, Reason: reason}
	}
	if len(list) == 1 {
		return list[0]
	}
	return list
}

// blame picks the placeholder an error at offset at is reported against: the first one
// after it, else the last one before it.
func blame(pieces []piece, at int) piece {
	var last piece
	for _, p := range pieces {
		if p.ph < 0 {
			continue
		}
		if p.off >= at {
			return p
		}
		last = p
	}
	return last
}

// CompileArgs compiles exec-form args (argv[0] is the program). Placeholders are
// substituted literally: there is no shell to quote for. It returns an *Error wrapping
// ErrEmpty for no args.
func CompileArgs(args []string) (*Command, error) { return compileArgs(args, false) }

// CompileArgsLiteral is CompileArgs without placeholders.
func CompileArgsLiteral(args []string) (*Command, error) { return compileArgs(args, true) }

// CompileText compiles text that is never run, such as a prompt for the host's
// evaluator or a commit message given to git as the value of -m: placeholders are
// substituted literally and no context is checked. Argv(value)[0] is the text.
func CompileText(text string) (*Command, error) {
	s := scanner{}
	c := &Command{mode: Args, source: text, argv: make([][]part, 1)}
	for _, p := range s.scan(text) {
		lit := p.lit
		if p.ph >= 0 {
			lit = ""
		}
		c.argv[0] = append(c.argv[0], part{lit: lit, ph: p.ph})
	}
	c.names = s.names
	c.live = make([]bool, len(c.names))
	c.lead = make([]bool, len(c.names))
	for i := range c.live {
		c.live[i] = true
	}
	return c, nil
}

func compileArgs(args []string, literal bool) (*Command, error) {
	if len(args) == 0 {
		return nil, &Error{Err: ErrEmpty}
	}
	s := scanner{literal: literal}
	c := &Command{mode: Args, source: strings.Join(args, " ")}
	c.argv = make([][]part, len(args))
	words := make([][]piece, len(args))
	for i, a := range args {
		words[i] = s.scan(a)
		for _, p := range words[i] {
			lit := p.lit
			if p.ph >= 0 {
				lit = ""
			}
			c.argv[i] = append(c.argv[i], part{lit: lit, ph: p.ph})
		}
	}
	c.names = s.names
	if len(c.names) == 0 {
		return c, nil
	}
	a := newAnalysis()
	a.argvLevel(words)
	if err := a.err(slices.Concat(words...)); err != nil {
		return nil, err
	}
	c.live = make([]bool, len(c.names))
	c.lead = make([]bool, len(c.names))
	for i, w := range words {
		k := 0
		for _, p := range w {
			if p.ph >= 0 {
				chain := a.chains[p.src]
				c.argv[i][k].chain = chain
				c.live[p.ph] = c.live[p.ph] || !slices.Contains(chain, quoteDrop)
				c.lead[p.ph] = c.lead[p.ph] || a.leading[p.src]
			}
			k++
		}
	}
	return c, nil
}

// Mode returns how the command is executed.
func (c *Command) Mode() Mode { return c.mode }

// Source returns the original text (args joined with spaces for Args).
func (c *Command) Source() string { return c.source }

// Placeholders returns the exprs in order of first appearance, deduplicated; index i is
// what value(i) receives in Argv. The slice is a copy.
func (c *Command) Placeholders() []string { return slices.Clone(c.names) }

// Argv renders the command for execution. value(i) returns the rendered string for
// Placeholders()[i]; it is called once per placeholder, in order, and may be nil when
// there are none. Shell mode: []string{"/bin/sh", "-c", script}. Direct and Args: the
// literal argv.
func (c *Command) Argv(value func(i int) string) []string {
	if c.mode == Shell {
		return c.shell(c.values(value))
	}
	return c.exec(c.values(value))
}

// Render is Argv with the values checked first. It returns a *ValueError wrapping
// ErrValue, and no argv, when a value contains a NUL byte (no process can receive it),
// when a value at the start of an argument word starts with "-" and no literal "--"
// comes before it in its command (the program would read it as an option), or when an
// argument of the rendered command would be longer than MaxArg. A value that is only
// substituted into a comment is not checked: it is never passed.
func (c *Command) Render(value func(i int) string) ([]string, error) {
	vals := c.values(value)
	for i, v := range vals {
		if i >= len(c.live) || !c.live[i] {
			continue
		}
		if strings.IndexByte(v, 0) >= 0 {
			return nil, &ValueError{Placeholder: c.names[i], Reason: "it contains a NUL byte, which no process can receive as an argument"}
		}
		if c.lead[i] && strings.HasPrefix(v, "-") {
			return nil, &ValueError{Placeholder: c.names[i], Reason: fmt.Sprintf("it starts with - (%.40q) at the start of an argument, where the program would read it as an option; write -- before the placeholder to pass such values as arguments", v)}
		}
	}
	var argv []string
	if c.mode == Shell {
		argv = c.shell(vals)
	} else {
		argv = c.exec(vals)
	}
	for _, a := range argv {
		if len(a) > MaxArg {
			longest := 0
			for i, v := range vals {
				if c.live[i] && len(v) > len(vals[longest]) {
					longest = i
				}
			}
			return nil, &ValueError{Placeholder: c.names[longest], Reason: fmt.Sprintf("the rendered argument would be %d bytes, over the argument limit of %d", len(a), MaxArg)}
		}
	}
	return argv, nil
}

// ShellArgv always renders the shell form (/bin/sh -c script), the fallback when a Direct
// command's program is not on PATH, so that the error output is the shell's. For Args mode
// it returns Argv.
func (c *Command) ShellArgv(value func(i int) string) []string {
	if c.mode == Args {
		return c.exec(c.values(value))
	}
	return c.shell(c.values(value))
}

func (c *Command) values(value func(int) string) []string {
	if len(c.names) == 0 {
		return nil
	}
	vals := make([]string, len(c.names))
	if value != nil {
		for i := range vals {
			vals[i] = value(i)
		}
	}
	return vals
}

func (c *Command) shell(vals []string) []string {
	n := c.size
	for _, s := range c.script {
		n += quotedLen(s.how, vals[s.ph])
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range c.script {
		b.WriteString(s.lit)
		writeQuoted(&b, s.how, applyChain(s.chain, vals[s.ph]))
	}
	b.WriteString(c.tail)
	return []string{"/bin/sh", "-c", b.String()}
}

func (c *Command) exec(vals []string) []string {
	argv := make([]string, len(c.argv))
	for i, w := range c.argv {
		argv[i] = render(w, vals)
	}
	return argv
}

func render(w []part, vals []string) string {
	switch len(w) {
	case 0:
		return ""
	case 1:
		if w[0].ph < 0 {
			return w[0].lit
		}
		return applyChain(w[0].chain, vals[w[0].ph])
	}
	n := 0
	for _, p := range w {
		if p.ph < 0 {
			n += len(p.lit)
		} else {
			n += len(vals[p.ph])
		}
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range w {
		if p.ph < 0 {
			b.WriteString(p.lit)
		} else {
			b.WriteString(applyChain(p.chain, vals[p.ph]))
		}
	}
	return b.String()
}

// applyChain quotes v for each nested shell it passes through, innermost first.
func applyChain(chain []quoting, v string) string {
	for _, q := range chain {
		var b strings.Builder
		b.Grow(quotedLen(q, v))
		writeQuoted(&b, q, v)
		v = b.String()
	}
	return v
}

// exprRE is the placeholder expression grammar: a dotted path with optional [i] indexes.
var exprRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\[[0-9]+\])*(\.[A-Za-z_][A-Za-z0-9_-]*(\[[0-9]+\])*)*$`)

// piece is literal text (ph < 0) or a placeholder (lit is the placeholder as written).
type piece struct {
	lit string
	ph  int
	off int
	src int // placeholders: a number unique in the command, named by the check's markers
}

// scanner splits text into pieces, numbering distinct exprs across calls.
type scanner struct {
	names []string
	count int // placeholders scanned, for piece.src
	index map[string]int
	// literal: the text has no placeholders at all (dialects without templates).
	literal bool
}

func (s *scanner) scan(text string) []piece {
	if s.literal {
		if text == "" {
			return nil
		}
		return []piece{{lit: text, ph: -1, src: -1}}
	}
	var out []piece
	start := 0
	for i := 0; i+1 < len(text); i++ {
		expr, end := placeholderAt(text, i)
		if end < 0 {
			continue
		}
		if i > start {
			out = append(out, piece{lit: text[start:i], ph: -1, off: start, src: -1})
		}
		out = append(out, piece{lit: text[i:end], ph: s.intern(expr), off: i, src: s.count})
		s.count++
		start = end
		i = end - 1
	}
	if start < len(text) {
		out = append(out, piece{lit: text[start:], ph: -1, off: start, src: -1})
	}
	return out
}

func (s *scanner) intern(expr string) int {
	if i, ok := s.index[expr]; ok {
		return i
	}
	if s.index == nil {
		s.index = map[string]int{}
	}
	s.index[expr] = len(s.names)
	s.names = append(s.names, expr)
	return len(s.names) - 1
}

// placeholderAt returns the expr of a placeholder starting at text[i] and the offset just
// past it, or end -1. Spaces are allowed only inside {{ }}: "cat << EOF >> log" is shell.
func placeholderAt(text string, i int) (expr string, end int) {
	var closer, trim string
	switch text[i : i+2] {
	case "<<":
		closer = ">>"
	case "{{":
		closer, trim = "}}", " \t"
	default:
		return "", -1
	}
	j := strings.Index(text[i+2:], closer)
	if j < 0 {
		return "", -1
	}
	expr = strings.Trim(text[i+2:i+2+j], trim)
	if !exprRE.MatchString(expr) {
		return "", -1
	}
	return expr, i + 2 + j + 2
}

// directUnsafe lists the bytes that give literal text a shell meaning beyond quoting and
// word splitting; their presence forces Shell mode.
const directUnsafe = "$~*?[]|&;<>(){}\\`#!"

// shellWords lists first words that are shell keywords or builtins: exec'ing them directly
// would not behave as sh does.
var shellWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`echo printf cd exit export set unset test [ read eval exec
		source . alias ulimit umask wait trap shift times type command kill pwd if then else elif
		fi for while until case esac do done function time getopts hash local return break
		continue readonly : let declare typeset builtin shopt jobs fg bg select coproc`) {
		shellWords[w] = true
	}
}

var assignmentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// splitDirect splits a command without shell syntax into argv words, with placeholders
// as parts. ok is false if the command needs a shell.
func splitDirect(pieces []piece) (argv [][]part, ok bool) {
	var b strings.Builder
	for _, p := range pieces {
		if p.ph >= 0 {
			// A sentinel no literal can contain (literals with control bytes are refused).
			b.WriteByte(0)
			b.WriteString(strconv.Itoa(p.ph))
			b.WriteByte(0)
			continue
		}
		if !directSafe(p.lit) {
			return nil, false
		}
		b.WriteString(p.lit)
	}
	parser := shellwords.NewParser()
	// Set explicitly: NewParser copies package-level defaults another importer may change.
	parser.ParseEnv, parser.ParseBacktick, parser.ParseComment = false, false, false
	words, err := parser.Parse(b.String())
	if err != nil || parser.Position >= 0 || len(words) == 0 {
		return nil, false
	}
	first := words[0]
	if first == "" || strings.IndexByte(first, 0) >= 0 || assignmentRE.MatchString(first) || shellWords[first] {
		return nil, false
	}
	argv = make([][]part, len(words))
	for i, w := range words {
		for j, s := range strings.Split(w, "\x00") {
			if j%2 == 1 {
				ph, _ := strconv.Atoi(s)
				argv[i] = append(argv[i], part{ph: ph})
			} else if s != "" {
				argv[i] = append(argv[i], part{lit: s, ph: -1})
			}
		}
	}
	return argv, true
}

// directSafe reports whether literal text means the same to go-shellwords and to sh:
// no shell syntax, no newline or other control byte (shellwords splits on \r, sh does
// not), and valid UTF-8 (shellwords would replace invalid bytes).
func directSafe(lit string) bool {
	if !utf8.ValidString(lit) {
		return false
	}
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if (c < 0x20 && c != '\t') || c == 0x7f || strings.IndexByte(directUnsafe, c) >= 0 {
			return false
		}
	}
	return true
}
