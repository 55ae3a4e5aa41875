package nomatch_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/nomatch"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/version"
)

// fallback is what the fake hookexec binary beside the C client prints: the client did not
// answer from the index (it found no daemon either, and handed the call to "hookexec").
const fallback = "FALLBACK\n"

// client builds capi/hook/hookexec-hook.c into a directory with a fake hookexec beside it
// (the binary the client hands every call it does not answer to) and returns the client and
// the identity the client computes from that binary.
func client(t *testing.T) (string, string) {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skip("no C compiler: the client is not built")
	}
	dir := t.TempDir()
	goBin := filepath.Join(dir, "hookexec")
	require.NoError(t, os.WriteFile(goBin, []byte("#!/bin/sh\ncat >/dev/null\nprintf FALLBACK\\\\n\nexit 99\n"), 0o755))
	st, err := os.Stat(goBin)
	require.NoError(t, err)
	identity := fmt.Sprintf("%s+%d.%d", version.Version, st.Size(), st.ModTime().UnixNano())
	bin := filepath.Join(dir, "hookexec-hook")
	out, err := exec.Command(cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", `-DHOOKEXEC_VERSION="`+version.Version+`"`,
		"-o", bin, "../../capi/hook/hookexec-hook.c").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin, identity
}

// world is one user's setup: a home, a project, a private runtime directory holding the index.
type world struct {
	t                        testing.TB
	agent                    string // "claude" unless set
	bin, identity            string
	home, project, run, hook string // hook: the project's hookexec-hooks.json
	env                      []string
}

func newWorld(t testing.TB, bin, identity string) *world {
	root := t.TempDir()
	w := &world{t: t, agent: "claude", bin: bin, identity: identity, home: filepath.Join(root, "home"), project: filepath.Join(root, "proj"),
		run: filepath.Join(root, "run")}
	require.NoError(t, os.MkdirAll(filepath.Join(w.project, ".claude"), 0o755))
	require.NoError(t, os.MkdirAll(w.home, 0o755))
	require.NoError(t, os.Mkdir(w.run, 0o700))
	w.hook = filepath.Join(w.project, ".claude", "hookexec-hooks.json")
	w.env = []string{"HOME=" + w.home, "CLAUDE_PROJECT_DIR=" + w.project, "HOOKEXEC_RUNTIME_DIR=" + w.run, "PATH=/usr/bin:/bin"}
	return w
}

// hooks writes the project's hookexec-hooks.json: event → matcher groups.
func (w *world) hooks(groups map[string][]string) {
	cfg := map[string]any{}
	for ev, ms := range groups {
		var list []any
		for _, m := range ms {
			list = append(list, map[string]any{"matcher": m, "hooks": []any{map[string]any{"type": "command", "command": `echo '{"systemMessage":"MATCHED"}'`}}})
		}
		cfg[ev] = list
	}
	data, err := json.Marshal(map[string]any{"hooks": cfg})
	require.NoError(w.t, err)
	require.NoError(w.t, os.WriteFile(w.hook, data, 0o644))
}

func (w *world) request(payload string) dispatch.Request {
	return dispatch.Request{Agent: w.agent, Project: w.project, Home: w.home, Env: w.env, Payload: json.RawMessage(payload)}
}

// index has a dispatcher load the project's hooks and write the index; it returns the
// dispatcher (still holding the engine) for the oracle.
func (w *world) index(d *dispatch.Dispatcher) {
	w.t.Helper()
	_, err := d.Dispatch(w.request(`{"hook_event_name":"Setup","session_id":"s"}`))
	require.NoError(w.t, err)
}

func (w *world) indexPath() string {
	return nomatch.Path(w.run, nomatch.Key{Agent: w.agent, Project: w.project, Home: w.home})
}

type run struct {
	code           int
	stdout, stderr string
}

func (r run) skipped() bool { return r.stdout != fallback }

