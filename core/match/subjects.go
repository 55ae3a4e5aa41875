package match

import (
	"slices"
	"strings"
	"sync"

	"github.com/hookexec/hookexec/core/vocab"
)

// Subjects lists every subject m matches when that set is finite and known exactly, so
// that a reader without this package (the C client's no-match index, core/nomatch) can
// decide "no match" by comparing bytes: ok is false for a matcher that matches everything
// (All), for globs, and for a regex that is not an anchored alternation of literals
// (^Edit$, ^(Edit|Write)$, ^(?:mcp__fs__read)$). Matching stays case-sensitive: "bash"
// is never a subject of "Bash" unless a tool vocabulary says it is the same tool.
//
// The list is exact because it is filtered by Match itself from a superset of every
// subject that can match. A subject matches a Names or literal-regex matcher in one of
// three ways (Match): (1) it is one of the literals; (2) it names the same Tool as one
// (ParseTool: "X" and "builtin:X"; "mcp__S__N" and "S:N"), or its canonical spelling is one
// (the regex path tries Tool.Canonical); (3) with a vocabulary, its bare name is a tool the
// vocabulary knows. candidates covers (1) and (2) by building every spelling whose parse or
// canonical spelling is the literal, and (3) by taking every spelling the vocabulary has
// (a finite table) with and without "builtin:".
func (m *Matcher) Subjects() (subjects []string, ok bool) {
	if m == nil {
		return nil, false
	}
	var lits []string
	switch m.kind {
	case Names:
		for _, a := range m.alts {
			lits = append(lits, a.name)
		}
	case Regex:
		if lits, ok = regexLiterals(strings.TrimSpace(m.pattern)); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	seen := map[string]bool{}
	for _, c := range candidates(lits, m.vocab) {
		if !seen[c] && m.Match(c) {
			subjects = append(subjects, c)
		}
		seen[c] = true
	}
	slices.Sort(subjects)
	return subjects, true
}

// candidates is a superset of the subjects that can match a matcher whose literal
// subjects are lits (see Subjects).
func candidates(lits []string, withVocab bool) []string {
	var out []string
	add := func(s string) { out = append(out, s, s+"\n", builtinServer+":"+s) }
	for _, a := range lits {
		add(a)
		t := ParseTool(a)
		add(t.Name)
		add(t.Canonical())
		if t.MCP {
			add(t.Server + ":" + t.Name)
		}
		// Every S:N whose canonical spelling is a: the S:N spellings of mcp__S__N split at
		// each "__" (ParseTool of "mcp__a__b__c" takes the first; "a__b:c" is the second).
		if rest, ok := strings.CutPrefix(a, mcpPrefix); ok {
			for i := 0; i+2 <= len(rest); i++ {
				if rest[i:i+2] == "__" {
					add(rest[:i] + ":" + rest[i+2:])
				}
			}
		}
	}
	if withVocab {
		out = append(out, vocabCandidates()...)
	}
	return out
}

// vocabCandidates are every spelling the vocabulary knows, with and without "builtin:".
var vocabCandidates = sync.OnceValue(func() []string {
	var out []string
	for _, agent := range vocab.Agents {
		for name, canon := range vocab.ToolsOf(agent) {
			out = append(out, name, builtinServer+":"+name, canon, builtinServer+":"+canon)
		}
	}
	return out
})

// regexLiterals reads a regex of the form ^lit$, ^(lit|lit)$ or ^(?:lit|lit)$ whose
// literals are letters, digits, "_", "-", ":" and backslash-escaped punctuation; ok is
// false for any other regex (unanchored, classes, quantifiers, nested groups, ...).
func regexLiterals(p string) (lits []string, ok bool) {
	body, ok := strings.CutPrefix(p, "^")
	if !ok {
		return nil, false
	}
	if body, ok = strings.CutSuffix(body, "$"); !ok || strings.HasSuffix(body, `\`) {
		return nil, false
	}
	if inner, grouped := strings.CutPrefix(body, "(?:"); grouped {
		body = inner
	} else if inner, grouped := strings.CutPrefix(body, "("); grouped {
		body = inner
	} else {
		body = "(" + body + ")" // one literal, or lit|lit with no group: ^a|b$ is not one
		if strings.Contains(body, "|") {
			return nil, false
		}
		body = body[1:]
	}
	if body, ok = strings.CutSuffix(body, ")"); !ok || strings.HasSuffix(body, `\`) {
		return nil, false
	}
	var cur strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '|':
			lits = append(lits, cur.String())
			cur.Reset()
		case c == '\\' && i+1 < len(body) && strings.IndexByte(`.-:_/|()[]{}*+?^$\`, body[i+1]) >= 0:
			i++
			cur.WriteByte(body[i])
		case c == '_' || c == '-' || c == ':' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			cur.WriteByte(c)
		default:
			return nil, false
		}
	}
	return append(lits, cur.String()), true
}
