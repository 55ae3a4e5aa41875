package match

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/valyala/fastjson"
	"mvdan.cc/sh/v3/syntax"

	"github.com/hookexec/hookexec/core/vocab"
)

// A Rule is a hook's "if" condition: one Claude Code permission rule, such as
// "Bash(git *)", "Bash(git commit:*)", "Edit(*.ts)", "Read(./secrets/**)",
// "WebFetch(domain:example.com)" or a bare tool name. It is compiled once, at load time,
// and tested against a tool event's tool_name and tool_input.
//
// Bash (and PowerShell) rules follow the reference's Bash table: leading VAR=value
// assignments are ignored; every simple command of the line is checked, including those
// joined by &&, ||, ;, | and those inside $(...) and backticks; a pattern that says more
// than the command name matches anyway when the line holds $(), backticks or $VAR (their
// value is unknown); and a line that cannot be parsed matches (the filter fails open).
// Beyond the table, what the line makes bash run is checked too (line.go): /bin/rm,
// {rm,-rf,x}, command rm, sudo rm, timeout 5 rm, xargs rm, find -exec rm, bash -c 'rm ...',
// bash <<< 'rm ...' all select a Bash(rm *) hook, and a line whose program or code is not
// its text ($CMD, python -c, a pipe into sh) selects every Bash rule.
//
// File rules (Edit, Write, MultiEdit, NotebookEdit, Read, Grep, Glob) are gitignore-style
// globs: "//p" is absolute, "~/p" under the home directory, "/p" under the project
// directory, "./p" and "p/…" under the working directory, and a pattern without "/"
// matches a file name at any depth.
type Rule struct {
	text    string
	tool    string // tool name; may hold "*" (mcp__server__*)
	content string // "" when the rule names the whole tool
	kind    ruleKind
	glob    string // file rules: the absolute doublestar pattern; others: content as a glob
}

type ruleKind uint8

const (
	ruleTool   ruleKind = iota // any call of the tool
	ruleBash                   // command patterns
	ruleFile                   // path globs
	ruleDomain                 // WebFetch(domain:host)
	ruleOther                  // content glob against any string field of tool_input
)

// ErrRule is wrapped by the errors CompileRule returns.
var ErrRule = errors.New("invalid permission rule")

// fileTools are the tools whose rule content is a path glob, with the tools each rule
// name covers: an Edit rule applies to every built-in tool that edits files.
var fileTools = map[string][]string{
	"Edit":         {"Edit", "MultiEdit", "Write", "NotebookEdit"},
	"Write":        {"Write"},
	"MultiEdit":    {"MultiEdit"},
	"NotebookEdit": {"NotebookEdit"},
	"Read":         {"Read"},
	"Grep":         {"Grep"},
	"Glob":         {"Glob"},
}

// CompileRule parses one permission rule. project and home anchor "/p" and "~/p" file
// patterns. The error wraps ErrRule and says what is wrong.
func CompileRule(rule, project, home string) (*Rule, error) {
	bad := func(format string, args ...any) (*Rule, error) {
		return nil, fmt.Errorf("hookexec: match: %w %q: %s", ErrRule, rule, fmt.Sprintf(format, args...))
	}
	s := strings.TrimSpace(rule)
	r := &Rule{text: rule, tool: s}
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return bad("want Tool or Tool(pattern), with the pattern closed by a final \")\"")
		}
		r.tool, r.content = s[:i], s[i+1:len(s)-1]
		if strings.TrimSpace(r.content) == "" {
			return bad("empty pattern in \"()\"; name the tool alone to match all of its calls")
		}
		depth := 0
		for _, c := range r.content {
			if c == '(' {
				depth++
			} else if c == ')' {
				if depth--; depth < 0 {
					return bad("one rule only: there is no &&, || or list syntax; give each rule its own hook")
				}
			}
		}
	}
	if r.tool == "" {
		return bad("no tool name")
	}
	for _, c := range r.tool {
		if !(c == '_' || c == '-' || c == '.' || c == ':' || c == '*' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return bad("%q is not a tool name (one rule only: no &&, || or lists)", r.tool)
		}
	}
	switch {
	case r.content == "" || r.content == "*":
		r.kind, r.content = ruleTool, ""
	case r.tool == "Bash" || r.tool == "PowerShell":
		r.kind = ruleBash
	case fileTools[r.tool] != nil:
		r.kind = ruleFile
		r.glob = anchor(r.content, project, home)
		if !doublestar.ValidatePattern(r.glob) {
			return bad("%q is not a valid path pattern", r.content)
		}
	case r.tool == "WebFetch" && strings.HasPrefix(r.content, "domain:"):
		r.kind, r.glob = ruleDomain, strings.TrimPrefix(r.content, "domain:")
	default:
		r.kind, r.glob = ruleOther, r.content
	}
	if _, err := path.Match(r.glob, ""); err != nil && r.kind != ruleFile {
		return bad("%v", err)
	}
	return r, nil
}

