package payload

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// nest wraps inner in depth containers (depth+1 levels with the innermost siblings),
// alternating arrays and objects with siblings on
// both sides (so the pieces parseDeep cuts have neighbours to keep in order).
func nest(depth int, inner string) string {
	var b strings.Builder
	for i := 0; i < depth; i++ {
		if i%2 == 0 {
			b.WriteString(`[1,{"k":"` + strconv.Itoa(i) + `"},`)
		} else {
			b.WriteString(`{"a":[],"d":1,"d":`)
		}
	}
	b.WriteString(inner)
	for i := depth - 1; i >= 0; i-- {
		if i%2 == 0 {
			b.WriteString(`,[2]]`)
		} else {
			b.WriteString(`,"z":{}}`)
		}
	}
	return b.String()
}

// A payload nested beyond fastjson's 300 levels parses, up to MaxDepth, into the same
// document: rendered back it is the input's compact text byte for byte (duplicate keys and
// order kept). Deeper is ErrTooDeep.
func TestParseDeep(t *testing.T) {
	for _, depth := range []int{1, 198, 199, 200, 201, 298, 299, 300, 301, 450, 1000, 4000, MaxDepth - 1, MaxDepth, MaxDepth + 1, 3 * MaxDepth} {
		text := `{"hook_event_name":"PreToolUse","tool_input":` + nest(depth-2, `"leaf"`) + `,"after":true}`
		doc, err := Parse([]byte(text))
		if depth > MaxDepth {
			require.ErrorIs(t, err, ErrTooDeep, "depth %d", depth)
			continue
		}
		require.NoError(t, err, "depth %d", depth)
		require.Equal(t, text, string(AppendJSON(nil, doc.Root())), "depth %d", depth)
		require.Equal(t, "PreToolUse", doc.String("hook_event_name"))
		doc.Release()
	}
}

// randomJSON writes a random document with deep and shallow branches side by side.
func randomJSON(r *rand.Rand, b *bytes.Buffer, depth, budget int) {
	if depth >= budget || r.Intn(8) == 0 {
		switch r.Intn(4) {
		case 0:
			b.WriteString(`"s` + strconv.Itoa(r.Intn(100)) + `"`)
		case 1:
			b.WriteString(strconv.Itoa(r.Intn(1000)))
		case 2:
			b.WriteString("null")
		default:
			b.WriteString("[]")
		}
		return
	}
	n := 1 + r.Intn(3)
	obj := r.Intn(2) == 0
	if obj {
		b.WriteByte('{')
	} else {
		b.WriteByte('[')
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if obj {
			b.WriteString(`"k` + strconv.Itoa(r.Intn(3)) + `":`) // duplicate keys too
		}
		next := depth + 1
		if i > 0 {
			next = max(depth+1, budget-r.Intn(4)) // a small sibling of the deep branch
		}
		randomJSON(r, b, next, budget)
	}
	if obj {
		b.WriteByte('}')
	} else {
		b.WriteByte(']')
	}
}

// Random trees with many branches around the cut level: the pieces go back where they came
// from (the rendered document is the input), and truncations of them are refused.
func TestParseDeepRandom(t *testing.T) {
	r := rand.New(rand.NewSource(25))
	for i := 0; i < 300; i++ {
		var b bytes.Buffer
		b.WriteString(`{"tool_input":`)
		randomJSON(r, &b, 0, 150+r.Intn(700))
		b.WriteString(`}`)
		text := b.String()
		doc, err := Parse([]byte(text))
		require.NoError(t, err)
		require.Equal(t, text, string(AppendJSON(nil, doc.Root())))
		doc.Release()
		cut := text[:1+r.Intn(len(text)-2)] // empty input is {} by design
		if _, err := Parse([]byte(cut)); err == nil {
			require.NoError(t, json.Unmarshal([]byte(cut), new(any)), "a truncation parsed that is not JSON: %q", cut)
		}
	}
	_, err := Parse([]byte(`[` + nest(400, "1") + `]`))
	require.True(t, errors.Is(err, ErrNotObject), "%v", err)
}
