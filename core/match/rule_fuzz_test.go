package match

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fastjson"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzRule compiles arbitrary "if" rules and tests them against arbitrary tool calls.
// Properties: neither step panics; a compile error wraps ErrRule; a compiled rule keeps
// its text; Match is deterministic; a rule naming a whole tool matches every call of that
// tool; a Bash rule fails open: a command line the shell parser rejects matches every
// Bash rule; and a wrapper never hides a match: a line a Bash rule selects is still
// selected when run through bash -c or sh -c. Under plain go test only the seeds run.
func FuzzRule(f *testing.F) {
	for _, s := range [][3]string{
		{"Bash(git *)", "Bash", "git status"}, {"Bash(git commit:*)", "Bash", "FOO=1 git commit -m x"},
		{"Bash(rm *)", "Bash", "echo $(rm -rf /)"}, {"Bash(npm test)", "Bash", "cd x && npm test | tee log"},
		{"Bash(ls *)", "Bash", "ls 'unterminated"}, {"Edit(*.ts)", "Edit", "/p/src/a.ts"},
		{"Read(./secrets/**)", "Read", "secrets/k.pem"}, {"Read(~/.ssh/**)", "Read", "/home/u/.ssh/id"},
		{"WebFetch(domain:example.com)", "WebFetch", "https://example.com/x"}, {"mcp__github__*", "mcp__github__create", ""},
		{"Bash", "Bash", "anything"}, {"Bash()", "Bash", ""}, {"Bash(a) && Bash(b)", "Bash", "a"},
		{"Edit([)", "Edit", "["}, {"Grep(**/*.go)", "Grep", "a/b.go"}, {"Task(*review*)", "Task", "code review"},
		{"Bash(rm *)", "Bash", "sudo -u x timeout 5 /bin/rm -rf /"}, {"Bash(rm *)", "Bash", "find . -exec rm {} +"},
		{"Bash(rm *)", "Bash", "bash -o pipefail -c 'xargs rm'"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, rule, tool, value string) {
		r, err := CompileRule(rule, "/p", "/home/u")
		if err != nil {
			require.True(t, errors.Is(err, ErrRule), "error %v wraps ErrRule", err)
			require.Nil(t, r)
			return
		}
		require.Equal(t, rule, r.String())
		// The tool input as a host sends it: JSON text (encoding/json makes value valid UTF-8).
		doc, err := json.Marshal(map[string]string{"command": value, "file_path": value, "url": value, "prompt": value})
		require.NoError(t, err)
		input := fastjson.MustParseBytes(doc)
		value = string(input.GetStringBytes("command"))
		first := r.Match(tool, input, "/p/sub")
		require.Equal(t, first, r.Match(tool, input, "/p/sub"), "Match is deterministic")
		if r.kind == ruleTool && !strings.Contains(r.tool, "*") {
			require.True(t, r.Match(r.tool, input, "/p/sub"), "%q matches every call of %q", rule, r.tool)
		}
		if r.kind == ruleBash && r.tool == "Bash" {
			if _, perr := syntax.NewParser().Parse(strings.NewReader(value), ""); perr != nil {
				require.True(t, r.Match("Bash", input, "/p/sub"), "unparseable %q fails open for %q", value, rule)
			}
			if first && tool == "Bash" {
				if q, err := syntax.Quote(value, syntax.LangBash); err == nil {
					for _, sh := range []string{"bash -c ", "sh -e -c "} {
						doc, err := json.Marshal(map[string]string{"command": sh + q})
						require.NoError(t, err)
						require.True(t, r.Match("Bash", fastjson.MustParseBytes(doc), "/p/sub"), "%q selects %q but not %q", rule, value, sh+q)
					}
				}
			}
		}
	})
}
