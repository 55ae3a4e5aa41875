package template

import (
	"bytes"
	"strings"
)

// This file is the contextual escaper: a byte-at-a-time model of the POSIX sh lexer,
// detailed only where it decides how a placeholder must be quoted. Where dash and bash
// could read the same text differently, it fails closed (stateError) rather than guess.

// state is where the lexer is in the shell form of a command.
type state uint8

const (
	stateText        state = iota // unquoted command text, top level or inside $(...)
	stateSingle                   // inside '...'
	stateDouble                   // inside "..."
	stateANSI                     // inside $'...'
	stateBacktick                 // inside `...`
	stateParam                    // inside ${...}
	stateArith                    // inside $((...)) or $[...]
	stateComment                  // from a word-initial # to the end of the line
	stateHeredocWord              // reading the delimiter word after << or <<-
	stateHeredocBody              // inside a here-document body
	stateError                    // text we cannot model; sticks
)

// pend records a byte whose meaning depends on the next one.
type pend uint8

const (
	pendNone        pend = iota
	pendBackslash        // after \: the next byte is escaped
	pendDollar           // after $: ( { [ ' " may start an expansion
	pendDollarParen      // after $(: a second ( makes it arithmetic
	pendLess             // after <: a second < is a here-document operator
	pendHeredoc          // after <<: - or < or the delimiter word follows
	pendParen            // after an unquoted (: a second one is bash's ((...)) command
	pendCloseArith       // after ) at depth 0 in $((...)): only ) may follow
)

// context is the lexer state between two bytes. The zero value is the start of a command.
type context struct {
	state   state
	pend    pend
	word    bool // stateText: inside a word, so # is literal rather than a comment
	sub     bool // stateText: inside $(...), which an unmatched ) closes
	quote   byte // stateBacktick, stateHeredocWord: the quote character open inside, 0 if none
	bracket bool // stateArith: opened by $[, so ] closes it
	depth   int  // open ( in text and $((, open [ in $[, nested ${ in ${
}

// quoting says how a placeholder's value is written into the shell form.
type quoting uint8

const (
	quoteBare   quoting = iota // 'value', with ' as '\''
	quoteSingle                // inside '...': ' as '\''
	quoteDouble                // inside "...": \ " $ ` backslash-escaped
	quoteDrop                  // inside a comment: nothing
)

// frame is an enclosing context, resumed when the construct opened at offset open closes.
type frame struct {
	ctx  context
	open int
}

// heredoc is a here-document whose operator has been read and whose body has not.
type heredoc struct {
	delim  string
	strip  bool // <<-: leading tabs are stripped before comparing with delim
	quoted bool // the delimiter had quotes, so the body has no expansions and no \-newline
	open   int
}

// escaper walks a command's literal text, one byte at a time, and classifies each
// placeholder between the bytes.
type escaper struct {
	ctx   context
	stack []frame
	pos   int // offset in the source of the byte or placeholder being processed

	word  []byte // bytes of the current unquoted word, for keyword checks
	plain bool   // the current word has no quoting, so it can be a keyword

	docs                    []heredoc // operators read, bodies pending
	doc                     heredoc   // the body being read
	delim                   []byte    // the delimiter word being read
	delimStarted, delimQuot bool
	delimDash               bool
	delimOpen               int
	line                    []byte // the body line being read

	failReason string
	failPos    int

	// held is a backslash not yet fed: with the next byte a newline, the pair is a line
	// continuation, which the shell removes before it reads anything else (so <<EO\
	// newline F is the unquoted delimiter EOF, and <\ newline < is <<).
	held bool
}

// continues reports whether a backslash-newline is a line continuation in the current
// context: everywhere but inside '...', $'...', comments and here-document bodies (whose
// own joining heredocBody models).
func (e *escaper) continues() bool {
	switch e.ctx.state {
	case stateSingle, stateANSI, stateComment, stateHeredocBody, stateError:
		return false
	case stateHeredocWord:
		return e.ctx.quote != '\''
	}
	return true
}

