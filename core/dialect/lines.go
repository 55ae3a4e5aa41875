package dialect

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Line returns the 1-based line in the JSON document data where path (as in warnings:
// "hooks.PreToolUse[0].hooks[1].matcher") is written: the line of the last key or array
// element of path that exists. It returns 0 when data is not JSON or path is "".
//
// It scans the text instead of using a parser's tree because parsers forget positions.
func Line(data []byte, path string) int {
	segs, ok := splitPath(path)
	if !ok || len(segs) == 0 {
		return 0
	}
	s := &scanner{b: data}
	s.ws()
	at := -1
	for _, seg := range segs {
		pos, found := s.enter(seg)
		if !found {
			break
		}
		at = pos
	}
	if at < 0 {
		return 0
	}
	return strings.Count(string(data[:at]), "\n") + 1
}

// segment is one step of a path: an object key, or an array index when key is "" and
// index >= 0.
type segment struct {
	key   string
	index int
}

func splitPath(path string) ([]segment, bool) {
	var out []segment
	for _, part := range strings.Split(path, ".") {
		key := part
		var idx []int
		for strings.HasSuffix(key, "]") {
			open := strings.LastIndexByte(key, '[')
			if open < 0 {
				return nil, false
			}
			n, err := strconv.Atoi(key[open+1 : len(key)-1])
			if err != nil || n < 0 {
				return nil, false
			}
			idx = append([]int{n}, idx...)
			key = key[:open]
		}
		if key != "" {
			out = append(out, segment{key: key, index: -1})
		}
		for _, n := range idx {
			out = append(out, segment{index: n})
		}
	}
	return out, true
}

// scanner walks JSON text just far enough to find offsets.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) && strings.IndexByte(" \t\r\n", s.b[s.i]) >= 0 {
		s.i++
	}
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// enter moves into the value at seg of the value at the cursor and returns the offset to
// report for it (the key's for an object member, the element's for an array item).
func (s *scanner) enter(seg segment) (int, bool) {
	switch {
	case seg.index < 0 && s.peek() == '{':
		s.i++
		for {
			s.ws()
			if s.peek() != '"' {
				return 0, false
			}
			start := s.i
			key, ok := s.str()
			if !ok {
				return 0, false
			}
			s.ws()
			if s.peek() != ':' {
				return 0, false
			}
			s.i++
			s.ws()
			if key == seg.key {
				return start, true
			}
			if !s.skip() || !s.comma('}') {
				return 0, false
			}
		}
	case seg.index >= 0 && s.peek() == '[':
		s.i++
		for n := 0; ; n++ {
			s.ws()
			if s.peek() == ']' {
				return 0, false
			}
			if n == seg.index {
				return s.i, true
			}
			if !s.skip() || !s.comma(']') {
				return 0, false
			}
		}
	}
	return 0, false
}

// comma consumes the separator after a member; false at the container's end or on junk.
func (s *scanner) comma(end byte) bool {
	s.ws()
	switch s.peek() {
	case ',':
		s.i++
		return true
	case end:
		return false
	}
	return false
}

// str reads a string at the cursor and returns its value.
func (s *scanner) str() (string, bool) {
	start := s.i
	s.i++
	escaped := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch c {
		case '\\':
			s.i++
			escaped = true
		case '"':
			raw := s.b[start:s.i]
			if !escaped {
				return string(raw[1 : len(raw)-1]), true
			}
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				return "", false
			}
			return v, true
		}
	}
	return "", false
}

// skip moves past the value at the cursor.
func (s *scanner) skip() bool {
	s.ws()
	switch s.peek() {
	case '"':
		_, ok := s.str()
		return ok
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if _, ok := s.str(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	case 0:
		return false
	}
	for s.i < len(s.b) && strings.IndexByte(",}] \t\r\n", s.b[s.i]) < 0 {
		s.i++
	}
	return true
}

// Lines answers Line for many paths of one document after a single walk of it: Line alone
// rescans the text per call, which made loading a file of a thousand hooks quadratic
// (issue 10's benchmark: three quarters of a config load).
type Lines struct {
	at       map[string]int // encoded path → offset, first occurrence (as enter finds it)
	newlines []int          // offsets of '\n', for line numbers
}

// NewLines indexes data; a document that is not JSON gives an index that answers 0.
func NewLines(data []byte) *Lines {
	l := &Lines{at: map[string]int{}}
	s := &scanner{b: data}
	l.walk(s, "") // junk ends the walk where Line's scan would stop too
	for i, c := range data {
		if c == '\n' {
			l.newlines = append(l.newlines, i)
		}
	}
	return l
}

// Line is Line(data, path) for the indexed data.
func (l *Lines) Line(path string) int {
	segs, ok := splitPath(path)
	if !ok || len(segs) == 0 {
		return 0
	}
	at, key := -1, ""
	for _, seg := range segs {
		key += encodeSeg(seg)
		pos, found := l.at[key]
		if !found {
			break
		}
		at = pos
	}
	if at < 0 {
		return 0
	}
	n, _ := slices.BinarySearch(l.newlines, at)
	return n + 1
}

func encodeSeg(seg segment) string {
	if seg.index >= 0 {
		return "\x01" + strconv.Itoa(seg.index)
	}
	return "\x00" + seg.key
}

// walk records the offset of every member and element of the value at the cursor, and
// moves past it.
func (l *Lines) walk(s *scanner, prefix string) bool {
	s.ws()
	switch s.peek() {
	case '{':
		s.i++
		for {
			s.ws()
			if s.peek() == '}' {
				s.i++
				return true
			}
			if s.peek() != '"' {
				return false
			}
			start := s.i
			key, ok := s.str()
			if !ok {
				return false
			}
			s.ws()
			if s.peek() != ':' {
				return false
			}
			s.i++
			s.ws()
			p := prefix + encodeSeg(segment{key: key, index: -1})
			if _, dup := l.at[p]; !dup {
				l.at[p] = start
			}
			if !l.walk(s, p) {
				return false
			}
			if !s.comma('}') {
				s.ws()
				if s.peek() == '}' {
					s.i++
					return true
				}
				return false
			}
		}
	case '[':
		s.i++
		for n := 0; ; n++ {
			s.ws()
			if s.peek() == ']' {
				s.i++
				return true
			}
			p := prefix + encodeSeg(segment{index: n})
			l.at[p] = s.i
			if !l.walk(s, p) {
				return false
			}
			if !s.comma(']') {
				s.ws()
				if s.peek() == ']' {
					s.i++
					return true
				}
				return false
			}
		}
	}
	return s.skip()
}
