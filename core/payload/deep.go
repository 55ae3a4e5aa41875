package payload

import (
	"errors"
	"fmt"

	"github.com/valyala/fastjson"
)

// MaxDepth bounds the nesting of a payload (objects and arrays inside one another): 10000
// levels, encoding/json's own bound. fastjson stops at fastjson.MaxDepth (300), which a
// model reaches with one free-form tool argument; Parse reads such a payload in pieces
// (parseDeep) so that its hooks run. A payload nested deeper than MaxDepth is ErrTooDeep.
const MaxDepth = 10000

// ErrTooDeep is returned by Parse for a payload nested deeper than MaxDepth.
var ErrTooDeep = fmt.Errorf("hookexec: payload: nested deeper than %d levels", MaxDepth)

// cutLevel is the nesting level at which parseDeep cuts a document into pieces, each of
// which fastjson parses on its own: well inside fastjson.MaxDepth.
const cutLevel = 200

// deepDoc keeps the parsers whose values a document parsed in pieces points into.
type deepDoc struct{ parsers []*fastjson.Parser }

// parseDeep parses data (valid JSON only) nested deeper than fastjson allows. Every
// non-trivial container at cutLevel is replaced in a copy of the text by "[]"; fastjson
// parses that copy and, recursively, each cut container's text; each placeholder's Value
// is then overwritten by the parsed container. Placeholders are found by their order: the
// k-th container at cutLevel in the text is the k-th container child of a value at
// cutLevel-1 in document order, which is fastjson's Visit order (duplicate keys kept).
func parseDeep(data []byte, keep *deepDoc, depth int) (*fastjson.Value, error) {
	type cut struct {
		ord        int // among the containers opened at cutLevel
		start, end int
	}
	var cuts []cut
	level, ord, start, deeper := 0, 0, 0, false
	inString, escaped := false, false
	for i, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			level++
			if depth+level > MaxDepth {
				return nil, ErrTooDeep
			}
			if level == cutLevel {
				start, deeper = i, false
			} else if level > cutLevel {
				deeper = true
			}
		case '}', ']':
			if level == cutLevel {
				if deeper {
					cuts = append(cuts, cut{ord, start, i + 1})
				}
				ord++
			}
			level--
			if level < 0 {
				return nil, errors.New("hookexec: payload: invalid JSON: unbalanced brackets")
			}
		}
	}
	if len(cuts) == 0 {
		return parsePiece(data, keep)
	}
	top := make([]byte, 0, len(data))
	prev := 0
	for _, c := range cuts {
		top = append(append(top, data[prev:c.start]...), '[', ']')
		prev = c.end
	}
	root, err := parsePiece(append(top, data[prev:]...), keep)
	if err != nil {
		return nil, err
	}
	var holes []*fastjson.Value // the container children at cutLevel, in document order
	collect(root, 1, &holes)
	if len(holes) != ord {
		return nil, errors.New("hookexec: payload: invalid JSON")
	}
	for _, c := range cuts {
		sub, err := parseDeep(data[c.start:c.end], keep, depth+cutLevel-1)
		if err != nil {
			return nil, err
		}
		*holes[c.ord] = *sub
	}
	return root, nil
}

// collect appends the containers at cutLevel under v (at level) in document order.
func collect(v *fastjson.Value, level int, out *[]*fastjson.Value) {
	visit := func(child *fastjson.Value) {
		t := child.Type()
		if t != fastjson.TypeObject && t != fastjson.TypeArray {
			return
		}
		if level+1 == cutLevel {
			*out = append(*out, child)
			return
		}
		collect(child, level+1, out)
	}
	switch v.Type() {
	case fastjson.TypeObject:
		v.GetObject().Visit(func(_ []byte, child *fastjson.Value) { visit(child) })
	case fastjson.TypeArray:
		for _, child := range v.GetArray() {
			visit(child)
		}
	}
}

func parsePiece(text []byte, keep *deepDoc) (*fastjson.Value, error) {
	p := new(fastjson.Parser)
	v, err := p.ParseBytes(text)
	if err != nil {
		return nil, fmt.Errorf("hookexec: payload: invalid JSON: %w", err)
	}
	keep.parsers = append(keep.parsers, p)
	return v, nil
}
