package rego_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/policy"
	_ "github.com/hookexec/hookexec/core/policy/rego"
)

func compile(t testing.TB, path, query string) policy.Policy {
	t.Helper()
	p, err := policy.Compile(policy.Spec{Rego: filepath.Join("testdata", path), Query: query})
	require.NoError(t, err)
	return p
}

func bash(command string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": "/p", "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command}})
	return b
}

func prompt(text string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": "/p", "hook_event_name": "UserPromptSubmit", "prompt": text})
	return b
}

func write(path string) []byte {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": path, "content": "x"}})
	return b
}

func pre(decision, reason string) string {
	return fmt.Sprintf(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":%q,"permissionDecisionReason":%q}}`, decision, reason)
}

func TestEval(t *testing.T) {
	for _, tc := range []struct {
		name, path, query string
		payload           []byte
		want              string // "" for no answer
		err               string // a substring of the error
	}{
		{name: "deny with reason", path: "guard", query: "data.guard.decision", payload: bash("rm -rf /"),
			want: pre("deny", "rm -rf is not allowed here")},
		{name: "deny after a separator", path: "guard", query: "data.guard.decision", payload: bash("cd /tmp && rm -fr x"),
			want: pre("deny", "rm -rf is not allowed here")},
		{name: "ask", path: "guard", query: "data.guard.decision", payload: bash("git push origin main"),
			want: pre("ask", "pushing to main")},
		{name: "allow", path: "guard", query: "data.guard.decision", payload: bash("git status --short"),
			want: pre("allow", "read-only git")},
		{name: "rewrite via updatedInput", path: "guard", query: "data.guard.decision", payload: bash("npm install left-pad"),
			want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"pnpm install left-pad"}}}`},
		{name: "context", path: "guard", query: "data.guard.decision", payload: prompt("please install the deps"),
			want: `{"hookSpecificOutput":{"additionalContext":"the project uses pnpm","hookEventName":"UserPromptSubmit"}}`},
		{name: "undefined is no answer", path: "guard", query: "data.guard.decision", payload: bash("ls -l")},
		{name: "undefined for another tool", path: "guard", query: "data.guard.decision", payload: write("/p/a.go")},
		{name: "bool true", path: "guard", query: "data.guard.deny_env", payload: write("/p/.env"),
			want: `{"decision":"deny","reason":"policy: data.guard.deny_env"}`},
		{name: "bool false is no answer", path: "guard", query: "data.guard.deny_env", payload: write("/p/main.go")},
		{name: "a directory of modules", path: "dir", query: "data.dir.decision", payload: write("/p/.env"),
			want: `{"decision":"block","reason":"no writes to .env"}`},
		{name: "a directory of modules, no match", path: "dir", query: "data.dir.decision", payload: write("/p/x.go")},
		{name: "conflict", path: "guard", query: "data.guard.clash", payload: prompt("conflict"),
			err: "eval_conflict_error"},
		{name: "strict builtin error", path: "guard", query: "data.guard.strict", payload: prompt("seven"),
			err: "to_number"},
		{name: "a string is no answer", path: "guard", query: "data.guard.name", payload: prompt("x"),
			err: "data.guard.name is a string"},
		{name: "an array is no answer", path: "guard", query: "[1, 2]", payload: prompt("x"),
			err: "is an array"},
		{name: "several results", path: "guard", query: "x := [1, 2][_]", payload: prompt("x"),
			err: "has 2 results"},
		{name: "several expressions", path: "guard", query: "true; true", payload: prompt("x"),
			err: "has 2 expressions"},
		{name: "payload not JSON", path: "guard", query: "data.guard.decision", payload: []byte(`{"tool_name":`),
			err: "the payload is not JSON"},
		{name: "payload empty", path: "guard", query: "data.guard.decision", payload: nil,
			err: "the payload is not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, tc.path, tc.query)
			out, err := p.Eval(context.Background(), &policy.Input{Payload: tc.payload, Event: "PreToolUse"})
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Nil(t, out)
				return
			}
			require.NoError(t, err)
			if tc.want == "" {
				assert.Nil(t, out)
				return
			}
			assert.JSONEq(t, tc.want, string(out))
		})
	}
}

func TestCompileErrors(t *testing.T) {
	abs := func(p string) string { a, _ := filepath.Abs(filepath.Join("testdata", p)); return a }
	for _, tc := range []struct {
		name, path, query string
		want              []string // substrings of the error, in order
	}{
		{name: "compile error with file:line", path: abs("broken"), query: "data.broken.x",
			want: []string{abs("broken/b.rego") + ":4: ", "undefined function undefined_function", "(rego_type_error)"}},
		{name: "parse error with file:line", path: abs("parse.rego"), query: "data.parse.deny",
			want: []string{abs("parse.rego") + ":5: ", "(rego_parse_error)"}},
		{name: "query error", path: abs("guard"), query: "data.guard[",
			want: []string{"query:1:", "(rego_parse_error)"}},
		{name: "query calls an unknown function", path: abs("guard"), query: "nope(1)",
			want: []string{"query:1:", "undefined function nope"}},
		{name: "no such path", path: abs("missing"), query: "data.x",
			want: []string{"rego: ", "missing", "no such file or directory"}},
		{name: "a directory with no module", path: abs("empty"), query: "data.x",
			want: []string{"no .rego module in the directory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.Compile(policy.Spec{Rego: tc.path, Query: tc.query})
			require.Error(t, err)
			msg := err.Error()
			rest := msg
			for _, w := range tc.want {
				i := indexOf(rest, w)
				require.GreaterOrEqual(t, i, 0, "%q not in %q (in order)", w, msg)
				rest = rest[i+len(w):]
			}
		})
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// A result of true decides as the spec says, as a CEL policy's true: Decide gives the
// decision (Eval its canonical JSON), false and undefined give nothing.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		spec    policy.Spec
		payload []byte
		want    policy.Result
	}{
		{policy.Spec{Query: "data.guard.deny_env"}, write("/p/.env"), policy.Result{Decision: "deny", Reason: "policy: data.guard.deny_env"}},
		{policy.Spec{Query: "data.guard.deny_env", Decision: "ask", Reason: "secrets"}, write("/p/.env"), policy.Result{Decision: "ask", Reason: "secrets"}},
		{policy.Spec{Query: "data.guard.deny_env", Decision: "ask"}, write("/p/x"), policy.Result{}},
		{policy.Spec{Query: "data.guard.decision"}, bash("ls"), policy.Result{}},
		{policy.Spec{Query: "data.guard.decision"}, bash("rm -rf /"), policy.Result{Answer: []byte(mustCompact(pre("deny", "rm -rf is not allowed here")))}},
	} {
		t.Run(tc.spec.Query+" "+string(tc.payload), func(t *testing.T) {
			tc.spec.Rego = filepath.Join("testdata", "guard")
			p, err := policy.Compile(tc.spec)
			require.NoError(t, err)
			got, err := policy.Evaluate(context.Background(), p, &policy.Input{Payload: tc.payload})
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := policy.Compile(policy.Spec{Rego: "testdata/guard", Query: "data.guard.deny_env", Decision: "block"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `decision "block": want deny, ask, allow or defer`)
}

// The language registers itself; the query must be given (policy.Compile's check).
func TestRegistered(t *testing.T) {
	assert.Contains(t, policy.Languages(), "rego")
	_, err := policy.Compile(policy.Spec{Rego: "testdata/guard"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `needs "query"`)
}

// Concurrent fires of one prepared policy, each with its own payload, event and facts:
// each sees its own (they travel in the evaluation's context). Run under -race.
func TestConcurrentFires(t *testing.T) {
	guard := compile(t, "guard", "data.guard.decision")
	facts := compile(t, "guard", "data.guard.facts")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				event := fmt.Sprintf("Event%d", g)
				matcher := fmt.Sprintf("m%d-%d", g, i)
				root := fmt.Sprintf("/nonexistent-%d-%d", g, i)
				out, err := facts.Eval(context.Background(), &policy.Input{Payload: prompt("x"), Event: event, Matcher: matcher,
					Facts: policy.NewFacts(root, "", "")})
				if err != nil {
					errs <- err
					return
				}
				if want := fmt.Sprintf(`{"event":%q,"matcher":%q,"root":%q}`, event, matcher, root); string(out) != want {
					errs <- fmt.Errorf("got %s, want %s", out, want)
					return
				}
				cmd, want := "ls", ""
				if i%2 == 0 {
					cmd, want = "rm -rf /", pre("deny", "rm -rf is not allowed here")
				}
				out, err = guard.Eval(context.Background(), &policy.Input{Payload: bash(cmd)})
				if err != nil {
					errs <- err
					return
				}
				if want == "" && out != nil || want != "" && string(out) != mustCompact(want) {
					errs <- fmt.Errorf("%s: got %s, want %s", cmd, out, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func mustCompact(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// A policy that would run for minutes ends when the fire's context does.
func TestCancelSlowPolicy(t *testing.T) {
	p := compile(t, "guard", "data.guard.slow")
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		is   error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, context.DeadlineExceeded},
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			start := time.Now()
			out, err := p.Eval(ctx, &policy.Input{Payload: prompt("x")})
			took := time.Since(start)
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.is), "%v", err)
			assert.Nil(t, out)
			// 50 ms to the deadline, then one cancellation check: generous for a loaded CI.
			assert.Less(t, took, 2*time.Second)
			t.Logf("returned after %s: %v", took, err)
		})
	}
}
