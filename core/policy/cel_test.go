//go:build !hookexec_nocel

package policy

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/event"
)

// Payloads as Claude Code 2.1.330 sends them (fields of tests/live/claude/payload_fields.json).
const (
	bashPayload = `{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/work/proj","permission_mode":"default",` +
		`"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cd build && sudo rm -rf /tmp/x","description":"clean","timeout":120000},` +
		`"tool_use_id":"toolu_1","prompt_id":"p1","effort":"high"}`
	writePayload = `{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/work/proj","permission_mode":"acceptEdits",` +
		`"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/work/proj/.env","content":"A=1\n"},"tool_use_id":"toolu_2"}`
	promptPayload = `{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/work/proj","hook_event_name":"UserPromptSubmit",` +
		`"prompt":"please push to main","prompt_id":"p2"}`
	postPayload = `{"session_id":"s1","cwd":"/work/proj","hook_event_name":"PostToolUse","tool_name":"Read",` +
		`"tool_input":{"file_path":"a.go"},"tool_response":{"type":"text","file":{"numLines":3}},"duration_ms":4}`
)

func compileCELSpec(t testing.TB, spec Spec) Policy {
	t.Helper()
	p, err := Compile(spec)
	require.NoError(t, err, spec.CEL)
	return p
}

func TestCEL(t *testing.T) {
	for _, tc := range []struct {
		name, expr, payload string
		spec                Spec // Decision and Reason
		decision, reason    string
		answer              string // JSON, "" for none
		err                 string // a substring of the error, "" for none
	}{
		{name: "deny rm -rf", expr: `tool_name == "Bash" && tool_input.command.contains("rm -rf")`, payload: bashPayload,
			spec: Spec{Reason: "no rm -rf"}, decision: "deny", reason: "no rm -rf"},
		{name: "default reason quotes the expression", expr: "tool_name ==\n  \"Bash\"", payload: bashPayload,
			decision: "deny", reason: `policy: tool_name == "Bash"`},
		{name: "ask", expr: `tool_name == "Bash"`, payload: bashPayload, spec: Spec{Decision: "ask", Reason: "sure?"},
			decision: "ask", reason: "sure?"},
		{name: "false is no answer", expr: `tool_name == "Write"`, payload: bashPayload},
		{name: "null is no answer", expr: `null`, payload: bashPayload},
		{name: "a map is the answer", payload: writePayload,
			expr:   `tool_input.file_path.endsWith(".env") ? {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no .env"}} : {}`,
			answer: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no .env"}}`},
		{name: "a rewrite", payload: bashPayload,
			expr:   `{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": tool_input.command.replace("rm -rf", "rm -ri"), "timeout": tool_input.timeout / 2}}}`,
			answer: `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"cd build \u0026\u0026 sudo rm -ri /tmp/x","timeout":60000}}}`},
		{name: "context", payload: promptPayload, expr: `prompt.lowerAscii().split(" ").exists(w, w == "main") ? {"additionalContext": "main is protected", "n": 1.5, "l": [1, true, null]} : {}`,
			answer: `{"additionalContext":"main is protected","l":[1,true,null],"n":1.5}`},
		{name: "an empty map is no answer", payload: promptPayload, expr: `{}`},
		{name: "ternary with null", payload: promptPayload, expr: `prompt == "x" ? {"a": 1} : dyn(null)`},
		{name: "integers are ints", payload: bashPayload, expr: `tool_input.timeout == 120000 && type(tool_input.timeout) == int`, decision: "deny"},
		{name: "cross-type comparison", payload: bashPayload, expr: `tool_input.timeout > 1.5`, decision: "deny"},
		{name: "nested response", payload: postPayload, expr: `tool_response.file.numLines < 10 && duration_ms == 4`, decision: "deny"},
		{name: "has on payload", payload: bashPayload, expr: `has(payload.prompt)`},
		{name: "has on a map field", payload: bashPayload, expr: `has(tool_input.command) && !has(tool_input.file_path)`, decision: "deny"},
		{name: "payload field not declared", payload: bashPayload, expr: `payload.effort == "high"`, decision: "deny"},
		{name: "absent field is an error", payload: bashPayload, expr: `prompt == "x"`, err: "no such attribute(s): prompt"},
		{name: "absent key is an error", payload: bashPayload, expr: `tool_input.file_path == "x"`, err: "no such key: file_path"},
		{name: "event and matcher", payload: bashPayload, expr: `event == "PreToolUse" && matcher == "Bash|Write" && hook_event_name == event`, decision: "deny"},
		{name: "a string at run time", payload: bashPayload, expr: `tool_input.command`, err: "gave a string; want a bool, a map or null"},
		{name: "a list at run time", payload: bashPayload, expr: `dyn(tool_input.command.split(" "))`, err: "gave a list"},
		{name: "a map key not a string", payload: bashPayload, expr: `{1: "a"}`, err: "a map key is a int"},
		{name: "NaN in the answer", payload: bashPayload, expr: `{"x": 0.0 / 0.0}`, err: "x: NaN is not a JSON number"},
		{name: "bytes in the answer", payload: bashPayload, expr: `{"x": b"a"}`, err: "x: a bytes is not JSON"},
		{name: "a runtime error", payload: bashPayload, expr: `tool_input.timeout / 0 > 1`, err: "division by zero"},
		{name: "no payload", payload: ``, expr: `!has(payload.tool_name)`, decision: "deny"},
		{name: "payload not an object", payload: `[1]`, expr: `true`, err: "not an object"},
		{name: "payload not JSON", payload: `{`, expr: `true`, err: "the payload"},
		{name: "commands", payload: bashPayload,
			expr: `commands.exists(c, c[0] == "rm" && c.exists(w, w.startsWith("-") && w.contains("r") && w.contains("f")))`, decision: "deny"},
		{name: "commands written out", payload: bashPayload,
			expr: `commands == [["cd", "build"], ["sudo", "rm", "-rf", "/tmp/x"], ["rm", "-rf", "/tmp/x"]] && command_known`, decision: "deny"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.CEL = tc.expr
			p := compileCELSpec(t, spec)
			payload := []byte(tc.payload)
			in := &Input{Payload: payload, Event: "PreToolUse", Matcher: "Bash|Write", Facts: FactsFor("/work/proj", payload)}
			r, err := Evaluate(context.Background(), p, in)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.decision, r.Decision)
			assert.Equal(t, tc.reason != "" || tc.decision != "", r.Reason != "")
			if tc.reason != "" {
				assert.Equal(t, tc.reason, r.Reason)
			}
			if tc.answer == "" {
				assert.Nil(t, r.Answer)
			} else {
				assert.JSONEq(t, tc.answer, string(r.Answer))
			}
			// Eval gives the same: the answer, or the decision in hookexec's own words.
			b, err := p.Eval(context.Background(), in)
			require.NoError(t, err)
			if r.Decision != "" {
				assert.JSONEq(t, string(r.Canonical()), string(b))
			} else {
				assert.Equal(t, r.Answer, b)
			}
		})
	}
}

func TestCELCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		err  string
	}{
		{Spec{CEL: "tool_name ==\n  )"}, `2:3: Syntax error`},
		{Spec{CEL: `tool_nme == "Bash"`}, `1:1: undeclared reference to 'tool_nme'`},
		{Spec{CEL: `"a string"`}, `the expression is a string; want a bool (true: deny), a map (the answer) or null`},
		{Spec{CEL: `[true]`}, `the expression is a list(bool)`},
		{Spec{CEL: `inside_project(1)`}, `1:15: found no matching overload for 'inside_project' applied to '(int)'`},
		{Spec{CEL: `true`, Decision: "reject"}, `decision "reject": want deny, block, ask, allow or defer`},
		{Spec{CEL: strings.Repeat("x", celMaxSize+1)}, `size`},
		{Spec{CEL: strings.Repeat("(", 300) + "true" + strings.Repeat(")", 300)}, `recursion`},
	} {
		_, err := Compile(tc.spec)
		assert.ErrorContains(t, err, tc.err, tc.spec.CEL)
		if err != nil {
			assert.NotContains(t, err.Error(), "<input>")
			assert.NotContains(t, err.Error(), "__")
		}
	}
}

// A pathological expression stops at the cost limit, and an evaluation stops when its
// context ends, well before either could hang a fire.
func TestCELBounds(t *testing.T) {
	in := &Input{Payload: []byte(bashPayload)}
	explode := `[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c,
		[1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a+b+c+d+e+f > 0))))))`
	t.Run("nested comprehensions", func(t *testing.T) {
		p := compileCELSpec(t, Spec{CEL: explode})
		start := time.Now()
		_, err := Evaluate(context.Background(), p, in)
		assert.ErrorContains(t, err, "the evaluation took longer than 100ms")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), time.Second)
	})
	t.Run("a scan past the cost limit", func(t *testing.T) {
		big, err := json.Marshal(map[string]any{"tool_input": map[string]any{"content": strings.Repeat("x", 12<<20)}})
		require.NoError(t, err)
		p := compileCELSpec(t, Spec{CEL: `tool_input.content.contains("AKIA")`})
		_, err = Evaluate(context.Background(), p, &Input{Payload: big})
		assert.ErrorContains(t, err, "cost limit exceeded")
		ok, err := json.Marshal(map[string]any{"tool_input": map[string]any{"content": strings.Repeat("x", 1<<20)}})
		require.NoError(t, err)
		_, err = Evaluate(context.Background(), p, &Input{Payload: ok})
		assert.NoError(t, err, "1 MB is well within it")
	})
	t.Run("context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		p := compileCELSpec(t, Spec{CEL: `[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, a+b+c > 0)))`})
		_, err := Evaluate(ctx, p, in)
		assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	})
}