// step feeds one byte of literal text.
func (e *escaper) step(c byte) {
	if e.held {
		e.held = false
		if c == '\n' {
			return // a line continuation: both bytes vanish
		}
		e.feed('\\')
	}
	if c == '\\' && e.ctx.pend != pendBackslash && e.continues() {
		e.held = true
		return
	}
	e.feed(c)
}

// flush feeds a held backslash: the text ended or a placeholder follows it.
func (e *escaper) flush() {
	if e.held {
		e.held = false
		e.feed('\\')
	}
}

func (e *escaper) feed(c byte) {
	if e.ctx.state == stateError {
		return
	}
	if p := e.ctx.pend; p != pendNone {
		e.ctx.pend = pendNone
		if e.after(p, c) || e.ctx.state == stateError {
			return
		}
	}
	switch e.ctx.state {
	case stateText:
		e.text(c)
	case stateSingle:
		if c == '\'' {
			e.pop()
		}
	case stateDouble:
		e.double(c)
	case stateANSI:
		switch c {
		case '\\':
			e.ctx.pend = pendBackslash
		case '\'':
			e.pop()
		}
	case stateBacktick:
		e.backtick(c)
	case stateParam:
		e.param(c)
	case stateArith:
		e.arith(c)
	case stateComment:
		if c == '\n' {
			e.ctx.state = stateText
			e.ctx.word = false
			e.newline()
		}
	case stateHeredocWord:
		e.heredocWord(c)
	case stateHeredocBody:
		e.heredocBody(c)
	}
}

// after resolves the lookahead p with the next byte c. It reports whether c was consumed.
func (e *escaper) after(p pend, c byte) bool {
	switch p {
	case pendBackslash:
		switch e.ctx.state {
		case stateText:
			if c != '\n' { // \-newline is a line continuation, not part of a word
				e.wordQuoted()
			}
		case stateANSI:
			if c == '\'' {
				e.fail(`\' inside $'...', which bash and POSIX sh end in different places`)
			}
		case stateHeredocWord:
			if e.ctx.quote == '"' && strings.IndexByte("$`\"\\\n", c) < 0 {
				e.delim = append(e.delim, '\\')
			}
			if c != '\n' {
				e.delim = append(e.delim, c)
			}
		}
		return true
	case pendDollar:
		return e.dollar(c)
	case pendDollarParen:
		if c == '(' {
			e.enter(context{state: stateArith})
			return true
		}
		e.enter(context{state: stateText, sub: true})
		return false
	case pendLess:
		if c == '<' {
			e.ctx.pend = pendHeredoc
			return true
		}
	case pendHeredoc:
		if c == '<' {
			return true // bash's <<< here-string: an ordinary word follows
		}
		e.startHeredoc(c == '-')
		return c == '-'
	case pendParen:
		if c == '(' {
			e.fail("arithmetic command ((...)), which sh and bash parse differently")
			return true
		}
	case pendCloseArith:
		if c == ')' {
			e.pop()
		} else {
			e.fail("unbalanced ) inside $((...))")
		}
		return true
	}
	return false
}

// dollar resolves a $ followed by c. It reports whether c was consumed.
func (e *escaper) dollar(c byte) bool {
	switch e.ctx.state {
	case stateText, stateDouble:
		switch c {
		case '(':
			e.ctx.pend = pendDollarParen
			return true
		case '{':
			e.enter(context{state: stateParam})
			return true
		case '[':
			e.enter(context{state: stateArith, bracket: true})
			return true
		case '$', '#', '?', '-', '!', '*', '@', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return true // a special parameter: $$( is not $(
		case '\'':
			if e.ctx.state == stateText {
				e.enter(context{state: stateANSI})
				return true
			}
		case '"':
			if e.ctx.state == stateText {
				e.enter(context{state: stateDouble}) // bash's $"..." reads like "..."
				return true
			}
		}
	case stateParam:
		switch c {
		case '{':
			e.ctx.depth++
			return true
		case '(':
			e.fail("$(...) inside ${...}")
			return true
		}
	case stateArith:
		if c == '(' || c == '{' {
			e.fail("an expansion inside arithmetic")
			return true
		}
	case stateHeredocWord:
		if strings.IndexByte("({[`'\"", c) >= 0 {
			e.fail("an expansion in a here-document delimiter")
			return true
		}
	}
	return false
}

