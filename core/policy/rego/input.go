package rego

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/valyala/fastjson"
)

// The payload becomes the query's input once per fire, straight from JSON to OPA's values
// with fastjson: a third of an evaluation's time went to OPA's own reader
// (ast.ValueFromReader: encoding/json to Go values, then to OPA's).

var parsers fastjson.ParserPool

// parseInput parses a payload into OPA's value. A repeated key keeps its last value, as
// encoding/json does. The parser is lenient (a number "+", a raw control character in a
// string), so the payload is validated first; FuzzParseInput holds it to OPA's reader.
func parseInput(payload []byte) (ast.Value, error) {
	if err := fastjson.ValidateBytes(payload); err != nil {
		return nil, err
	}
	if surrogates(payload) {
		// fastjson keeps a lone surrogate's escape as its text; encoding/json reads U+FFFD.
		return ast.ValueFromReader(bytes.NewReader(payload))
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(payload)
	if err != nil {
		return nil, err
	}
	return toValue(v)
}

// surrogates says whether payload may hold a \uD800-\uDFFF escape (a false positive, such
// as an escaped backslash before "ud", only takes the slower reader).
func surrogates(payload []byte) bool {
	for i := bytes.Index(payload, []byte(`\u`)); i >= 0; {
		if i+2 < len(payload) && (payload[i+2] == 'd' || payload[i+2] == 'D') {
			return true
		}
		j := bytes.Index(payload[i+2:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += 2 + j
	}
	return false
}

func toValue(v *fastjson.Value) (ast.Value, error) {
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		obj := ast.NewObjectWithCapacity(o.Len())
		var err error
		o.Visit(func(k []byte, v *fastjson.Value) {
			if err != nil {
				return
			}
			var val ast.Value
			if val, err = toValue(v); err == nil {
				obj.Insert(ast.StringTerm(string(k)), ast.NewTerm(val))
			}
		})
		return obj, err
	case fastjson.TypeArray:
		a, _ := v.Array()
		terms := make([]*ast.Term, len(a))
		for i, e := range a {
			val, err := toValue(e)
			if err != nil {
				return nil, err
			}
			terms[i] = ast.NewTerm(val)
		}
		return ast.NewArray(terms...), nil
	case fastjson.TypeString:
		return ast.String(v.GetStringBytes()), nil
	case fastjson.TypeNumber:
		// The number's own digits, as OPA keeps JSON numbers (json.Number).
		return ast.Number(json.Number(v.String())), nil
	case fastjson.TypeTrue:
		return ast.Boolean(true), nil
	case fastjson.TypeFalse:
		return ast.Boolean(false), nil
	case fastjson.TypeNull:
		return ast.NullValue, nil
	}
	return nil, fmt.Errorf("unexpected JSON value %s", v.Type())
}
