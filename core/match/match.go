// Package match compiles hook matcher patterns and tests subjects against them.
//
// A subject is a tool name as the host spells it ("Bash", "bash_execute",
// "builtin:bash_execute", "mcp__github__create_issue", "github:create_issue") or an
// event subject such as a notification type. A pattern is classified once, at Compile:
//
//   - "", "*" or only separators: All, every subject.
//   - only letters, digits, "_", "-", " ", ":" and the separators "|" and ",": Names,
//     exact names. A name matches a subject equal to it or naming the same Tool, so
//     "bash_execute" and "builtin:bash_execute" are one tool, as are
//     "mcp__github__create_issue" and "github:create_issue".
//   - the same characters plus "*": Glob, "|"/","-separated alternatives where "*" is
//     the only wildcard. "builtin:<glob>" matches built-in tools by bare name,
//     "<server>:<glob>" is the same as "mcp__<server>__<glob>", and every other glob
//     matches the raw subject or its canonical spelling (so "mcp__*" and
//     "mcp__github__*" see cli-agent's "github:create_issue" too).
//   - anything else: Regex, an ECMAScript regular expression tested unanchored and
//     case-sensitively (JavaScript's RegExp.test), against the raw subject and then
//     the canonical spelling.
//
// A matcher of a tool event (Vocabulary) also tries a name it misses as the canonical
// vocabulary spells the same tool (package vocab): "Bash" selects Gemini's
// run_shell_command and Copilot's bash; that is not case folding ("BASH" is no tool).
//
// Match never fails: a regex that runs past MatchTimeout does not match. The package
// does not match file paths (autohand's "**" path filters belong to the config layer),
// does not fold case, and does not accept Go/PCRE inline flags such as "(?i)".
package match

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/dlclark/regexp2"

	"github.com/hookexec/hookexec/core/vocab"
)

// MatchTimeout bounds one regex test so a pathological pattern cannot hang a fire.
// Compile reads it, so changing it affects only Matchers compiled afterwards. The
// bound is approximate: regexp2 checks a coarse clock (about 100 ms granularity) kept by a
// goroutine that lags on a loaded machine, so a tight bound (it was 50 ms) made ordinary
// patterns time out, and so not match, at random; a second is a hang guard only.
var MatchTimeout = time.Second

// Kind is how a pattern was classified.
type Kind uint8

const (
	All   Kind = iota // every subject; the zero value, like an absent matcher
	Names             // exact names, compared by tool identity
	Glob              // "*"-wildcard alternatives
	Regex             // ECMAScript regular expression
)

