package rego_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/policy/rego"
)

var inputSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-1.5e300`, `12345678901234567890123`, `"x"`,
	`{"a":1,"a":2}`, `{"a":{"b":[1,"2",null,true,{"c":[]}]}}`, `{"s":"\u00e9\ud83d\ude00\n\"\\"}`,
	`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":"/p"}`, ` {"a" : [ 1 , 2 ] } `,
	"{\"a\":\"\xff\xfe\"}", `{"a":"\ud800\udc00 \udfff"}`,
	strings.Repeat(`{"a":`, 1000) + `1` + strings.Repeat(`}`, 1000), // past fastjson's depth
}

// parseInput agrees with OPA's own reader (ast.ValueFromReader) on every JSON document,
// and refuses what it refuses.
func TestParseInputAsOPA(t *testing.T) {
	for _, s := range append(inputSeeds, `{"a":`, `{}{}`, `{"a":1,}`, ``, `nul`) {
		t.Run(s, func(t *testing.T) { sameAsOPA(t, []byte(s)) })
	}
}

func FuzzParseInput(f *testing.F) {
	for _, s := range inputSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(sameAsOPA)
}

func sameAsOPA(t *testing.T, payload []byte) {
	got, err := rego.ParseInput(payload)
	want, werr := ast.ValueFromReader(bytes.NewReader(payload))
	if werr != nil {
		require.Error(t, err, "%q: OPA refuses it: %v", payload, werr)
		return
	}
	require.NoError(t, err, "%q", payload)
	assert.Equal(t, 0, want.Compare(got), "%q: got %v, OPA reads %v", payload, got, want)
}