func (e *escaper) text(c byte) {
	switch c {
	case ' ', '\t':
		e.endWord()
	case '\n':
		e.endWord()
		e.newline()
	case '\'':
		e.wordQuoted()
		e.enter(context{state: stateSingle})
	case '"':
		e.wordQuoted()
		e.enter(context{state: stateDouble})
	case '`':
		e.wordQuoted()
		e.enter(context{state: stateBacktick})
	case '\\':
		e.ctx.pend = pendBackslash
	case '$':
		e.wordQuoted()
		e.ctx.pend = pendDollar
	case '#':
		if !e.ctx.word {
			e.ctx.state = stateComment
			return
		}
		e.wordByte(c)
	case '<':
		e.endWord()
		e.ctx.pend = pendLess
	case '>', ';', '&', '|':
		e.endWord()
	case '(':
		e.endWord()
		e.ctx.depth++
		e.ctx.pend = pendParen
	case ')':
		e.endWord()
		switch {
		case e.ctx.depth > 0:
			e.ctx.depth--
		case e.ctx.sub:
			e.pop()
		}
		// At top level an unmatched ) is a case pattern's (or a syntax error): nothing to close.
	default:
		e.wordByte(c)
	}
}

func (e *escaper) double(c byte) {
	switch c {
	case '"':
		e.pop()
	case '\\':
		e.ctx.pend = pendBackslash
	case '$':
		e.ctx.pend = pendDollar
	case '`':
		e.enter(context{state: stateBacktick})
	}
}

// backtick finds the end of `...` the POSIX way (the first unescaped backquote) and
// fails where a quote-aware shell would disagree.
func (e *escaper) backtick(c byte) {
	switch c {
	case '\\':
		e.ctx.pend = pendBackslash
	case '\'', '"':
		if e.ctx.quote == 0 {
			e.ctx.quote = c
		} else if e.ctx.quote == c {
			e.ctx.quote = 0
		}
	case '`':
		if e.ctx.quote != 0 {
			e.fail("a backquote inside quotes inside `...`, where shells disagree on the end")
			return
		}
		e.pop()
	}
}

// param finds the end of ${...}; quoting inside it differs between shells, so it fails.
func (e *escaper) param(c byte) {
	switch c {
	case '}':
		if e.ctx.depth > 0 {
			e.ctx.depth--
		} else {
			e.pop()
		}
	case '$':
		e.ctx.pend = pendDollar
	case '{', '\'', '"', '`', '\\':
		e.fail("quoting or braces inside ${...}")
	}
}

func (e *escaper) arith(c byte) {
	switch c {
	case '(':
		if !e.ctx.bracket {
			e.ctx.depth++
		}
	case ')':
		if !e.ctx.bracket {
			if e.ctx.depth > 0 {
				e.ctx.depth--
			} else {
				e.ctx.pend = pendCloseArith
			}
		}
	case '[':
		if e.ctx.bracket {
			e.ctx.depth++
		}
	case ']':
		if e.ctx.bracket {
			if e.ctx.depth > 0 {
				e.ctx.depth--
			} else {
				e.pop()
			}
		}
	case '$':
		e.ctx.pend = pendDollar
	case '\'', '"', '`', '\\':
		e.fail("quoting inside arithmetic")
	}
}

func (e *escaper) startHeredoc(dash bool) {
	e.delim = e.delim[:0]
	e.delimStarted, e.delimQuot, e.delimDash = false, false, dash
	e.delimOpen = e.pos
	e.push(context{state: stateHeredocWord}, e.ctx)
}

