package rego

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/valyala/fastjson"
)

// The payload becomes the query's input once per fire, straight from JSON to OPA's values
// with fastjson: a third of an evaluation's time went to OPA's own reader
// (ast.ValueFromReader: encoding/json to Go values, then to OPA's).

var parsers fastjson.ParserPool

// parseInput parses a payload into OPA's value, exactly as OPA's own reader does (held to
// it by FuzzParseInput). What fastjson reads differently goes to that reader instead: a
// payload that is not valid UTF-8 (encoding/json reads U+FFFD), that may hold an escaped
// surrogate (fastjson keeps a lone one's escape as text), or that fastjson refuses (its
// nesting limit is 300, encoding/json's 10000; or the payload is not JSON, which the
// reader then says). fastjson's parser is lenient (a number "+", a raw control character
// in a string), so the payload is validated first.
func parseInput(payload []byte) (ast.Value, error) {
	if !utf8.Valid(payload) || surrogates(payload) || fastjson.ValidateBytes(payload) != nil {
		return ast.ValueFromReader(bytes.NewReader(payload))
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(payload)
	if err != nil {
		return ast.ValueFromReader(bytes.NewReader(payload))
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