// call runs the C client on payload with the world's environment plus extra.
func (w *world) call(payload string, extra ...string) run {
	w.t.Helper()
	cmd := exec.Command(w.bin, "--agent", w.agent)
	cmd.Env = append(append([]string{}, w.env...), extra...)
	cmd.Stdin = strings.NewReader(payload)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(w.t, err)
	}
	if out.String() == fallback {
		assert.Equal(w.t, 99, code)
	}
	return run{code, out.String(), errb.String()}
}

func payloadOf(event, subject string) string {
	b, _ := json.Marshal(map[string]any{"hook_event_name": event, "session_id": "s", "tool_name": subject, "source": subject,
		"notification_type": subject, "tool_input": map[string]any{"command": "ls"}})
	return string(b)
}

// The index never turns a match into a no-match. Random configurations (events, matchers:
// names, alternations, globs, regexes, MCP and cli-agent spellings, empty and "*") and random
// subjects (the matchers' own words, their case variants, other spellings of the same tool,
// control characters, Unicode): whenever the C client answers from the index, the Go engine
// (the oracle) matches no hook for that call, and the client's answer is the Go dispatcher's
// byte for byte.
func TestNeverSkipsAMatch(t *testing.T) {
	bin, identity := client(t)
	saved := nomatch.Settle
	nomatch.Settle = 0 // the files are written just before; TestUnsettledFilesAreNotIndexed keeps the rule
	t.Cleanup(func() { nomatch.Settle = saved })
	words := []string{"Bash", "bash", "BASH", "Read", "Edit", "Write", "run_shell_command", "Shell", "execute_command",
		"mcp__github__create_issue", "github:create_issue", "mcp__github", "mcp__a__b__c", "a__b:c", "a:b__c", "builtin:Bash",
		"builtin:x", "builtin:builtin:x", "x", "startup", "resume", "permission_prompt", "NotebookEdit", "Bäsh", "Task", "Agent"}
	matchers := []string{"", "*", "|", "Bash", "Edit|Write", "Bash, Read", "^Bash$", "^(Edit|Write)$", "^(?:mcp__github__create_issue)$",
		"Bash.*", "B.sh", "^Ba", "ash$", "[Bb]ash", "mcp__*", "mcp__github__*", "builtin:*", "^builtin:x$", "^mcp__a__b__c$",
		"x__y:z", "github:create_issue", "mcp__github__create_issue", "startup|resume", "^(|x)$", "^Bash\\-x$", "Notebook.*", "read_file"}
	events := []string{"PreToolUse", "PostToolUse", "PermissionRequest", "SessionStart", "Notification", "Stop", "UserPromptSubmit"}
	fired := []string{"PreToolUse", "PostToolUse", "PermissionRequest", "SessionStart", "Notification", "Stop", "UserPromptSubmit",
		"BeforeTool", "AfterTool", "SubagentStop", "SomethingElse"}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	seed := rng.Int63()
	rng = rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)
	pick := func(l []string) string { return l[rng.Intn(len(l))] }
	subject := func() string {
		s := pick(words)
		switch rng.Intn(8) {
		case 0:
			s = strings.ToLower(s)
		case 1:
			s = strings.ToUpper(s)
		case 2:
			s = "builtin:" + s
		case 3:
			s += "\n"
		case 4:
			s = pick(matchers)
		case 5:
			s = s[:rng.Intn(len(s)+1)]
		}
		return s
	}
	claude, err := native.Lookup("claude")
	require.NoError(t, err)
	configs, calls, skips := 25, 30, 0
	for c := 0; c < configs; c++ {
		w := newWorld(t, bin, identity)
		groups := map[string][]string{}
		for range 1 + rng.Intn(4) {
			ev := pick(events)
			groups[ev] = append(groups[ev], pick(matchers))
		}
		w.hooks(groups)
		d := dispatch.New()
		d.IndexTo(w.run, identity)
		w.index(d)
		eng, err := engine.Open(engine.Options{Profile: "claude", ProjectDir: w.project, Home: w.home,
			Sources: claude.Sources(w.project, w.home), AgentRuns: claude.Settings(w.project, w.home),
			Environ: func() []string { return w.env }})
		require.NoError(t, err)
		for range calls {
			ev, sub := pick(fired), subject()
			p := payloadOf(ev, sub)
			r := w.call(p)
			if !r.skipped() {
				continue
			}
			skips++
			doc, err := payload.Parse([]byte(p))
			require.NoError(t, err)
			ids, err := eng.MatchIDs(ev, doc.First(event.Lookup(ev).Subject))
			doc.Release()
			require.NoError(t, err)
			require.Empty(t, ids, "the client skipped %s %q under %v, but the engine matches %v", ev, sub, groups, ids)
			reply, err := d.Dispatch(w.request(p))
			require.NoError(t, err)
			require.NotContains(t, reply.Stdout, "MATCHED")
			require.Equal(t, run{reply.ExitCode, reply.Stdout, reply.Stderr}, r, "%s %q", ev, sub)
		}
		require.NoError(t, eng.Close())
		d.Close()
	}
	t.Logf("%d of %d calls answered from the index", skips, configs*calls)
	assert.Greater(t, skips, configs*calls/5, "the index answers most calls that cannot match")
}

