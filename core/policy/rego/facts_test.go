package rego_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/policy"
)

// project makes a git repository on branch "feature" with one commit, a directory outside
// it and a link inside it pointing out; it returns the project and the outside directory,
// both with their links resolved. Real git, as the facts run it.
func project(t *testing.T) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	dir, out := filepath.Join(base, "p"), filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.MkdirAll(out, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	require.NoError(t, os.Symlink(out, filepath.Join(dir, "out")))
	git(t, dir, "init", "-q", "-b", "feature")
	git(t, dir, "add", ".")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
	return dir, out
}

func toolCall(tool string, input map[string]any, cwd string) []byte {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "cwd": cwd})
	return b
}

func TestFacts(t *testing.T) {
	dir, out := project(t)
	file := func(p any) []byte { return toolCall("Write", map[string]any{"file_path": p}, dir) }
	line := func(c string) []byte { return toolCall("Bash", map[string]any{"command": c}, dir) }
	for _, tc := range []struct {
		query   string
		payload []byte
		dirty   bool // an untracked file first
		want    string
		err     string
	}{
		{query: "project_root", payload: file("a.txt"), want: `"` + dir + `"`},
		{query: "resolve_path", payload: file("out/new.txt"), want: `"` + filepath.Join(out, "new.txt") + `"`},
		{query: "inside_project", payload: file("a.txt"), want: "true"},
		{query: "inside_project", payload: file(dir), want: "true"},
		{query: "inside_project", payload: file("../outside/x"), want: "false"},
		{query: "inside_project", payload: file("out/x"), want: "false"},
		{query: "inside_project", payload: file(7), err: "a path is a string, not number"},
		{query: "inside_project", payload: file(""), err: "empty path"},
		{query: "is_symlink", payload: file("out"), want: "true"},
		{query: "is_symlink", payload: file("a.txt"), want: "false"},
		{query: "is_symlink", payload: file("missing"), want: "false"},
		{query: "git_branch", payload: file("a.txt"), want: `"feature"`},
		{query: "git_dirty", payload: file("a.txt"), want: "false"},
		{query: "git_dirty", payload: file("a.txt"), dirty: true, want: "true"},
		{query: "commands", payload: line("sudo rm -rf x && echo 'a b'"), want: `[["sudo","rm","-rf","x"],["rm","-rf","x"],["echo","a b"]]`},
		{query: "commands", payload: file("a.txt"), want: `[]`},
		{query: "command_known", payload: line("ls; rm x"), want: "true"},
		{query: "command_known", payload: line("$CMD -rf x"), want: "false"},
		{query: "event", payload: file("a.txt"), want: `"PreToolUse"`},
		{query: "matcher", payload: file("a.txt"), want: `"Write|Edit"`},
		{query: "deny", payload: file("a.txt"), want: "false"},
		{query: "deny", payload: file("out/a.txt"), want: "true"},
		{query: "deny", payload: line("rm -rf build"), want: "false"},
		{query: "deny", payload: line("cd /tmp; rm -rf " + out), want: "true"},
		{query: "deny", payload: line("sudo rm -rf ../outside"), want: "true"},
		{query: "deny", payload: line("$CMD x"), want: "true"},
	} {
		t.Run(tc.query+" "+string(tc.payload), func(t *testing.T) {
			if tc.dirty {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "new.txt"), nil, 0o644))
				t.Cleanup(func() { os.Remove(filepath.Join(dir, "new.txt")) })
			}
			// deny is a bool query (true decides); a fact is wrapped in an answer to be read.
			query := "data.facts." + tc.query
			isBool := tc.query == "deny"
			if !isBool {
				query = `{"v": ` + query + `}`
			}
			p := compile(t, "facts", query)
			in := &policy.Input{Payload: tc.payload, Event: "PreToolUse", Matcher: "Write|Edit", Facts: policy.FactsFor(dir, tc.payload)}
			got, err := policy.Evaluate(context.Background(), p, in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			if isBool {
				assert.Equal(t, tc.want == "true", got.Decision == "deny", "%+v", got)
				return
			}
			assert.JSONEq(t, `{"v":`+tc.want+`}`, string(got.Answer))
		})
	}
}

// A fact is computed only when a rule asks for it: with no project directory the project
// facts are errors, and a policy that asks none of them evaluates.
func TestFactsLazy(t *testing.T) {
	payload := toolCall("Bash", map[string]any{"command": "ls"}, "/")
	in := &policy.Input{Payload: payload, Facts: policy.FactsFor("", payload)}
	out, err := compile(t, "facts", "data.facts.no_facts").Eval(context.Background(), in)
	require.NoError(t, err)
	assert.JSONEq(t, `{"decision":"block"}`, string(out))
	_, err = compile(t, "facts", "data.facts.project_root").Eval(context.Background(), in)
	assert.ErrorIs(t, err, policy.ErrNoProject)
	// No facts at all (an embedder's Input): a fact fails the evaluation.
	_, err = compile(t, "facts", "data.facts.project_root").Eval(context.Background(), &policy.Input{Payload: payload})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no facts for this evaluation")
}
