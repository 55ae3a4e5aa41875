// Package payload reads a fire's JSON payload without decoding it into Go maps: it parses
// once with fastjson, looks fields up by compiled paths, renders values for templates, and
// builds the one line of JSON that every hook of the fire receives on stdin.
//
// It does not validate payload shape beyond "a JSON object"; hosts send what they send.
package payload

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"
)

// ErrNotObject is returned by Parse for a payload that is valid JSON but not an object.
var ErrNotObject = errors.New("hookexec: payload: not a JSON object")

var parserPool fastjson.ParserPool

// Doc is one parsed payload. Release it when the fire is done.
type Doc struct {
	p    *fastjson.Parser // from parserPool; nil for a document parsed in pieces
	deep *deepDoc         // the pieces' parsers (parseDeep); nil otherwise
	v    *fastjson.Value
}

// Parse parses a payload. Empty input is the empty object. Nesting deeper than fastjson's
// bound is read (parseDeep) up to MaxDepth; deeper is ErrTooDeep. Parse keeps pointers into
// data: data must not change while the Doc is in use.
func Parse(data []byte) (*Doc, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		data = []byte("{}")
	}
	p := parserPool.Get()
	d := &Doc{p: p}
	v, err := p.ParseBytes(data)
	if err != nil {
		parserPool.Put(p)
		d.p, d.deep = nil, &deepDoc{}
		if v, err = parseDeep(data, d.deep, 0); err != nil {
			return nil, err
		}
	}
	if v.Type() != fastjson.TypeObject {
		d.v = v
		d.Release()
		return nil, ErrNotObject
	}
	d.v = v
	return d, nil
}

// Release returns the parser to the pool; d must not be used afterwards.
func (d *Doc) Release() {
	if d == nil {
		return
	}
	if d.p != nil {
		parserPool.Put(d.p)
	}
	d.p, d.deep, d.v = nil, nil, nil
}

// Root is the payload object.
func (d *Doc) Root() *fastjson.Value { return d.v }

// String returns the string field key, or "" when absent or not a string.
func (d *Doc) String(key string) string {
	if v := d.v.Get(key); v != nil && v.Type() == fastjson.TypeString {
		b, _ := v.StringBytes()
		return string(b)
	}
	return ""
}

// First returns the first of keys that holds a non-empty string (a matcher subject).
func (d *Doc) First(keys []string) string {
	for _, k := range keys {
		if s := d.String(k); s != "" {
			return s
		}
	}
	return ""
}

// Has reports whether the payload has key.
func (d *Doc) Has(key string) bool { return d.v.Exists(key) }

// Get returns the value at path, or nil.
func (d *Doc) Get(p Path) *fastjson.Value {
	if v := walk(d.v, p.segs); v != nil {
		return v
	}
	if p.alias != nil {
		return walk(d.v, p.alias)
	}
	return nil
}

// Render returns the value at path as template text: strings as-is, numbers and booleans
// as JSON text, objects and arrays as compact JSON, missing or null as "".
func (d *Doc) Render(p Path) string { return Render(d.Get(p)) }

// Render formats one value as template text.
func Render(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	switch v.Type() {
	case fastjson.TypeNull:
		return ""
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		return string(b)
	default:
		return string(AppendJSON(nil, v))
	}
}

// Path is a compiled dotted path with optional [i] indexes: "tool_args.file_path", "files[0]".
type Path struct {
	expr  string
	segs  []seg
	alias []seg // the same path under the equivalent top-level name, if any
}

type seg struct {
	key   string
	index int // >= 0 for an [i] step; key is "" then
}

// topAliases are top-level names that mean the same field across dialects.
var topAliases = map[string]string{
	"tool_args":     "tool_input",
	"tool_input":    "tool_args",
	"result":        "tool_response",
	"tool_response": "result",
	"sessionId":     "session_id",
	"session":       "session_id",
}

// Compile parses expr into a Path.
func Compile(expr string) (Path, error) {
	if expr == "" {
		return Path{}, errors.New("hookexec: payload: empty path")
	}
	var segs []seg
	for _, part := range strings.Split(expr, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key == "" {
			return Path{}, fmt.Errorf("hookexec: payload: bad path %q", expr)
		}
		segs = append(segs, seg{key: key, index: -1})
		for rest != "" {
			num, after, ok := strings.Cut(rest, "]")
			i, err := strconv.Atoi(num)
			if !ok || err != nil || i < 0 {
				return Path{}, fmt.Errorf("hookexec: payload: bad index in path %q", expr)
			}
			segs = append(segs, seg{index: i})
			rest = strings.TrimPrefix(after, "[")
			if after != "" && !strings.HasPrefix(after, "[") {
				return Path{}, fmt.Errorf("hookexec: payload: bad path %q", expr)
			}
		}
	}
	p := Path{expr: expr, segs: segs}
	if a, ok := topAliases[segs[0].key]; ok {
		p.alias = append([]seg{{key: a, index: -1}}, segs[1:]...)
	}
	return p, nil
}

// String returns the expression the path was compiled from.
func (p Path) String() string { return p.expr }

func walk(v *fastjson.Value, segs []seg) *fastjson.Value {
	for _, s := range segs {
		if v == nil {
			return nil
		}
		if s.index >= 0 {
			if v.Type() != fastjson.TypeArray {
				return nil
			}
			arr, _ := v.Array()
			if s.index >= len(arr) {
				return nil
			}
			v = arr[s.index]
			continue
		}
		if v.Type() != fastjson.TypeObject {
			return nil
		}
		v = v.Get(s.key)
	}
	return v
}
