// Package jsontext finds and changes values in JSON text by path without re-encoding the
// rest: a configuration file keeps every other key, its key order, indentation, spacing and
// trailing newline when one hook is added, removed or switched off.
//
// Paths are the ones config warnings use: "hooks.PreToolUse[0].hooks[1]". The package does
// not interpret configuration and does not touch files; callers read and write them
// (atomically, with core/atomicfile).
package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Seg is one step of a path: an object key, or an array index when Key is "" and Index >= 0.
type Seg struct {
	Key   string
	Index int
}

// K and I make path steps.
func K(key string) Seg { return Seg{Key: key, Index: -1} }
func I(index int) Seg  { return Seg{Index: index} }

// ParsePath splits "hooks.PreToolUse[0].matcher" into steps.
func ParsePath(path string) ([]Seg, error) {
	var out []Seg
	if path == "" {
		return nil, nil
	}
	for _, part := range strings.Split(path, ".") {
		key := part
		var idx []int
		for strings.HasSuffix(key, "]") {
			open := strings.LastIndexByte(key, '[')
			if open < 0 {
				return nil, fmt.Errorf("jsontext: bad path %q", path)
			}
			n, err := strconv.Atoi(key[open+1 : len(key)-1])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("jsontext: bad index in path %q", path)
			}
			idx = append([]int{n}, idx...)
			key = key[:open]
		}
		if key != "" {
			out = append(out, K(key))
		} else if len(idx) == 0 {
			return nil, fmt.Errorf("jsontext: empty step in path %q", path)
		}
		for _, n := range idx {
			out = append(out, I(n))
		}
	}
	return out, nil
}

// ErrNotFound is returned for a path that does not exist.
var ErrNotFound = errors.New("jsontext: path not found")

// node is a value with its position in the text.
type node struct {
	kind       byte // '{', '[', '"', or 'v' for numbers and literals
	start, end int  // the value's bytes are text[start:end]
	members    []member
	elems      []*node
}

type member struct {
	key      string
	keyStart int
	val      *node
}

// parse builds the tree of text, which must be one valid JSON value (surrounding space allowed).
func parse(text []byte) (*node, error) {
	if !json.Valid(text) {
		return nil, errors.New("jsontext: not valid JSON")
	}
	p := &parser{b: text}
	p.ws()
	n := p.value()
	return n, nil
}

type parser struct {
	b []byte
	i int
}

func (p *parser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\r' || p.b[p.i] == '\n') {
		p.i++
	}
}