// anchor makes a file pattern absolute; "./" and bare relative patterns are left relative
// (to the fire's working directory) and marked by a leading "./".
func anchor(p, project, home string) string {
	switch {
	case strings.HasPrefix(p, "//"):
		return strings.TrimSuffix(p[1:], "/") + trailingSlash(p)
	case strings.HasPrefix(p, "~/"):
		return filepath.ToSlash(filepath.Join(home, p[2:])) + trailingSlash(p)
	case strings.HasPrefix(p, "/"):
		return filepath.ToSlash(filepath.Join(project, p[1:])) + trailingSlash(p)
	case !strings.Contains(p, "/"):
		return "**/" + p
	case strings.HasPrefix(p, "./"):
		return p
	}
	return "./" + p
}

// trailingSlash is what a pattern's trailing "/" becomes once the path is joined (which
// drops it): a directory stands for everything under it, as in gitignore.
func trailingSlash(p string) string {
	if strings.HasSuffix(p, "/") {
		return "/**"
	}
	return ""
}

// String returns the rule as written.
func (r *Rule) String() string {
	if r == nil {
		return ""
	}
	return r.text
}

// Match reports whether a tool call (its tool name and tool_input object, which may be
// nil) satisfies the rule; cwd resolves relative paths. A nil Rule matches every call.
func (r *Rule) Match(toolName string, input *fastjson.Value, cwd string) bool {
	if r == nil {
		return true
	}
	if !r.toolMatches(toolName) {
		// Another agent's spelling of the tool the rule names (run_shell_command for Bash).
		if c := vocab.Tool(toolName); c == "" || c == toolName || !r.toolMatches(c) {
			return false
		}
	}
	str := func(keys ...string) (string, bool) {
		for _, k := range keys {
			if v := input.Get(k); v != nil && v.Type() == fastjson.TypeString {
				return string(v.GetStringBytes()), true
			}
		}
		return "", false
	}
	switch r.kind {
	case ruleTool:
		return true
	case ruleBash:
		cmd, ok := str("command")
		return ok && bashMatch(r.content, cmd)
	case ruleFile:
		p, ok := str("file_path", "path", "notebook_path")
		if !ok || p == "" {
			return false
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		pat := r.glob
		if strings.HasPrefix(pat, "./") {
			pat = filepath.ToSlash(filepath.Join(cwd, pat[2:])) + trailingSlash(pat)
		} else if strings.HasPrefix(pat, "**/") {
			ok, _ := doublestar.Match(pat, strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "/"))
			return ok
		}
		ok, _ = doublestar.Match(pat, filepath.ToSlash(filepath.Clean(p)))
		return ok
	case ruleDomain:
		raw, _ := str("url")
		u, err := url.Parse(raw)
		if err != nil || u.Hostname() == "" {
			return false
		}
		ok, _ := path.Match(r.glob, u.Hostname())
		return ok
	}
	// Any other tool: the content as a glob against any string field of the input.
	found := false
	if obj, err := input.Object(); err == nil {
		obj.Visit(func(_ []byte, v *fastjson.Value) {
			if !found && v.Type() == fastjson.TypeString {
				found, _ = path.Match(r.glob, string(v.GetStringBytes()))
			}
		})
	}
	return found
}

func (r *Rule) toolMatches(name string) bool {
	if covered := fileTools[r.tool]; covered != nil {
		for _, t := range covered {
			if t == name {
				return true
			}
		}
		return false
	}
	// An MCP tool is named in full: Claude Code 2.1.330 runs the hook for neither
	// "mcp__server" nor "mcp__server__*" (checked live: mcp_matcher_pretooluse).
	if strings.Contains(r.tool, "*") && !strings.HasPrefix(r.tool, mcpPrefix) {
		ok, _ := path.Match(r.tool, name)
		return ok
	}
	return r.tool == name
}

// simpleCommand is one command of a Bash line: its words, whether each word's value is
// only known at run time ($VAR, $(), backticks, a glob), and the text its statement's
// here-strings and here-documents give it.
type simpleCommand struct {
	words   []string
	dynamic []bool
	heres   []string // literal here-strings and here-document bodies, on any descriptor
	input   bool     // some input redirection is not a literal here-string or here-document
	suffix  bool     // a guess: a later word of an unknown program read as a command
	first   bool     // the words of a statement, not a command a wrapper runs
	written bool     // a statement of the line itself (depth 0), for Commands
}