func (e *escaper) heredocWord(c byte) {
	switch e.ctx.quote {
	case '\'':
		if c == '\'' {
			e.ctx.quote = 0
		} else {
			e.delim = append(e.delim, c)
		}
		return
	case '"':
		switch c {
		case '"':
			e.ctx.quote = 0
		case '\\':
			e.ctx.pend = pendBackslash
		case '$':
			e.delim = append(e.delim, c)
			e.ctx.pend = pendDollar
		case '`':
			e.fail("a backquote in a here-document delimiter")
		default:
			e.delim = append(e.delim, c)
		}
		return
	}
	switch c {
	case ' ', '\t':
		if e.delimStarted {
			e.endHeredocWord()
		}
		return
	case '\n', ';', '&', '|', '<', '>', '(', ')':
		e.endHeredocWord()
		e.feed(c) // the operator belongs to the command text
		return
	case '\'', '"':
		e.ctx.quote = c
		e.delimQuot = true
	case '\\':
		e.ctx.pend = pendBackslash
		e.delimQuot = true
	case '$':
		e.delim = append(e.delim, c)
		e.ctx.pend = pendDollar
	case '`':
		e.fail("a backquote in a here-document delimiter")
		return
	default:
		e.delim = append(e.delim, c)
	}
	e.delimStarted = true
}

func (e *escaper) endHeredocWord() {
	if !e.delimStarted {
		e.fail("<< without a delimiter word")
		return
	}
	e.docs = append(e.docs, heredoc{delim: string(e.delim), strip: e.delimDash, quoted: e.delimQuot, open: e.delimOpen})
	e.pop()
}

// newline starts the first pending here-document body: bodies begin after the next
// unquoted newline of the command text.
func (e *escaper) newline() {
	if len(e.docs) == 0 {
		return
	}
	e.doc, e.docs = e.docs[0], e.docs[1:]
	e.line = e.line[:0]
	e.push(context{state: stateHeredocBody}, e.ctx)
}

func (e *escaper) heredocBody(c byte) {
	if c != '\n' {
		e.line = append(e.line, c)
		return
	}
	if !e.doc.quoted && oddBackslashes(e.line) {
		// dash and bash both join a \-newline before comparing with the delimiter.
		e.line = e.line[:len(e.line)-1]
		return
	}
	if e.atDelimiter() {
		e.nextDoc()
	}
	e.line = e.line[:0]
}

func (e *escaper) atDelimiter() bool {
	line := e.line
	if e.doc.strip {
		line = bytes.TrimLeft(line, "\t")
	}
	return string(line) == e.doc.delim
}

// nextDoc ends the current body and starts the next pending one, if any.
func (e *escaper) nextDoc() {
	if len(e.docs) > 0 {
		e.doc, e.docs = e.docs[0], e.docs[1:]
		return
	}
	e.pop()
}

