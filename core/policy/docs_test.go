//go:build !hookexec_nocel

package policy

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docCEL are the CEL expressions docs/policy.md shows: each ```cel block and the "cel"
// field of each handler in a ```json block.
func docCEL(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/policy.md")
	require.NoError(t, err)
	var out []string
	for _, m := range regexp.MustCompile("(?s)```cel\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		out = append(out, m[1])
	}
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		for _, line := range strings.Split(strings.TrimSpace(m[1]), "\n{") { // one handler or group a line
			if !strings.HasPrefix(line, "{") {
				line = "{" + line
			}
			var v any
			if json.Unmarshal([]byte(line), &v) != nil {
				continue // a fragment spread over lines; the engine's doc test reads those
			}
			collectCEL(v, &out)
		}
	}
	return out
}

func collectCEL(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x["cel"].(string); ok {
			*out = append(*out, s)
		}
		for _, y := range x {
			collectCEL(y, out)
		}
	case []any:
		for _, y := range x {
			collectCEL(y, out)
		}
	}
}

// Every CEL expression of docs/policy.md compiles and evaluates on a real payload without
// a type or evaluation error other than a missing field.
func TestDocCEL(t *testing.T) {
	exprs := docCEL(t)
	require.GreaterOrEqual(t, len(exprs), 3, "docs/policy.md shows CEL")
	_, proj := tree(t)
	for _, e := range exprs {
		p, err := Compile(Spec{CEL: e})
		require.NoError(t, err, e)
		for _, payload := range []string{bashPayload, writePayload, promptPayload} {
			_, err := Evaluate(context.Background(), p, &Input{Payload: []byte(payload), Facts: FactsFor(proj, []byte(payload))})
			if err != nil {
				assert.Regexp(t, `no such (attribute|key)`, err.Error(), e)
			}
		}
	}
}

// The prompt example answers with the branch in the context.
func TestDocCELPrompt(t *testing.T) {
	var prompt string
	for _, e := range docCEL(t) {
		if strings.Contains(e, "'prod'") {
			prompt = e
		}
	}
	require.NotEmpty(t, prompt, "the production reminder is on the page")
	_, proj := tree(t)
	p := compileCELSpec(t, Spec{CEL: prompt})
	for text, want := range map[string]string{
		"deploy to PROD now": `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Production is change-controlled; on branch ."}}`,
		"hello":              "",
	} {
		b, err := json.Marshal(map[string]any{"cwd": proj, "prompt": text})
		require.NoError(t, err)
		r, err := Evaluate(context.Background(), p, &Input{Payload: b, Facts: FactsFor(proj, b)})
		require.NoError(t, err)
		if want == "" {
			assert.Nil(t, r.Answer)
		} else {
			assert.JSONEq(t, want, string(r.Answer)) // not a repository: branch ""
		}
	}
}
