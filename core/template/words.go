package template

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file reads a word as the program receives it: its literal text, its values, and which value may start it.

// arg is a word as the program receives it.
type arg struct {
	w       *syntax.Word // nil in exec form
	lit     string       // the text after quote removal, when literal
	literal bool         // only quotes, escapes and markers: no expansion
	marks   []int        // srcs of the values in the word
	lead    []int        // srcs whose value may start the word
}

// leading returns the srcs of the markers at the start of s (values may be empty, so a
// run of markers all lead).
func leading(s string) []int {
	var out []int
	for {
		loc := markerRE.FindStringSubmatchIndex(s)
		if loc == nil || loc[0] != 0 {
			return out
		}
		n, _ := strconv.Atoi(s[loc[2]:loc[3]])
		out = append(out, n)
		s = s[loc[1]:]
	}
}

// flatParts lists a word's parts with double quotes opened.
func flatParts(parts []syntax.WordPart) []syntax.WordPart {
	var out []syntax.WordPart
	for _, p := range parts {
		if d, ok := p.(*syntax.DblQuoted); ok && !d.Dollar {
			out = append(out, flatParts(d.Parts)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// oneField reports whether a word with expansions still reaches the program as one word
// that does not start with an expansion's text unquoted: every expansion is inside
// double quotes, so nothing splits it into more words (a script path "$HOOKS/x.py").
func oneField(w arg) bool {
	if w.w == nil {
		return false
	}
	for _, p := range w.w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if _, ok := unquoteLit(x.Value, false); !ok {
				return false
			}
		case *syntax.SglQuoted:
			if x.Dollar {
				return false
			}
		case *syntax.DblQuoted:
		default:
			return false
		}
	}
	return true
}

func hasExpansion(w *syntax.Word) bool {
	_, ok := unquoteWord(w)
	return !ok
}

// unquoteWord removes the quoting of a word made only of literal text and quotes; ok is
// false when it holds an expansion, a glob or anything else the shell would change.
func unquoteWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			v, ok := unquoteLit(x.Value, false)
			if !ok {
				return "", false
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", false
			}
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				v, _ := unquoteLit(l.Value, true)
				b.WriteString(v)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unquoteLit removes backslashes from literal text, unquoted or inside "...". ok is
// false for unquoted text the shell would still expand (globs, a leading ~, braces).
func unquoteLit(s string, dquote bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			n := s[i+1]
			switch {
			case n == '\n':
				i++
				continue
			case !dquote || strings.IndexByte("$`\"\\", n) >= 0:
				b.WriteByte(n)
				i++
				continue
			}
		}
		if !dquote && (c == '*' || c == '?' || c == '~' && i == 0 ||
			c == '[' && strings.IndexByte(s[i:], ']') > 0 || c == '{' && strings.IndexByte(s[i:], '}') > 0) {
			return "", false // a glob, brace or tilde expansion
		}
		b.WriteByte(c)
	}
	return b.String(), true
}