func oddBackslashes(b []byte) bool {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func (e *escaper) wordByte(c byte) {
	if !e.ctx.word {
		e.ctx.word, e.plain, e.word = true, true, e.word[:0]
	}
	e.word = append(e.word, c)
}

func (e *escaper) wordQuoted() {
	if !e.ctx.word {
		e.ctx.word, e.word = true, e.word[:0]
	}
	e.plain = false
}

func (e *escaper) endWord() {
	if e.ctx.word && e.plain && e.ctx.sub && string(e.word) == "case" {
		e.fail("case inside $(...), whose pattern ) this parser would take for the end")
		return
	}
	e.ctx.word = false
}

// enter opens a nested construct; when it closes, the enclosing text is mid-word.
func (e *escaper) enter(next context) {
	resume := e.ctx
	resume.pend = pendNone
	if resume.state == stateText {
		resume.word = true
	}
	e.push(next, resume)
}

func (e *escaper) push(next, resume context) {
	e.stack = append(e.stack, frame{ctx: resume, open: e.pos})
	e.ctx = next
}

func (e *escaper) pop() {
	e.ctx = e.stack[len(e.stack)-1].ctx
	e.stack = e.stack[:len(e.stack)-1]
}

// fail enters the error state; only the first reason is kept.
func (e *escaper) fail(reason string) {
	if e.ctx.state == stateError {
		return
	}
	e.failReason, e.failPos = reason, e.pos
	e.ctx = context{state: stateError}
}

// placeholder classifies a placeholder at the current position, or returns why it
// cannot be quoted there.
func (e *escaper) placeholder() (quoting, string) {
	e.flush()
	switch e.ctx.state {
	case stateError:
		return 0, "after " + e.failReason
	case stateANSI:
		return 0, "inside $'...', which interprets backslash escapes in the value"
	case stateBacktick:
		return 0, "inside `...`, which processes backslashes in the value a second time"
	case stateParam:
		return 0, "inside ${...} parameter expansion"
	case stateArith:
		return 0, "inside arithmetic, which evaluates the value as an expression"
	case stateHeredocWord:
		return 0, "in a here-document delimiter"
	case stateHeredocBody:
		return 0, "inside a here-document body"
	}
	p := e.ctx.pend
	e.ctx.pend = pendNone
	switch p {
	case pendBackslash:
		return 0, "right after a backslash, which would escape the quoting"
	case pendDollar:
		return 0, "right after $, which would make the value an expansion"
	case pendHeredoc:
		return 0, "in a here-document delimiter"
	case pendDollarParen:
		e.enter(context{state: stateText, sub: true})
	}
	switch e.ctx.state {
	case stateSingle:
		return quoteSingle, ""
	case stateDouble:
		return quoteDouble, ""
	case stateComment:
		return quoteDrop, ""
	}
	e.wordQuoted()
	return quoteBare, ""
}

// finish ends the text and returns why it does not end in a complete command, with
// the offset of the construct at fault; "" if it does.
func (e *escaper) finish() (string, int) {
	e.flush()
	switch e.ctx.pend {
	case pendDollarParen:
		e.fail("an unterminated $(")
	case pendHeredoc:
		e.fail("<< without a delimiter word")
	case pendCloseArith:
		e.fail("an unterminated $((")
	}
	e.ctx.pend = pendNone
	if e.ctx.state == stateHeredocWord && e.ctx.quote == 0 {
		e.endHeredocWord()
	}
	if e.ctx.state == stateHeredocBody && e.atDelimiter() {
		e.nextDoc() // a delimiter without a final newline still ends the body
	}
	if e.ctx.state == stateError {
		return e.failReason, e.failPos
	}
	if e.ctx.state == stateHeredocBody || len(e.docs) > 0 {
		open := e.doc.open
		if e.ctx.state != stateHeredocBody {
			open = e.docs[0].open
		}
		return "the command ends inside an unterminated here-document", open
	}
	if len(e.stack) > 0 {
		return "the command ends inside an unterminated " + e.describe(), e.stack[0].open
	}
	return "", 0
}

// describe names the innermost open construct.
func (e *escaper) describe() string {
	switch e.ctx.state {
	case stateSingle:
		return "'...'"
	case stateDouble:
		return `"..."`
	case stateANSI:
		return "$'...'"
	case stateBacktick:
		return "`...`"
	case stateParam:
		return "${...}"
	case stateArith:
		return "arithmetic expansion"
	case stateHeredocWord:
		return "here-document delimiter"
	}
	return "$(...)"
}

// writeQuoted writes v into b as quoting q requires.
func writeQuoted(b *strings.Builder, q quoting, v string) {
	switch q {
	case quoteBare:
		b.WriteByte('\'')
		writeSingle(b, v)
		b.WriteByte('\'')
	case quoteSingle:
		writeSingle(b, v)
	case quoteDouble:
		writeDouble(b, v)
	}
}

// writeSingle writes v for a single-quoted context: a ' closes the quote, adds an
// escaped quote and reopens, since nothing inside '...' can escape a quote.
func writeSingle(b *strings.Builder, v string) {
	for {
		i := strings.IndexByte(v, '\'')
		if i < 0 {
			b.WriteString(v)
			return
		}
		b.WriteString(v[:i])
		b.WriteString(`'\''`)
		v = v[i+1:]
	}
}

// writeDouble writes v for a double-quoted context, where exactly \ " $ and ` are special.
func writeDouble(b *strings.Builder, v string) {
	start := 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\', '"', '$', '`':
			b.WriteString(v[start:i])
			b.WriteByte('\\')
			start = i
		}
	}
	b.WriteString(v[start:])
}

// quotedLen bounds the bytes writeQuoted writes for v, so Argv can size its builder once.
func quotedLen(q quoting, v string) int {
	switch q {
	case quoteBare:
		return len(v) + 2 + 3*strings.Count(v, "'")
	case quoteSingle:
		return len(v) + 3*strings.Count(v, "'")
	case quoteDouble:
		return len(v) + len(v)/4 + 8 // a guess: Builder grows if a value is mostly specials
	}
	return 0
}
