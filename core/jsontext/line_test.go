package jsontext

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLine(t *testing.T) {
	doc := `{
  "disableAllHooks": false,
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "a \"}\" [x]"},
          {
            "type": "command",
            "command": "b"
          }
        ]
      },
      {"matcher": "(", "command": "c"}
    ],
    "St\u006fp": [{"command": "d"}]
  }
}`
	cases := []struct {
		path string
		want int
	}{
		{"hooks", 3},
		{"hooks.PreToolUse", 4},
		{"hooks.PreToolUse[0]", 5},
		{"hooks.PreToolUse[0].matcher", 6},
		{"hooks.PreToolUse[0].hooks[0]", 8},
		{"hooks.PreToolUse[0].hooks[1]", 9},
		{"hooks.PreToolUse[0].hooks[1].command", 11},
		{"hooks.PreToolUse[1].matcher", 15},
		{"hooks.Stop[0]", 17},                    // an escaped key is compared by its value
		{"hooks.PreToolUse[0].hooks[1].nope", 9}, // a missing field: the deepest part found
		{"hooks.PreToolUse[7]", 4},
		{"", 0},
		{"nothing", 0},
		{"hooks.PreToolUse[x]", 0},
	}
	index := NewLines([]byte(doc)) // one walk answers what Line answers per call
	for _, c := range cases {
		assert.Equal(t, c.want, Line([]byte(doc), c.path), c.path)
		assert.Equal(t, c.want, index.Line(c.path), "index: "+c.path)
	}
	assert.Equal(t, 0, Line([]byte("version: 1\n"), "hooks"), "not JSON")
	assert.Equal(t, 0, NewLines([]byte("version: 1\n")).Line("hooks"), "not JSON")
	assert.Equal(t, 0, Line([]byte(`{"hooks": [1, 2`), "hooks[5]"), "truncated: not JSON, no lines")
	dup := []byte("{\n\"a\": 1,\n\"a\": 2}")
	assert.Equal(t, 2, Line(dup, "a"), "a duplicate key: the first, as the config reader takes it")
	assert.Equal(t, Line(dup, "a"), NewLines(dup).Line("a"))
}