// bashMatch applies a Bash pattern to a command line: to every command it runs (see
// wrappers.go).
func bashMatch(pattern, line string) bool {
	var in lineInfo
	if !in.readLine(line) || in.unknown {
		return true // cannot be parsed, or runs what cannot be known: fail open
	}
	name, more := patternName(pattern)
	if in.dynamic && more {
		return true // the pattern needs arguments whose value is unknown
	}
	for _, c := range in.cmds {
		if !commandMatch(name, c.words[0]) {
			continue
		}
		if !more || commandMatch(pattern, strings.Join(c.words, " ")) {
			return true
		}
		for _, d := range c.dynamic {
			if d {
				return true // an argument known only at run time (a glob, xargs' input)
			}
		}
	}
	return false
}

// patternName splits a Bash pattern into its command name (itself a pattern: "ls*") and
// whether it says more than that name ("rm *" and "rm:*" say no more; "git push *" does).
func patternName(p string) (string, bool) {
	p = strings.TrimSpace(p)
	base := strings.TrimSuffix(strings.TrimSuffix(p, ":*"), " *")
	name, rest, _ := strings.Cut(strings.TrimSpace(base), " ")
	return name, strings.TrimSpace(rest) != ""
}

// commandMatch tests one command (words joined by spaces) against a pattern: "x:*" is
// the prefix x at a word boundary, "*" matches any run of characters (a trailing " *"
// also matches the bare command), anything else is exact.
func commandMatch(pattern, cmd string) bool {
	p := strings.TrimSpace(pattern)
	if prefix, ok := strings.CutSuffix(p, ":*"); ok {
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	}
	if !strings.Contains(p, "*") {
		return cmd == p
	}
	if bare, ok := strings.CutSuffix(p, " *"); ok && cmd == bare {
		return true
	}
	return globMatch(strings.Split(p, "*"), cmd)
}

// substitution stands for a substitution's value in a word's value; no word bash passes
// to a program can hold it.
const substitution = "\x00"

// wordValue is a word's literal value with quotes removed (and substitution for each
// substitution), whether part of it is only known at run time (a substitution), and
// whether it is a pathname pattern bash may replace by file names (an unquoted *, ? or
// [...]).
func wordValue(w *syntax.Word) (string, bool, bool) { return wordValueIn(w, false) }

// wordValueIn is wordValue for a word inside double quotes (or a here-document body)
// when quoted is true.
func wordValueIn(w *syntax.Word, quoted bool) (string, bool, bool) {
	var b strings.Builder
	dyn, glob := false, false
	var parts func([]syntax.WordPart, bool)
	parts = func(ps []syntax.WordPart, quoted bool) {
		for _, p := range ps {
			switch x := p.(type) {
			case *syntax.Lit:
				if !quoted && isGlob(x.Value) {
					glob = true
				}
				if quoted {
					b.WriteString(unescapeQuoted(x.Value))
				} else {
					b.WriteString(unescape(x.Value))
				}
			case *syntax.SglQuoted:
				if x.Dollar {
					b.WriteString(ansiC(x.Value)) // $'\x72m'
				} else {
					b.WriteString(x.Value)
				}
			case *syntax.DblQuoted:
				parts(x.Parts, true)
			case *syntax.ExtGlob:
				glob = true
				b.WriteString(x.Op.String() + x.Pattern.Value + ")")
			default: // parameter, command, arithmetic and process substitutions
				dyn = true
				b.WriteString(substitution)
			}
		}
	}
	parts(w.Parts, quoted)
	return b.String(), dyn, glob
}

// isGlob reports whether unquoted literal text holds a pathname pattern: an unescaped *
// or ?, or a [ closed by a later ] ("[" alone is the test command).
func isGlob(s string) bool {
	open := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			open = true
		case ']':
			if open {
				return true
			}
		}
	}
	return false
}

// unescape removes the backslashes of an unquoted literal ("a\ b" is "a b").
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeQuoted removes the backslashes bash removes inside double quotes: those before
// $, `, ", \ and a newline.
func unescapeQuoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the backslash escapes of a $'...' string as bash does; an escape it does
// not know stays as written.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		// digits reads up to max digits at i, leaving i on the last one it read.
		digits := func(max int, base uint64, ok func(byte) bool) (uint64, bool) {
			n, v := 0, uint64(0)
			for ; n < max && i+n < len(s) && ok(s[i+n]); n++ {
				d, _ := strconv.ParseUint(s[i+n:i+n+1], 16, 8)
				v = v*base + d
			}
			if n == 0 {
				return 0, false
			}
			i += n - 1
			return v, true
		}
		isOct := func(c byte) bool { return c >= '0' && c <= '7' }
		isHex := func(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }
		switch c := s[i]; c {
		case 'a', 'b', 'e', 'E', 'f', 'n', 'r', 't', 'v':
			b.WriteByte(map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11}[c])
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			i++
			if v, ok := digits(max, 16, isHex); !ok {
				i-- // back on the letter
				b.WriteString(`\` + string(c))
			} else if c == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
		default:
			if v, ok := digits(3, 8, isOct); ok {
				b.WriteByte(byte(v))
			} else {
				b.WriteString(`\` + string(c))
			}
		}
	}
	return b.String()
}