// The facts through CEL, against real files, links and a real git repository; each is
// computed only when the expression asks.
func TestCELFacts(t *testing.T) {
	base, proj := tree(t)
	if _, err := exec.LookPath("git"); err == nil {
		git(t, proj, "init", "-q")
		git(t, proj, "checkout", "-q", "-b", "feature")
	}
	payload := func(tool, key, value string) []byte {
		b, err := json.Marshal(map[string]any{"cwd": proj, "tool_name": tool, "tool_input": map[string]any{key: value}})
		require.NoError(t, err)
		return b
	}
	guard := `tool_name == "Write" && !inside_project(tool_input.file_path)`
	for _, tc := range []struct {
		expr, path string
		want       bool
	}{
		{guard, "out/new.txt", true},
		{guard, "in/new.txt", false},
		{guard, "dangle", true},
		{guard, filepath.Join(base, "link-proj", "file"), false},
		{`is_symlink(tool_input.file_path)`, "dangle", true},
		{`is_symlink(tool_input.file_path)`, "file", false},
		{`resolve_path(tool_input.file_path) == project_root + "/sub/x"`, "in/x", true},
		{`project_root == "` + proj + `"`, "x", true},
	} {
		p := compileCELSpec(t, Spec{CEL: tc.expr})
		b := payload("Write", "file_path", tc.path)
		r, err := Evaluate(context.Background(), p, &Input{Payload: b, Facts: FactsFor(proj, b)})
		require.NoError(t, err, tc.expr)
		assert.Equal(t, tc.want, r.Decision == "deny", "%s with %s", tc.expr, tc.path)
	}
	t.Run("git", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git not installed")
		}
		p := compileCELSpec(t, Spec{CEL: `git.branch == "feature" && git.dirty && "dirty" in git && !("x" in git)`})
		b := payload("Bash", "command", "git push")
		r, err := Evaluate(context.Background(), p, &Input{Payload: b, Facts: FactsFor(proj, b)})
		require.NoError(t, err)
		assert.Equal(t, "deny", r.Decision)

		// Without git on PATH the branch is still read (no process), git.dirty is an
		// error, and an expression that does not reach git.dirty never runs git.
		t.Setenv("PATH", t.TempDir())
		for expr, wantErr := range map[string]bool{
			`git.branch == "feature"`:              false,
			`git.branch == "x" && git.dirty`:       false,
			`git.branch == "feature" && git.dirty`: true,
		} {
			p := compileCELSpec(t, Spec{CEL: expr})
			_, err := Evaluate(context.Background(), p, &Input{Payload: b, Facts: FactsFor(proj, b)})
			assert.Equal(t, wantErr, err != nil, "%s: %v", expr, err)
		}
	})
	t.Run("no project directory", func(t *testing.T) {
		p := compileCELSpec(t, Spec{CEL: guard})
		b := payload("Write", "file_path", "x")
		_, err := Evaluate(context.Background(), p, &Input{Payload: b})
		assert.ErrorContains(t, err, "no project directory")
	})
	t.Run("unknown commands", func(t *testing.T) {
		p := compileCELSpec(t, Spec{CEL: `!command_known || commands.exists(c, c[0] == "rm")`})
		for cmd, deny := range map[string]bool{"ls -la": false, "$X -rf /": true, "timeout 5 rm x": true, "echo 'rm -rf /'": false} {
			b := payload("Bash", "command", cmd)
			r, err := Evaluate(context.Background(), p, &Input{Payload: b, Facts: FactsFor(proj, b)})
			require.NoError(t, err)
			assert.Equal(t, deny, r.Decision == "deny", cmd)
		}
	})
}