func (k Kind) String() string {
	switch k {
	case All:
		return "all"
	case Names:
		return "names"
	case Glob:
		return "glob"
	case Regex:
		return "regex"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ErrInlineFlags is wrapped by the *Error Compile returns for a "(?" group that
// JavaScript does not have, such as "(?i)"; regexp2 would otherwise accept it.
var ErrInlineFlags = errors.New("inline flags and (?…) groups other than (?:, (?=, (?!, (?<=, (?<! and (?<name> are not ECMAScript")

// Error is returned by Compile for a pattern that cannot be compiled.
type Error struct {
	Pattern string // the pattern as given
	Err     error  // the underlying cause: ErrInlineFlags or regexp2's parse error
}

func (e *Error) Error() string {
	return fmt.Sprintf("hookexec: match: pattern %q: %v", e.Pattern, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Matcher is a compiled matcher. Safe for concurrent use. Compile once at config
// load; Match on every fire.
//
// A nil *Matcher matches every subject, like an absent matcher.
type Matcher struct {
	pattern string
	kind    Kind
	alts    []alt           // Names and Glob
	re      *regexp2.Regexp // Regex
	// vocab: a subject that misses is tried again in the canonical vocabulary's other
	// spellings of the same tool (package vocab), as agent spells it and canonically.
	vocab bool
	agent string
}

// Vocabulary makes m a tool matcher of agent's hooks: a tool name that does not match as
// the host spelt it is tried again as the canonical tool and as agent spells that tool,
// so "Bash" also selects run_shell_command, shell and execute_command, and Gemini's
// "run_shell_command" selects a host's "Bash". It returns m (nil stays nil: it matches
// everything already).
func (m *Matcher) Vocabulary(agent string) *Matcher {
	if m != nil && m.kind != All {
		m.vocab, m.agent = true, agent
	}
	return m
}

type altKind uint8

const (
	altName    altKind = iota // exact name or same Tool
	altBuiltin                // "builtin:<glob>": non-MCP tool whose bare name matches
	altGlob                   // glob over the raw subject or its canonical spelling
)

// alt is one "|"/","-separated alternative, precomputed so Match does not allocate.
type alt struct {
	kind altKind
	name string   // altName: the name as written
	tool Tool     // altName: the name's identity
	glob []string // altBuiltin, altGlob: the pattern split at "*", len >= 2
}

// Compile classifies and compiles a matcher pattern. Surrounding white space is
// ignored. The error is an *Error.
func Compile(pattern string) (*Matcher, error) { return compile(pattern, false) }

// modelTag is a context-window tag ending an alternative of a model matcher.
var modelTag = regexp.MustCompile(`(?i)\[[12]m\](\s*(?:[|,]|$))`)

// StripModelTags drops the "[1m]"/"[2m]" tag that ends an alternative of a model-switch
// matcher, as Claude Code 2.1.330 does before matching the resolved to_model (which never
// carries the tag): "claude-opus-5-5[1m]" matches claude-opus-5-5. A pattern that would be
// left blank is kept as written.
func StripModelTags(pattern string) string {
	s := modelTag.ReplaceAllString(pattern, "$1")
	if strings.TrimSpace(s) == "" {
		return pattern
	}
	return s
}

// CompileNarrow is Compile with Claude Code's narrower exact-match set for FileChanged and
// StopFailure: only letters, digits, "_" (and ":" and "*") make names or globs, only "|"
// separates them, and a "-", " " or "," puts the pattern on the regex path.
func CompileNarrow(pattern string) (*Matcher, error) { return compile(pattern, true) }

func compile(pattern string, narrow bool) (*Matcher, error) {
	m := &Matcher{pattern: pattern}
	p := strings.TrimSpace(pattern)
	m.kind = classify(p, narrow)
	sep := isSeparator
	if narrow {
		sep = func(r rune) bool { return r == '|' }
	}
	switch m.kind {
	case Names, Glob:
		for part := range strings.FieldsFuncSeq(p, sep) {
			if part = strings.TrimSpace(part); part != "" {
				m.alts = append(m.alts, compileAlt(part))
			}
		}
		if len(m.alts) == 0 {
			m.kind = All // "|", " , " and the like name nothing, so they restrict nothing
		}
	case Regex:
		return CompileRegex(pattern)
	}
	return m, nil
}

// CompileRegex compiles pattern as an ECMAScript regex whatever characters it has, for
// dialects whose matcher is always a regex (autohand): there "read" also matches
// "read_file". Blank and "*" still match everything.
func CompileRegex(pattern string) (*Matcher, error) {
	p := strings.TrimSpace(pattern)
	if p == "" || p == "*" {
		return &Matcher{pattern: pattern}, nil
	}
	m := &Matcher{pattern: pattern, kind: Regex}
	if err := checkECMAScriptGroups(p); err != nil {
		return nil, &Error{Pattern: pattern, Err: err}
	}
	re, err := regexp2.Compile(p, regexp2.ECMAScript)
	if err != nil {
		return nil, &Error{Pattern: pattern, Err: err}
	}
	re.MatchTimeout = MatchTimeout
	m.re = re
	return m, nil
}

// Kind reports how the pattern was classified.
func (m *Matcher) Kind() Kind {
	if m == nil {
		return All
	}
	return m.kind
}

// String returns the pattern as given to Compile.
func (m *Matcher) String() string {
	if m == nil {
		return ""
	}
	return m.pattern
}

// Match reports whether subject (a tool name as the host spells it, or an event
// subject like a notification type) matches. A regex that exceeds its match timeout
// does not match.
func (m *Matcher) Match(subject string) bool {
	if m == nil {
		return true
	}
	if m.match(subject) {
		return true
	}
	if m.vocab {
		// The same tool as the canonical vocabulary and the hook's own agent spell it
		// (no allocation: a miss is the common case of a fire).
		name := subject
		if t := ParseTool(subject); !t.MCP {
			name = t.Name // "builtin:bash_execute" is bash_execute
		}
		canon := vocab.Tool(name)
		if canon == "" {
			return false
		}
		if canon != subject && m.match(canon) {
			return true
		}
		// A name matcher tries every spelling of the hook's agent (a Codex matcher "shell"
		// still selects the "Bash" Codex sends); a regex only the agent's preferred one, so
		// that an unanchored pattern does not pick up an alias the agent never sends.
		spellings := vocab.SpellingsOf(m.agent, canon)
		if m.kind == Regex && len(spellings) > 1 {
			spellings = spellings[:1]
		}
		for _, s := range spellings {
			if s != subject && s != canon && m.match(s) {
				return true
			}
		}
	}
	return false
}

func (m *Matcher) match(subject string) bool {
	switch m.kind {
	case All:
		return true
	case Names, Glob:
		return m.matchAlts(subject)
	case Regex:
		return m.matchRegex(subject)
	}
	return false
}

func (m *Matcher) matchAlts(subject string) bool {
	t := ParseTool(subject)
	canonical := t.spelledCanonically(subject)
	for i := range m.alts {
		a := &m.alts[i]
		switch a.kind {
		case altName:
			if a.name == subject || a.tool == t {
				return true
			}
		case altBuiltin:
			// No tool name means no tool: "builtin:*" must not fire for a payload without one.
			if !t.MCP && t.Name != "" && globMatch(a.glob, t.Name) {
				return true
			}
		case altGlob:
			if globMatch(a.glob, subject) {
				return true
			}
			if !canonical {
				if !t.MCP {
					if globMatch(a.glob, t.Name) {
						return true
					}
				} else if globMatchMCP(a.glob, t) {
					return true
				}
			}
		}
	}
	return false
}

func (m *Matcher) matchRegex(subject string) bool {
	ok, err := m.matchString(subject)
	if err != nil {
		return false // timed out; the other spelling would only time out again
	}
	if ok {
		return true
	}
	t := ParseTool(subject)
	if t.spelledCanonically(subject) {
		return false
	}
	ok, err = m.matchString(t.Canonical())
	return ok && err == nil
}

// matchString is the regex test with a timeout that means it. regexp2 times matches on a
// clock that a goroutine advances every 100 ms; on a loaded machine that goroutine runs
// late, the clock jumps, and a match of a microsecond "times out" (seen under -race with
// load 15 on two cores). A timed-out match is tried up to twice more: a pattern that is
// really catastrophic times out every time, one that is fast does not.
func (m *Matcher) matchString(s string) (ok bool, err error) {
	for range 3 {
		if ok, err = m.re.MatchString(s); err == nil {
			return ok, nil
		}
	}
	return ok, err
}

// classify decides the Kind of a trimmed pattern from its characters alone.
func classify(p string, narrow bool) Kind {
	if p == "" || p == "*" {
		return All
	}
	star := false
	for _, r := range p {
		switch {
		case r == '*':
			star = true
		case narrow && (r == '-' || r == ' ' || r == ','):
			return Regex
		case r == ':' || isNameRune(r) || isSeparator(r):
		default:
			return Regex
		}
	}
	if star {
		return Glob
	}
	return Names
}

// isNameRune reports the characters a tool name is made of. Letters and digits are
// Unicode so a non-ASCII name stays an exact name rather than becoming a regex.
func isNameRune(r rune) bool {
	return r == '_' || r == '-' || r == ' ' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isSeparator(r rune) bool { return r == '|' || r == ',' }

func compileAlt(s string) alt {
	if !strings.Contains(s, "*") {
		return alt{kind: altName, name: s, tool: ParseTool(s)}
	}
	server, rest, ok := strings.Cut(s, ":")
	switch {
	case ok && server == builtinServer:
		return alt{kind: altBuiltin, glob: strings.Split(rest, "*")}
	case ok && server != "" && rest != "":
		// cli-agent's "<server>:<tool>" glob means what its canonical spelling means.
		s = mcpPrefix + server + "__" + rest
	}
	return alt{kind: altGlob, glob: strings.Split(s, "*")}
}

// checkECMAScriptGroups rejects "(?" constructs that regexp2 accepts from .NET even in
// ECMAScript mode ("(?i)", "(?#…)", "(?>…)"), so a pattern means what it means in JS.
func checkECMAScriptGroups(p string) error {
	inClass := false
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++ // the escaped byte is literal; UTF-8 continuation bytes are never special
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '(':
			if inClass || !strings.HasPrefix(p[i+1:], "?") {
				continue
			}
			rest := p[i+2:]
			switch {
			case strings.HasPrefix(rest, ":"), strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"):
			case strings.HasPrefix(rest, "<"):
				// lookbehind or named group; regexp2 validates the rest
			default:
				return ErrInlineFlags
			}
		}
	}
	return nil
}

// globMatchMCP matches glob against "mcp__<server>__<tool>" without allocating for
// ordinary lengths: the spelling is built in a stack buffer.
func globMatchMCP(glob []string, t Tool) bool {
	var buf [128]byte
	b := append(buf[:0], mcpPrefix...)
	b = append(b, t.Server...)
	b = append(b, "__"...)
	b = append(b, t.Name...)
	return globMatch(glob, b)
}

// globMatch reports whether s matches the glob whose literal parts are segs (the
// pattern split at "*", so len(segs) >= 2). "*" matches any run of bytes, including
// none; taking each middle part at its leftmost occurrence is then always correct.
func globMatch[S ~string | ~[]byte](segs []string, s S) bool {
	first, last := segs[0], segs[len(segs)-1]
	if len(s) < len(first)+len(last) || !hasPrefix(s, first) || !hasPrefix(s[len(s)-len(last):], last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, seg := range segs[1 : len(segs)-1] {
		i := index(s, seg)
		if i < 0 {
			return false
		}
		s = s[i+len(seg):]
	}
	return true
}

func hasPrefix[S ~string | ~[]byte](s S, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if s[i] != prefix[i] {
			return false
		}
	}
	return true
}

func index[S ~string | ~[]byte](s S, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if hasPrefix(s[i:], sub) {
			return i
		}
	}
	return -1
}
