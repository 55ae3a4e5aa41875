//go:build !hookexec_nocel

package policy

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The five guards of docs/policy.md, run against payloads that must and must not trip
// them in a real project (with a symbolic link out of it and a git repository on main).
func TestDocGuards(t *testing.T) {
	doc, err := os.ReadFile("../../docs/policy.md")
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```cel\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	require.Len(t, blocks, 5, "docs/policy.md shows five CEL guards")

	_, proj := tree(t)
	require.NoError(t, os.Symlink(".env", filepath.Join(proj, "settings")))
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	git(t, proj, "init", "-q")

	type call struct {
		tool  string
		input map[string]any
		fires bool
	}
	bash := func(cmd string, fires bool) call { return call{"Bash", map[string]any{"command": cmd}, fires} }
	write := func(path string, fires bool) call { return call{"Write", map[string]any{"file_path": path}, fires} }
	cases := [][]call{
		{bash("rm -rf /tmp/x", true), bash("sudo rm -rf ../outside", true), bash("cd x && rm -r out/cache", true),
			bash("$X -rf /", true), bash("rm -rf build", false), bash("rm /tmp/x", false), bash("ls -la /", false)},
		{bash("git push origin main", true), bash("git push origin HEAD:main", true), bash("git push", true),
			bash("git push origin feature", false), bash("git status", false)},
		{write(".env", true), write("config/.env.local", true), write("settings", true),
			write("env.txt", false), {"Edit", map[string]any{"file_path": "a/.envrc"}, false}},
		{write("out/x", true), write("dangle", true), write("in/x", false), write("file", false),
			{"NotebookEdit", map[string]any{"notebook_path": "/tmp/n.ipynb"}, true}},
	} // the fifth, on UserPromptSubmit, below
	for i, block := range blocks[:4] {
		spec := Spec{CEL: block[1]}
		if i == 1 {
			spec.Decision = "ask"
		}
		p, err := Compile(spec)
		require.NoError(t, err, block[1])
		for _, c := range cases[i] {
			b, err := json.Marshal(map[string]any{"cwd": proj, "tool_name": c.tool, "tool_input": c.input})
			require.NoError(t, err)
			r, err := Evaluate(context.Background(), p, &Input{Payload: b, Event: "PreToolUse", Facts: FactsFor(proj, b)})
			require.NoError(t, err, "%s %v", c.tool, c.input)
			assert.Equal(t, c.fires, r.Decision != "", "guard %d: %s %v", i+1, c.tool, c.input)
		}
	}
	p, err := Compile(Spec{CEL: blocks[4][1]})
	require.NoError(t, err)
	for prompt, want := range map[string]string{
		"deploy to PROD now": `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Production is change-controlled; on branch main."}}`,
		"hello":              "",
	} {
		b, _ := json.Marshal(map[string]any{"cwd": proj, "prompt": prompt, "hook_event_name": "UserPromptSubmit"})
		r, err := Evaluate(context.Background(), p, &Input{Payload: b, Event: "UserPromptSubmit", Facts: FactsFor(proj, b)})
		require.NoError(t, err)
		if want == "" {
			assert.Nil(t, r.Answer)
		} else {
			assert.JSONEq(t, want, string(r.Answer))
		}
	}
}