// Each agent's answer to a call no hook matches comes from the index exactly as the Go
// dispatcher gives it (Codex, which names no project variable, through the payload's cwd).
func TestEachAgentsNoMatchAnswer(t *testing.T) {
	bin, identity := client(t)
	saved := nomatch.Settle
	nomatch.Settle = 0
	t.Cleanup(func() { nomatch.Settle = saved })
	// Gemini CLI's and Qwen Code's matchers are regexes, tested unanchored: only an anchored
	// one names a finite set of tools.
	for _, tc := range []struct{ agent, projectVar, pre, post, matcher, tool string }{
		{"claude", "CLAUDE_PROJECT_DIR", "PreToolUse", "PostToolUse", "Bash", "Bash"},
		{"codex", "", "PreToolUse", "PostToolUse", "Bash", "Bash"},
		{"gemini", "GEMINI_PROJECT_DIR", "BeforeTool", "AfterTool", "^run_shell_command$", "run_shell_command"},
		{"qwen", "QWEN_PROJECT_DIR", "PreToolUse", "PostToolUse", "^run_shell_command$", "run_shell_command"},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			w := newWorld(t, bin, identity)
			w.agent = tc.agent
			ag, err := native.Lookup(tc.agent)
			require.NoError(t, err)
			w.hook = ag.Files(native.Project, w.project)[0].Managed
			require.NoError(t, os.MkdirAll(filepath.Dir(w.hook), 0o755))
			w.env = []string{"HOME=" + w.home, "HOOKEXEC_RUNTIME_DIR=" + w.run, "PATH=/usr/bin:/bin"}
			if tc.projectVar != "" {
				w.env = append(w.env, tc.projectVar+"="+w.project)
			}
			w.hooks(map[string][]string{tc.pre: {tc.matcher}})
			d := dispatch.New()
			defer d.Close()
			d.IndexTo(w.run, identity)
			call := func(event, tool string) string {
				b, _ := json.Marshal(map[string]any{"hook_event_name": event, "session_id": "s", "cwd": w.project, "tool_name": tool,
					"tool_input": map[string]any{"command": "ls"}, "turn_id": "t"})
				return string(b)
			}
			_, err = d.Dispatch(w.request(call(tc.pre, "read_file")))
			require.NoError(t, err)
			for _, p := range []string{call(tc.pre, "read_file"), call(tc.post, tc.tool), call("Stop", "x")} {
				r := w.call(p)
				require.True(t, r.skipped(), "%s: %s answered from the index", tc.agent, p)
				reply, err := d.Dispatch(w.request(p))
				require.NoError(t, err)
				assert.Equal(t, run{reply.ExitCode, reply.Stdout, reply.Stderr}, r, p)
			}
			assert.False(t, w.call(call(tc.pre, tc.tool)).skipped(), "the guarded tool goes to the daemon")
		})
	}
}
