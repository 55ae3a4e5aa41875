package rego_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hookexec/hookexec/core/policy"
)

// FuzzEval: any payload, through the guard's decision and its facts, never panics; an
// answer is JSON (an object, true or false) and an error comes without one.
func FuzzEval(f *testing.F) {
	for _, seed := range [][]byte{bash("rm -rf /"), bash("npm i"), prompt("install"), write("/p/.env"),
		[]byte(`{}`), []byte(`[]`), []byte(`null`), []byte(`{"tool_name":"Bash","tool_input":{"command":7}}`),
		[]byte(`{"tool_name":"Bash","tool_input":"rm -rf"}`), []byte(`{"prompt":"\u0000\ud800"}`), []byte(`{"a":`), nil} {
		f.Add(seed)
	}
	guard := compile(f, "guard", "data.guard.decision")
	env := compile(f, "guard", "data.guard.deny_env")
	dir := compile(f, "dir", "data.dir.decision")
	facts := compile(f, "guard", "data.guard.facts")
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, p := range []policy.Policy{guard, env, dir, facts} {
			out, err := p.Eval(context.Background(), &policy.Input{Payload: payload, Event: "PreToolUse"})
			if err != nil {
				if out != nil {
					t.Fatalf("an answer with an error: %s, %v", out, err)
				}
				continue
			}
			if out != nil && !json.Valid(out) {
				t.Fatalf("not JSON: %q", out)
			}
		}
	})
}
