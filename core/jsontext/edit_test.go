package jsontext

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const settings = `{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "a >&2"}]
            }
        ]
    },
    "zeta": [1, 2]
}
`

func TestEditsKeepLayout(t *testing.T) {
	cases := []struct {
		name string
		in   string
		edit func([]byte) ([]byte, error)
		want string
	}{
		{"set new key last, file's indent", settings,
			func(b []byte) ([]byte, error) { return Set(b, true, K("disableAllHooks")) },
			`{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "a >&2"}]
            }
        ]
    },
    "zeta": [1, 2],
    "disableAllHooks": true
}
`},
		{"replace in place", settings,
			func(b []byte) ([]byte, error) { return Set(b, "sonnet", K("model")) },
			`{
    "model": "sonnet",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "a >&2"}]
            }
        ]
    },
    "zeta": [1, 2]
}
`},
		{"append an object to a multi-line array", settings,
			func(b []byte) ([]byte, error) {
				return Insert(b, -1, Object{{"matcher", "Write"}, {"hooks", []any{Object{{"type", "command"}, {"command", "fmt <<x>>"}}}}}, K("hooks"), K("PreToolUse"))
			},
			`{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "a >&2"}]
            },
            {
                "matcher": "Write",
                "hooks": [
                    {
                        "type": "command",
                        "command": "fmt <<x>>"
                    }
                ]
            }
        ]
    },
    "zeta": [1, 2]
}
`},
		{"insert inline before the first", settings,
			func(b []byte) ([]byte, error) { return Insert(b, 0, 0, K("zeta")) },
			`{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "a >&2"}]
            }
        ]
    },
    "zeta": [0, 1, 2]
}
`},
		{"create the missing array and its parents", `{"a": 1}`,
			func(b []byte) ([]byte, error) { return Insert(b, -1, "x", K("hooks"), K("Stop")) },
			`{"a": 1, "hooks": {"Stop": ["x"]}}`},
		{"into an empty multi-line object", "{\n}\n",
			func(b []byte) ([]byte, error) { return Set(b, []string{"guard"}, K("disabledHooks")) },
			"{\n  \"disabledHooks\": [\n    \"guard\"\n  ]\n}\n"},
		{"delete a middle member", settings,
			func(b []byte) ([]byte, error) { return Delete(b, K("hooks")) },
			`{
    "model": "opus",
    "zeta": [1, 2]
}
`},
		{"delete the first member", settings,
			func(b []byte) ([]byte, error) { return Delete(b, K("model")) },
			`{
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "a >&2"}]
            }
        ]
    },
    "zeta": [1, 2]
}
`},
		{"delete the last element", settings,
			func(b []byte) ([]byte, error) { return Delete(b, K("zeta"), I(1)) },
			`{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "a >&2"}]
            }
        ]
    },
    "zeta": [1]
}
`},
		{"delete the only element", `{"a": [{"b": 1}]}`,
			func(b []byte) ([]byte, error) { return Delete(b, K("a"), I(0)) },
			`{"a": []}`},
		{"tabs", "{\n\t\"a\": 1\n}",
			func(b []byte) ([]byte, error) { return Set(b, Object{{"x", 1}}, K("b")) },
			"{\n\t\"a\": 1,\n\t\"b\": {\n\t\t\"x\": 1\n\t}\n}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.edit([]byte(c.in))
			require.NoError(t, err)
			assert.Equal(t, c.want, string(got))
			assert.True(t, json.Valid(got))
		})
	}
}

func TestEditErrors(t *testing.T) {
	_, err := Set([]byte(`{"a": 1`), 1, K("b"))
	assert.Error(t, err, "invalid JSON is never edited")
	_, err = Delete([]byte(`{"a": 1}`), K("b"))
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = Insert([]byte(`{"a": 1}`), -1, 2, K("a"))
	assert.ErrorContains(t, err, "not an array")
	_, err = Set([]byte(`{"a": 1}`), 2, K("a"), K("b"))
	assert.ErrorContains(t, err, "a is not an object")
}

func TestGetLenParsePath(t *testing.T) {
	b := []byte(settings)
	raw, err := Get(b, K("hooks"), K("PreToolUse"), I(0), K("matcher"))
	require.NoError(t, err)
	assert.Equal(t, `"Bash"`, string(raw))
	n, err := Len(b, K("hooks"), K("PreToolUse"), I(0), K("hooks"))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	p, err := ParsePath("hooks.PreToolUse[0].hooks[1]")
	require.NoError(t, err)
	assert.Equal(t, []Seg{K("hooks"), K("PreToolUse"), I(0), K("hooks"), I(1)}, p)
	_, err = ParsePath("a..b")
	assert.Error(t, err)
}
