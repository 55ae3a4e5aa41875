package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/template"
)

// The property of "a value never decides": for any answer a hook given a template value
// prints (any JSON built from every word a reader of hook answers knows, in every dialect,
// on every event, with any exit code and stderr), the fire's result is never more
// permissive than the same fire without that hook's answer: no allow it did not have, the
// input, permissions, tool output and worktree it had, at least its blocks and stops.
// The oracle is the aggregation itself, run without the hook.

// answerWords are the string literals of the code that reads hook answers (core/decide and
// core/dialect): every field name and value any dialect reads is among them, including
// ones added after this test was written.
var answerWords = sync.OnceValues(func() ([]string, error) {
	ident := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,39}$`)
	seen := map[string]bool{}
	for _, dir := range []string{"../decide", "../dialect"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			return nil, err
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				return nil, err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && ident.MatchString(s) {
						seen[s] = true
					}
				}
				return true
			})
		}
	}
	words := make([]string, 0, len(seen))
	for w := range seen {
		words = append(words, w)
	}
	slices.Sort(words)
	return words, nil
})

// answerGen builds random hook answers from the words.
type answerGen struct {
	r     *rand.Rand
	words []string
}

// grantWords are drawn half the time, so that the shapes that grant are hit far more often
// than chance would; each is also in answerWords (the test checks).
var grantWords = []string{"hookSpecificOutput", "permissionDecision", "decision", "allow", "approve", "behavior",
	"updatedInput", "modified_args", "updatedPermissions", "updatedToolOutput", "updatedMCPToolOutput", "retry",
	"classifierContext", "initialUserMessage", "worktreePath", "tool_input", "permission", "continue", "cancel"}

func (g *answerGen) word() string {
	if g.r.IntN(2) == 0 {
		return grantWords[g.r.IntN(len(grantWords))]
	}
	return g.words[g.r.IntN(len(g.words))]
}

// decisionWords are what the decision fields of every dialect hold.
var decisionWords = []string{"allow", "approve", "deny", "block", "ask", "defer", "modify"}

// value is a random value for key: the words a field holds come more often where the key
// is one that decides, so that the shapes that grant are hit far more often than chance.
func (g *answerGen) value(key string, depth int) any {
	switch {
	case depth < 3 && (key == "hookSpecificOutput" || key == "updatedInput" || key == "modified_args" || key == "tool_input") && g.r.IntN(4) > 0:
		return g.object(depth + 1)
	case strings.Contains(strings.ToLower(key), "decision") || key == "behavior" || key == "permission":
		if g.r.IntN(3) > 0 {
			return decisionWords[g.r.IntN(len(decisionWords))]
		}
	}
	switch n := g.r.IntN(10); {
	case n < 4:
		return g.word()
	case n == 4:
		return g.r.IntN(2) == 0
	case n == 5:
		return g.r.IntN(5) - 1
	case n == 6:
		return nil
	case n == 7 && depth < 3:
		return []any{g.value("", depth+1), g.word()}
	default:
		if depth >= 3 {
			return g.word()
		}
		return g.object(depth + 1)
	}
}

func (g *answerGen) object(depth int) map[string]any {
	m := map[string]any{}
	for i := range g.r.IntN(6) + 1 {
		k := g.word()
		if i == 0 {
			k = grantWords[g.r.IntN(len(grantWords))]
		}
		m[k] = g.value(k, depth)
	}
	return m
}

// answer is one hook outcome: exit code, stdout and stderr.
func (g *answerGen) answer() (int, []byte, []byte) {
	exit := []int{0, 0, 0, 1, 2, 3}[g.r.IntN(6)]
	text := func() []byte {
		switch g.r.IntN(10) {
		case 0:
			return nil
		case 1:
			return []byte(g.word())
		}
		b, _ := json.Marshal(g.object(0))
		return b
	}
	return exit, text(), text()
}

// templatedHook is a command hook of dialect d given a template value.
func templatedHook(t testing.TB, d *dialect.Dialect, r *rand.Rand) *job {
	src := valueShapes[r.IntN(len(valueShapes))]
	cmd, err := template.Compile(src)
	require.NoError(t, err)
	var paths []payload.Path
	for _, name := range cmd.Placeholders() {
		path, err := payload.Compile(name)
		require.NoError(t, err)
		paths = append(paths, path)
	}
	h := &hook{cfg: &config.Hook{Hook: dialect.Hook{Dialect: d, Type: "command", Command: src}, Cmd: cmd, CmdPaths: paths}}
	// The payload-filled part of the environment, as a fire of a Write builds it.
	values := append(h.templateValues(), h.envValues([]string{"HOOK_EVENT=PreToolUse", "HOOK_TOOL=Write", `HOOK_ARGS={"file_path":"x"}`, "HOOK_PATH=x", "FILE_PATH=x", "TOOL_NAME=Write"})...)
	require.NotEmpty(t, values, "%s is given values", src)
	return &job{h: h, values: values}
}

// valueShapes are hooks given values: a placeholder, and payload-filled variables read in
// spellings no placeholder rewrite sees (issue 25, hole 1).
var valueShapes = []string{
	"echo <<tool_input.description>>",
	`cat "${FILE_PATH:-}"`,
	`printenv HOOK_ARGS | jq .`,
	`env | tail -1`,
	`python3 -c 'import os; print(os.environ["HOOK_PATH"])'`,
}

// neverMorePermissive checks the property for one generated fire and reports whether the
// templated hook's answer granted or rewrote something before the rule removed it.
func neverMorePermissive(t testing.TB, g *answerGen) (granted bool) {
	dialects := dialect.All()
	names := event.Names()
	ev := event.Lookup(names[g.r.IntN(len(names))])
	if g.r.IntN(2) == 0 {
		// Half the fires are the ones guards are for.
		ev = event.Lookup([]string{"PreToolUse", "PermissionRequest", "PostToolUse", "PermissionDenied"}[g.r.IntN(4)])
	}
	read := func(cfg *config.Hook) decide.Verdict {
		exit, stdout, stderr := g.answer()
		return readCommand(cfg, ev, cfg.Dialect.EventName(ev.Name, ev.Name), exit, stdout, stderr, "")
	}
	var others []decide.Verdict
	for range g.r.IntN(3) {
		others = append(others, read(&config.Hook{Hook: dialect.Hook{Dialect: dialects[g.r.IntN(len(dialects))], Type: "command"}}))
	}
	j := templatedHook(t, dialects[g.r.IntN(len(dialects))], g.r)
	cfg := j.h.cfg
	j.h.event, j.ev = ev, ev
	v := read(cfg)
	before := v
	j.finish(&HookResult{}, &v) // what execute does with every verdict
	granted = !slices.Equal(before.Warnings, v.Warnings)

	at := g.r.IntN(len(others) + 1)
	with := slices.Insert(slices.Clone(others), at, v)
	input := []byte(`{"command":"ls","description":"x"}`)
	s0, s1 := decide.Aggregate(input, others), decide.Aggregate(input, with)
	ctx := func() string {
		return fmt.Sprintf("%s, dialect %s, hook %s, decision %s, output %s", ev.Name, cfg.Dialect.Name, cfg.Command, before.Decision, before.Output)
	}
	if s1.Decision == decide.Allow {
		require.Equal(t, decide.Allow, s0.Decision, "an allow from the templated hook: %s", ctx())
	}
	require.GreaterOrEqual(t, s1.Decision, s0.Decision, ctx())
	require.True(t, s1.Blocked || !s0.Blocked, ctx())
	require.True(t, !s1.Continue || s0.Continue, ctx())
	require.True(t, s1.Interrupt || !s0.Interrupt, ctx())
	require.True(t, bytes.Equal(s0.UpdatedInput, s1.UpdatedInput), "input rewritten: %s", ctx())
	require.True(t, bytes.Equal(s0.UpdatedPermissions, s1.UpdatedPermissions), "permissions updated: %s", ctx())
	require.True(t, bytes.Equal(s0.UpdatedToolOutput, s1.UpdatedToolOutput), "tool output replaced: %s", ctx())
	require.Equal(t, s0.Retry, s1.Retry, ctx())
	require.Equal(t, s0.ClassifierContext, s1.ClassifierContext, ctx())
	require.Equal(t, s0.InitialUserMessage, s1.InitialUserMessage, ctx())
	require.Equal(t, s0.WatchPaths, s1.WatchPaths, "a watched path: %s", ctx())
	if s1.WorktreePath != s0.WorktreePath {
		require.True(t, s1.Blocked, "worktree path set: %s", ctx())
	}
	return granted
}

// TestTemplatedAnswerNeverGrants runs the property on generated fires (5 000; 1 000 with
// -short). Before the rule, it failed within the first few dozen.
func TestTemplatedAnswerNeverGrants(t *testing.T) {
	words, err := answerWords()
	require.NoError(t, err)
	require.Greater(t, len(words), 100, "the readers' words were found")
	for _, w := range append(slices.Clone(grantWords), decisionWords...) {
		require.Contains(t, words, w, "a word the generator favours is one a reader knows")
	}
	n := 5000
	if testing.Short() {
		n = 1000
	}
	g := &answerGen{r: rand.New(rand.NewPCG(25, 1)), words: words}
	granted := 0
	for range n {
		if neverMorePermissive(t, g) {
			granted++
		}
	}
	t.Logf("%d generated fires from %d words; in %d the templated hook's answer granted or rewrote something, and the rule removed it", n, len(words), granted)
	require.Greater(t, granted, n/20, "the generator reaches the answers that grant")
}

// FuzzTemplatedAnswer drives the same property from fuzzed seeds (make fuzz).
func FuzzTemplatedAnswer(f *testing.F) {
	words, err := answerWords()
	require.NoError(f, err)
	for _, s := range []uint64{0, 1, 25, 1 << 40} {
		f.Add(binary.LittleEndian.AppendUint64(nil, s))
	}
	f.Fuzz(func(t *testing.T, seed []byte) {
		var a, b uint64
		if len(seed) >= 8 {
			a = binary.LittleEndian.Uint64(seed)
		}
		for _, c := range seed {
			b = b*131 + uint64(c)
		}
		neverMorePermissive(t, &answerGen{r: rand.New(rand.NewPCG(a, b)), words: words})
	})
}