// The answer contract for a bool: the canonical JSON, read by decide.Read with the zero
// vocabulary, is the decision with its reason on the events that take one.
func TestCanonicalReadByDecide(t *testing.T) {
	pre := event.Lookup("PreToolUse")
	for _, tc := range []struct {
		decision string
		want     decide.Decision
	}{{"deny", decide.Deny}, {"ask", decide.Ask}, {"allow", decide.Allow}, {"defer", decide.Defer}} {
		p := compileCELSpec(t, Spec{CEL: `tool_name == "Bash"`, Decision: tc.decision, Reason: "because"})
		b, err := p.Eval(context.Background(), &Input{Payload: []byte(bashPayload)})
		require.NoError(t, err)
		v := decide.Read(decide.Input{Event: pre, Stdout: b})
		assert.Equal(t, tc.want, v.Decision, tc.decision)
		assert.Empty(t, v.Warnings)
		if tc.decision != "defer" {
			assert.Equal(t, "because", v.Reason, tc.decision)
		}
		assert.Equal(t, tc.decision == "deny", v.Blocked, tc.decision)
	}
	assert.Nil(t, Result{}.Canonical())
}

// A policy that only answers (Rego) is evaluated through Eval.
type answerOnly []byte

func (a answerOnly) Eval(context.Context, *Input) ([]byte, error) { return a, nil }

func TestEvaluateAnswerOnly(t *testing.T) {
	r, err := Evaluate(context.Background(), answerOnly(`{"decision":"block"}`), &Input{})
	require.NoError(t, err)
	assert.Equal(t, Result{Answer: []byte(`{"decision":"block"}`)}, r)
}

// Every field Claude Code sends is a variable (the list is checked against the live
// vectors' record of its payloads).
func TestCELPayloadFields(t *testing.T) {
	b, err := os.ReadFile("../../tests/live/claude/payload_fields.json")
	require.NoError(t, err)
	var rec struct{ Events map[string][]string }
	require.NoError(t, json.Unmarshal(b, &rec))
	require.NotEmpty(t, rec.Events)
	for ev, fields := range rec.Events {
		for _, f := range fields {
			f = strings.TrimSuffix(f, "?")
			if f == "event" {
				continue // FileChanged's event is payload.event: event is the hook's
			}
			_, err := Compile(Spec{CEL: "has(payload." + f + ") && " + f + " != null"})
			assert.NoError(t, err, "%s: %s", ev, f)
		}
	}
}

// One compiled policy evaluated from many goroutines, each with its own payload and facts.
func TestCELConcurrent(t *testing.T) {
	_, proj := tree(t)
	p := compileCELSpec(t, Spec{CEL: `commands.exists(c, c[0] == "rm") || !inside_project(tool_input.file_path)`})
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd, path := "ls", "file"
			if i%2 == 1 {
				cmd, path = "sudo rm -rf x", "out/x"
			}
			b, _ := json.Marshal(map[string]any{"cwd": proj, "tool_input": map[string]any{"command": cmd, "file_path": path}})
			r, err := Evaluate(context.Background(), p, &Input{Payload: b, Facts: FactsFor(proj, b)})
			assert.NoError(t, err)
			assert.Equal(t, i%2 == 1, r.Decision == "deny")
		}()
	}
	wg.Wait()
}

// BenchmarkCEL is a rm -rf rule over a PreToolUse payload: the payload parsed, the
// command's words read by the if-rules' parser, the rule evaluated.
func BenchmarkCEL(b *testing.B) {
	for _, bc := range []struct{ name, expr string }{
		{"commands", `tool_name == "Bash" && commands.exists(c, c[0] == "rm" && c.exists(w, w.startsWith("-") && w.contains("r") && w.contains("f")))`},
		{"contains", `tool_name == "Bash" && tool_input.command.contains("rm -rf")`},
		{"no-match", `tool_name == "Write"`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p, err := Compile(Spec{CEL: bc.expr, Reason: "no rm -rf"})
			if err != nil {
				b.Fatal(err)
			}
			payload := []byte(bashPayload)
			ctx := context.Background()
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				in := &Input{Payload: payload, Event: "PreToolUse", Facts: FactsFor("/work/proj", payload)}
				if _, err := Evaluate(ctx, p, in); err != nil {
					b.Fatal(err)
				}
			}
			// The process's CPU time per evaluation: on a shared machine the wall clock
			// counts other processes' turns too.
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