// value parses the (valid) value at the cursor.
func (p *parser) value() *node {
	n := &node{start: p.i}
	switch p.b[p.i] {
	case '{':
		n.kind = '{'
		p.i++
		p.ws()
		for p.b[p.i] != '}' {
			ks := p.i
			key := p.str()
			p.ws()
			p.i++ // ':'
			p.ws()
			n.members = append(n.members, member{key: key, keyStart: ks, val: p.value()})
			p.ws()
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case '[':
		n.kind = '['
		p.i++
		p.ws()
		for p.b[p.i] != ']' {
			n.elems = append(n.elems, p.value())
			p.ws()
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case '"':
		n.kind = '"'
		p.str()
	default:
		n.kind = 'v'
		for p.i < len(p.b) && !strings.ContainsRune(",}] \t\r\n", rune(p.b[p.i])) {
			p.i++
		}
	}
	n.end = p.i
	return n
}

// str reads the string at the cursor and returns its value.
func (p *parser) str() string {
	start := p.i
	p.i++
	escaped := false
	for p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			p.i++
			escaped = true
		}
		p.i++
	}
	p.i++
	raw := p.b[start:p.i]
	if !escaped {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// find walks path from n; it returns the node and, for the last step, its parent and the
// step's index among the parent's children.
func find(n *node, path []Seg) (target, parent *node, at int, err error) {
	at = -1
	for _, s := range path {
		parent = n
		switch {
		case s.Index < 0 && n.kind == '{':
			at = -1
			for i := range n.members {
				if n.members[i].key == s.Key {
					at = i // the first of duplicate keys, as JSON readers here take it
					break
				}
			}
			if at < 0 {
				return nil, parent, -1, ErrNotFound
			}
			n = n.members[at].val
		case s.Index >= 0 && n.kind == '[':
			if s.Index >= len(n.elems) {
				return nil, parent, -1, ErrNotFound
			}
			at = s.Index
			n = n.elems[at]
		default:
			return nil, parent, -1, ErrNotFound
		}
	}
	return n, parent, at, nil
}

// Line returns the 1-based line where path is written: the key of an object member, the
// value of an array element. When the path does not exist it is the line of the deepest
// part that does; 0 when text is not JSON or path is empty or invalid.
func Line(text []byte, path string) int { return NewLines(text).Line(path) }

// Lines answers Line for many paths of one document after parsing it once (a config of a
// thousand hooks would otherwise be parsed a thousand times).
type Lines struct {
	root     *node // nil when the text is not JSON
	newlines []int // offsets of '\n'
}

// NewLines parses text for Line.
func NewLines(text []byte) *Lines {
	l := &Lines{}
	root, err := parse(text)
	if err != nil {
		return l
	}
	l.root = root
	for i, c := range text {
		if c == '\n' {
			l.newlines = append(l.newlines, i)
		}
	}
	return l
}

// Line is Line(text, path) for the parsed text.
func (l *Lines) Line(path string) int {
	segs, err := ParsePath(path)
	if err != nil || len(segs) == 0 || l.root == nil {
		return 0
	}
	off := -1
	n := l.root
	for _, s := range segs {
		t, _, at, err := find(n, []Seg{s})
		if err != nil {
			break
		}
		if s.Index < 0 {
			off = n.members[at].keyStart
		} else {
			off = t.start
		}
		n = t
	}
	if off < 0 {
		return 0
	}
	line, _ := slices.BinarySearch(l.newlines, off)
	return line + 1
}

// Get returns the raw JSON at path.
func Get(text []byte, path ...Seg) (json.RawMessage, error) {
	root, err := parse(text)
	if err != nil {
		return nil, err
	}
	n, _, _, err := find(root, path)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(text[n.start:n.end]), nil
}

// Len returns the number of members or elements of the container at path.
func Len(text []byte, path ...Seg) (int, error) {
	root, err := parse(text)
	if err != nil {
		return 0, err
	}
	n, _, _, err := find(root, path)
	if err != nil {
		return 0, err
	}
	switch n.kind {
	case '{':
		return len(n.members), nil
	case '[':
		return len(n.elems), nil
	}
	return 0, fmt.Errorf("jsontext: %s is not an object or array", pathString(path))
}

// Set sets the member at path (its last step a key) to value, creating the objects on the
// way. An existing value is replaced in place; a new member goes last in its object.
func Set(text []byte, value any, path ...Seg) ([]byte, error) {
	if len(path) == 0 || path[len(path)-1].Index >= 0 {
		return nil, fmt.Errorf("jsontext: Set needs a path ending in a key")
	}
	root, err := parse(text)
	if err != nil {
		return nil, err
	}
	// The deepest existing object, and what is missing below it.
	n, depth := root, 0
	for depth < len(path) {
		t, _, _, err := find(n, path[depth:depth+1])
		if err != nil {
			break
		}
		n, depth = t, depth+1
	}
	if depth == len(path) {
		return splice(text, n.start, n.end, render(text, n.start, value)), nil
	}
	if n.kind != '{' {
		return nil, fmt.Errorf("jsontext: %s is not an object", pathString(path[:depth]))
	}
	// Build the missing part inside out: {"a": {"b": value}}.
	var v any = value
	for i := len(path) - 1; i > depth; i-- {
		if path[i].Index >= 0 {
			return nil, fmt.Errorf("jsontext: cannot create array %s", pathString(path[:i+1]))
		}
		v = Object{{path[i].Key, v}}
	}
	return insertMember(text, n, path[depth].Key, v), nil
}

// Insert puts value into the array at path before index (len or -1: at the end). A missing
// array is created as a member of its (existing) parent object.
func Insert(text []byte, index int, value any, path ...Seg) ([]byte, error) {
	root, err := parse(text)
	if err != nil {
		return nil, err
	}
	n, _, _, err := find(root, path)
	if errors.Is(err, ErrNotFound) && len(path) > 0 && path[len(path)-1].Index < 0 {
		return Set(text, []any{value}, path...)
	}
	if err != nil {
		return nil, err
	}
	if n.kind != '[' {
		return nil, fmt.Errorf("jsontext: %s is not an array", pathString(path))
	}
	if index < 0 || index > len(n.elems) {
		index = len(n.elems)
	}
	return insertChild(text, n, index, "", value), nil
}

// Delete removes the member or element at path with its separator, leaving the layout of
// the rest as it was.
func Delete(text []byte, path ...Seg) ([]byte, error) {
	if len(path) == 0 {
		return nil, errors.New("jsontext: cannot delete the document")
	}
	root, err := parse(text)
	if err != nil {
		return nil, err
	}
	_, parent, at, err := find(root, path)
	if err != nil {
		return nil, err
	}
	starts, ends := childSpans(parent)
	switch {
	case len(starts) == 1: // the only child: leave the container empty
		return splice(text, parent.start+1, parent.end-1, nil), nil
	case at > 0: // from the end of the previous child: ",\n  child"
		return splice(text, ends[at-1], ends[at], nil), nil
	default: // the first of several: "child,\n  " up to the next
		return splice(text, starts[0], starts[1], nil), nil
	}
}

// childSpans lists where each child of a container starts (its key for members) and ends.
func childSpans(n *node) (starts, ends []int) {
	if n.kind == '{' {
		for _, m := range n.members {
			starts, ends = append(starts, m.keyStart), append(ends, m.val.end)
		}
		return
	}
	for _, e := range n.elems {
		starts, ends = append(starts, e.start), append(ends, e.end)
	}
	return
}

func insertMember(text []byte, obj *node, key string, value any) []byte {
	k, _ := marshal(key)
	return insertChild(text, obj, len(obj.members), string(k)+": ", value)
}

// insertChild inserts prefix+value as child index of container n, laid out like its
// siblings: on its own line at their indent, or inline after ", ".
func insertChild(text []byte, n *node, index int, prefix string, value any) []byte {
	starts, ends := childSpans(n)
	if len(starts) == 0 {
		if !multiline(text) {
			return splice(text, n.start+1, n.end-1, []byte(prefix+string(render(text, -1, value))))
		}
		base := lineIndent(text, n.start)
		in := base + indentUnit(text)
		body := "\n" + in + prefix + string(renderAt(text, in, value)) + "\n" + base
		return splice(text, n.start+1, n.end-1, []byte(body))
	}
	// The separator of the siblings: what follows the comma after the first child, or the
	// space before the only child when it sits on its own line.
	sep := " "
	if len(starts) > 1 {
		between := string(text[ends[0]:starts[1]])
		sep = between[strings.IndexByte(between, ',')+1:]
	} else if lead := string(text[n.start+1 : starts[0]]); strings.Contains(lead, "\n") {
		sep = lead
	}
	in := lineIndent(text, starts[0])
	child := prefix + string(renderAt(text, in, value))
	if index < len(starts) {
		return splice(text, starts[index], starts[index], []byte(child+","+sep))
	}
	return splice(text, ends[len(ends)-1], ends[len(ends)-1], []byte(","+sep+child))
}

// render encodes value for the position at (the indent of its line; -1: inline).
func render(text []byte, at int, value any) []byte {
	if at < 0 || !multiline(text) {
		b, _ := marshal(value)
		return spaced(b)
	}
	return renderAt(text, lineIndent(text, at), value)
}

// renderAt encodes value with the file's indent unit, continuation lines at indent.
func renderAt(text []byte, indent string, value any) []byte {
	b, _ := marshal(value)
	if !multiline(text) {
		return spaced(b)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, indent, indentUnit(text)); err != nil {
		return b
	}
	return out.Bytes()
}

// spaced turns compact JSON into the one-line style people write: {"a": 1, "b": [2, 3]}.
func spaced(b []byte) []byte {
	var out bytes.Buffer
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		out.WriteByte(c)
		switch {
		case in && c == '\\':
			i++
			out.WriteByte(b[i])
		case c == '"':
			in = !in
		case !in && (c == ':' || c == ','):
			out.WriteByte(' ')
		}
	}
	return out.Bytes()
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // commands hold <<placeholders>> and >&2
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func multiline(text []byte) bool { return bytes.Contains(bytes.TrimSpace(text), []byte("\n")) }

// lineIndent is the leading whitespace of the line holding offset at.
func lineIndent(text []byte, at int) string {
	start := bytes.LastIndexByte(text[:at], '\n') + 1
	end := start
	for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
		end++
	}
	return string(text[start:end])
}

// indentUnit is the file's indentation step: the leading whitespace of its first indented
// line, two spaces when it has none.
func indentUnit(text []byte) string {
	for _, line := range bytes.Split(text, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

func splice(text []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(text)-(to-from)+len(with))
	out = append(out, text[:from]...)
	out = append(out, with...)
	return append(out, text[to:]...)
}

func pathString(path []Seg) string {
	var b strings.Builder
	for _, s := range path {
		if s.Index >= 0 {
			fmt.Fprintf(&b, "[%d]", s.Index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	if b.Len() == 0 {
		return "the document"
	}
	return b.String()
}

// Object is a JSON object whose keys keep their order when encoded (a map's would be sorted).
type Object []Field

// Field is one member of an Object.
type Field struct {
	Key   string
	Value any
}

// MarshalJSON encodes the fields in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// F makes a Field.
func F(key string, value any) Field { return Field{Key: key, Value: value} }
