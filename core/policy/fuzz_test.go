//go:build !hookexec_nocel

package policy

import (
	"context"
	"encoding/json"
	"testing"
)

// fuzzExprs are guards over every kind of value a payload field can hold, evaluated
// against arbitrary payloads.
var fuzzExprs = []string{
	`tool_name == "Bash" && tool_input.command.contains("rm -rf")`,
	`commands.exists(c, c.size() > 1 && c[0] == "rm") || !command_known`,
	`has(payload.tool_input) && has(tool_input.file_path) && !inside_project(tool_input.file_path)`,
	`is_symlink(cwd) || resolve_path(cwd) == project_root`,
	`{"hookSpecificOutput": {"permissionDecision": "ask", "updatedInput": payload}}`,
	`payload.exists(k, k.startsWith("tool")) ? {"additionalContext": string(size(payload))} : {}`,
	`tool_input.timeout > 10 || tool_response.size() == 0`,
	`prompt.lowerAscii().split(" ").exists(w, w == "main")`,
	`dyn(tool_input)`,
	`payload.map(k, k).size() >= 0 ? payload : {}`,
}

// FuzzCELEval: no payload and no expression panics an evaluation; it gives an error, no
// answer, a decision with a reason, or a JSON object.
func FuzzCELEval(f *testing.F) {
	for i, p := range []string{bashPayload, writePayload, promptPayload, postPayload, `{}`, `[]`, `{"tool_input":1e400}`,
		`{"tool_input":{"command":"$(x) 'a","timeout":-0.0,"file_path":"../../etc"},"cwd":"rel"}`, `{"payload":{"a":[[[[]]]]}}`} {
		f.Add([]byte(p), uint8(i), "")
	}
	f.Add([]byte(bashPayload), uint8(0), `tool_input.command.split(" ").map(w, w + w).size() > 3`)
	policies := make([]Policy, len(fuzzExprs))
	for i, e := range fuzzExprs {
		p, err := Compile(Spec{CEL: e})
		if err != nil {
			f.Fatalf("%s: %v", e, err)
		}
		policies[i] = p
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, payload []byte, which uint8, expr string) {
		p := policies[int(which)%len(policies)]
		if expr != "" {
			var err error
			if p, err = Compile(Spec{CEL: expr}); err != nil {
				return
			}
		}
		r, err := Evaluate(context.Background(), p, &Input{Payload: payload, Event: "PreToolUse", Facts: FactsFor(dir, payload)})
		if err != nil {
			return
		}
		switch {
		case r.Decision != "":
			if r.Answer != nil || r.Reason == "" {
				t.Fatalf("a decision with an answer or no reason: %+v", r)
			}
		case r.Answer != nil:
			var obj map[string]any
			if err := json.Unmarshal(r.Answer, &obj); err != nil || obj == nil {
				t.Fatalf("the answer is not a JSON object: %s (%v)", r.Answer, err)
			}
		}
	})
}
