package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// open starts an engine on an inline config in a fresh project dir.
func open(t *testing.T, cfg string, mutate ...func(*Options)) (*Engine, string) {
	t.Helper()
	dir := t.TempDir()
	o := Options{ProjectDir: dir, Home: dir, Config: json.RawMessage(cfg)}
	for _, m := range mutate {
		m(&o)
	}
	e, err := Open(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e, dir
}

// hangGuard is the slack a time bound in these tests allows beyond what the behaviour needs:
// only a real hang exceeds it, never a loaded machine. Speed is for bench_test.go.
const hangGuard = 10 * time.Second

func fireT(t *testing.T, e *Engine, event, payload string) *Result {
	t.Helper()
	r, err := e.Fire(event, []byte(payload))
	require.NoError(t, err)
	return r
}

func pre(matcher, command string) string {
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": command}}}}}})
	return string(b)
}

func TestGuardBlocksWithStderr(t *testing.T) {
	e, _ := open(t, pre("Bash", `cmd=$(cat); case "$cmd" in *"rm -rf"*) echo "dangerous: rm -rf" >&2; exit 2;; esac`))
	r := fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	require.True(t, r.Blocked)
	require.Equal(t, "deny", r.Decision)
	require.Equal(t, "dangerous: rm -rf", r.Reason)
	require.Equal(t, 1, r.Matched)
	require.Equal(t, 2, r.Hooks[0].ExitCode)
	require.Equal(t, "shell", r.Hooks[0].Exec)

	r = fireT(t, e, "pre-tool", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`)
	require.False(t, r.Blocked)
	require.Equal(t, "PreToolUse", r.Event)
	require.Equal(t, "none", r.Decision)

	r = fireT(t, e, "PreToolUse", `{"tool_name":"Edit"}`)
	require.Equal(t, 0, r.Matched)
	require.Empty(t, r.Hooks)
}

func TestJSONDecisionsAndUpdatedInput(t *testing.T) {
	cfg := `{"hooks":{"PreToolUse":[
	 {"matcher":"Bash","hooks":[{"command":"printf '%s' '{\"hookSpecificOutput\":{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}'"}]},
	 {"matcher":"Write","hooks":[{"command":"printf '%s' '{\"hookSpecificOutput\":{\"permissionDecision\":\"allow\",\"updatedInput\":{\"file_path\":\"/safe\"}}}'"}]},
	 {"matcher":"Edit","hooks":[{"command":"printf '%s' '{\"modified_args\":{\"dry_run\":true}}'"}]},
	 {"matcher":"Nope","hooks":[{"command":"printf '%s' '{\"decision\":\"approve\"}'; echo stop >&2; exit 2"}]}]}}`
	e, _ := open(t, cfg)
	r := fireT(t, e, "PreToolUse", `{"tool_name":"Bash"}`)
	require.True(t, r.Blocked)
	require.Equal(t, "no", r.Reason)
	require.JSONEq(t, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`, string(r.Hooks[0].Output))

	r = fireT(t, e, "PreToolUse", `{"tool_name":"Write","tool_input":{"file_path":"/etc/passwd"}}`)
	require.False(t, r.Blocked)
	require.Equal(t, "allow", r.Decision)
	require.JSONEq(t, `{"file_path":"/safe"}`, string(r.UpdatedInput))

	r = fireT(t, e, "PreToolUse", `{"tool_name":"Edit","tool_args":{"file_path":"a"}}`)
	require.JSONEq(t, `{"file_path":"a","dry_run":true}`, string(r.UpdatedInput))

	r = fireT(t, e, "PreToolUse", `{"tool_name":"Nope"}`)
	require.True(t, r.Blocked, "exit 2 blocks even with a JSON approve")
	require.Equal(t, "deny", r.Decision)
}

// hostile values that must arrive as data and never run.
var hostile = []string{
	`plain`, `two words`, `it's`, `say "hi"`, `$(touch PWNED)`, "`touch PWNED`", `; touch PWNED`,
	`a && touch PWNED`, "line1\nline2", `back\slash\`, `\'`, `$HOME`, `*`, `-n`, ``, `'"'"'`, `ünï 😀`, `|| touch PWNED #`,
}

func TestTemplatesDeliverExactData(t *testing.T) {
	contexts := []struct{ name, hook string }{
		{"bare", `{"command":"printf %s <<tool_input.v>> > out"}`},
		{"single", `{"command":"printf %s '<<tool_input.v>>' > out"}`},
		{"double", `{"command":"printf %s \"<<tool_input.v>>\" > out"}`},
		{"seed syntax", `{"command":"printf %s {{tool_args.v}} > out"}`},
		{"partial word", `{"command":"printf %s x<<tool_input.v>>x > out"}`},
		// -- before the placeholder: without it a value such as -n would be refused (the option rule).
		{"direct", `{"command":"python3 -c \"import sys;open('out','w').write(sys.argv[-1])\" -- <<tool_input.v>>"}`},
		{"args", `{"args":["python3","-c","import sys;open('out','w').write(sys.argv[-1])","--","<<tool_input.v>>"]}`},
	}
	for _, c := range contexts {
		t.Run(c.name, func(t *testing.T) {
			e, dir := open(t, `{"hooks":{"PreToolUse":[{"hooks":[`+c.hook+`]}]}}`)
			for _, v := range hostile {
				payload, _ := json.Marshal(map[string]any{"tool_name": "Bash", "tool_input": map[string]string{"v": v}})
				r := fireT(t, e, "PreToolUse", string(payload))
				require.Equal(t, 0, r.Hooks[0].ExitCode, "value %q: %s", v, r.Hooks[0].Stderr)
				got, err := os.ReadFile(filepath.Join(dir, "out"))
				require.NoError(t, err)
				want := v
				if c.name == "partial word" {
					want = "x" + v + "x"
				}
				require.Equal(t, want, string(got), "value %q", v)
				require.NoFileExists(t, filepath.Join(dir, "PWNED"), "value %q ran", v)
			}
		})
	}
}

func TestUnsafeTemplateContextDisablesOnlyThatHook(t *testing.T) {
	e, _ := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":"echo `+"`<<tool_name>>`"+`","name":"bad"},{"command":"true","name":"good"}]}]}}`)
	c, err := e.Config()
	require.NoError(t, err)
	require.False(t, c.Hooks[0].Enabled)
	require.Contains(t, c.Hooks[0].Disabled, "tool_name")
	require.True(t, c.Hooks[1].Enabled)
	require.NotEmpty(t, c.Warnings)
	r := fireT(t, e, "Stop", `{}`)
	require.Equal(t, 1, r.Matched)
	require.Equal(t, "good", r.Hooks[0].ID)
}

func TestTimeoutKillsTheWholeTree(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "stubborn.sh")
	require.NoError(t, os.WriteFile(script, []byte(`#!/bin/sh
trap '' TERM
echo $$ > "$1/leader.pid"
sh -c 'trap "" TERM; echo $$ > "$0/child.pid"; sleep 60' "$1" &
sleep 60
`), 0o755))
	e, err := Open(Options{ProjectDir: dir, Home: dir, KillGraceMs: 1000,
		Config: json.RawMessage(`{"hooks":{"Stop":[{"hooks":[{"command":"` + script + ` ` + dir + `","timeout":1}]}]}}`)})
	require.NoError(t, err)
	defer e.Close()
	start := time.Now()
	r := fireT(t, e, "Stop", `{}`)
	// timeout 1 s + grace 1 s; the tree would sleep 60 s.
	require.Less(t, time.Since(start), 2*time.Second+hangGuard)
	require.True(t, r.Hooks[0].TimedOut)
	require.Contains(t, r.Hooks[0].Error, "timed out")
	require.False(t, r.Blocked, "a timeout is a non-blocking error unless fail_closed")
	for _, f := range []string{"leader.pid", "child.pid"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		pid := strings.TrimSpace(string(b))
		require.False(t, alive(pid), "%s %s survived", f, pid)
	}
}

// alive reports whether pid runs; a zombie (killed, not yet reaped by its new parent) is dead.
func alive(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func TestParallelHooksReportInConfigOrder(t *testing.T) {
	// Each hook waits until all four have started (run one at a time, the first would time
	// out waiting), then they finish in the order c, b/d, a.
	meet := rendezvous(4) + "; sleep %s; echo %s"
	cfg := `{"hooks":{"Stop":[{"hooks":[` + strings.Join([]string{
		hookJSON("a", fmt.Sprintf(meet, "0.3", "a")), hookJSON("b", fmt.Sprintf(meet, "0.2", "b")),
		hookJSON("c", fmt.Sprintf(meet, "0.1", "c")), hookJSON("d", fmt.Sprintf(meet, "0.2", "d")),
	}, ",") + `]}]}}`
	e, _ := open(t, cfg)
	r := fireT(t, e, "Stop", `{}`)
	var ids, outs []string
	for _, h := range r.Hooks {
		require.False(t, h.TimedOut, "hook %s waited for the others in vain: not run in parallel", h.ID)
		ids = append(ids, h.ID)
		outs = append(outs, strings.TrimSpace(h.Stdout))
	}
	require.Equal(t, []string{"a", "b", "c", "d"}, ids)
	require.Equal(t, []string{"a", "b", "c", "d"}, outs)
}

// rendezvous is a shell fragment that returns once n hooks running it have all started (in
// the hook's working directory); the hook's timeout bounds the wait.
func rendezvous(n int) string {
	return fmt.Sprintf(`mkdir -p meet && touch meet/$$ && while [ $(ls meet | wc -l) -lt %d ]; do sleep 0.01; done`, n)
}

func hookJSON(name, command string) string {
	b, _ := json.Marshal(map[string]any{"name": name, "command": command, "timeout": 30})
	return string(b)
}

func TestSequentialGroup(t *testing.T) {
	e, dir := open(t, `{"hooks":{"Stop":[{"sequential":true,"hooks":[
		{"command":"sleep 0.2; echo 1 >> log"},{"command":"echo 2 >> log"}]}]}}`)
	fireT(t, e, "Stop", `{}`)
	b, err := os.ReadFile(filepath.Join(dir, "log"))
	require.NoError(t, err)
	require.Equal(t, "1\n2\n", string(b))
}

func TestNeverReadingHookDoesNotBlock(t *testing.T) {
	e, _ := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":"true"}]}]}}`)
	big := `{"blob":"` + strings.Repeat("x", 4<<20) + `"}`
	start := time.Now()
	r := fireT(t, e, "Stop", big)
	require.Less(t, time.Since(start), hangGuard)
	require.Equal(t, 0, r.Hooks[0].ExitCode)
}

func TestStdinAndEnv(t *testing.T) {
	e, dir := open(t, `{"hooks":{"PreToolUse":[{"hooks":[{"command":"cat > stdin.json; env > env.txt","env":{"MINE":"yes"}}]}]}}`,
		func(o *Options) { o.SessionID = "sess-1"; o.Env = map[string]string{"FROM_HOST": "1"} })
	fireT(t, e, "PreToolUse", `{"tool_name":"Write","tool_args":{"file_path":"/x/y.go"}}`)
	b, err := os.ReadFile(filepath.Join(dir, "stdin.json"))
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(b), "\n"))
	var in map[string]any
	require.NoError(t, json.Unmarshal(b, &in))
	require.Equal(t, "PreToolUse", in["hook_event_name"])
	require.Equal(t, "sess-1", in["session_id"])
	require.Equal(t, dir, in["cwd"])
	require.Equal(t, map[string]any{"file_path": "/x/y.go"}, in["tool_input"])
	env, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	require.NoError(t, err)
	for _, kv := range []string{"HOOK_EVENT=PreToolUse", "HOOK_TOOL=Write", `HOOK_ARGS={"file_path":"/x/y.go"}`,
		"HOOK_SESSION_ID=sess-1", "HOOK_WORKSPACE=" + dir, "TOOL_NAME=Write", "FILE_PATH=/x/y.go",
		"CLAUDE_PROJECT_DIR=" + dir, "MINE=yes", "FROM_HOST=1", "HOOK_PATH=/x/y.go"} {
		require.Contains(t, string(env), kv+"\n")
	}
}

func TestTextContextAndMissingProgram(t *testing.T) {
	e, _ := open(t, `{"hooks":{"UserPromptSubmit":[{"hooks":[{"command":"printf 'branch: main'"},{"command":"definitely-not-a-program-xyz arg"}]}]}}`)
	r := fireT(t, e, "UserPromptSubmit", `{"prompt":"hi"}`)
	require.Equal(t, "branch: main", r.AdditionalContext)
	missing := r.Hooks[1]
	require.Equal(t, "direct", missing.Exec)
	require.Equal(t, 127, missing.ExitCode, "same as sh -c: %s", missing.Stderr)
	require.Contains(t, missing.Stderr, "not found")
	require.False(t, r.Blocked)
}

func TestOutputCap(t *testing.T) {
	e, _ := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":"head -c 100000 /dev/zero | tr '\\0' a"}]}]}}`,
		func(o *Options) { o.OutputCapBytes = 1000 })
	r := fireT(t, e, "Stop", `{}`)
	require.Len(t, r.Hooks[0].Stdout, 1000)
	require.True(t, r.Hooks[0].StdoutTruncated)
}

func TestConcurrentFiresAndReload(t *testing.T) {
	// A Claude-shaped source has no placeholders: the hook reads its input from stdin.
	e, dir := open(t, "", func(o *Options) { o.Sources = []string{"hooks.json"} })
	write := func(ctx string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "hooks.json"),
			[]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"command":"sed -n 's/.*\"n\":\"\\([^\"]*\\)\".*/{\"hookSpecificOutput\":{\"additionalContext\":\"\\1\"}}/p'"}]}]},"x":"`+ctx+`"}`), 0o644))
	}
	write("v1")
	require.NoError(t, e.Reload())
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				n := fmt.Sprintf("%d-%d", i, j)
				r, err := e.Fire("PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"n":"`+n+`"}}`))
				if err != nil {
					errs <- err
					return
				}
				if r.AdditionalContext != n {
					errs <- fmt.Errorf("fire %s got %q", n, r.AdditionalContext)
				}
			}
		}()
	}
	for i := 0; i < 5; i++ {
		require.NoError(t, e.Reload())
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestErrorsAndClose(t *testing.T) {
	e, _ := open(t, `{}`)
	_, err := e.Fire("", []byte(`{}`))
	require.ErrorIs(t, err, ErrInvalid)
	_, err = e.Fire("Stop", []byte(`[1]`))
	require.ErrorIs(t, err, ErrInvalid)
	_, err = e.Fire("Stop", []byte(`{`))
	require.ErrorIs(t, err, ErrInvalid)
	require.NoError(t, e.Close())
	require.ErrorIs(t, e.Close(), ErrClosed)
	_, err = e.Fire("Stop", []byte(`{}`))
	require.ErrorIs(t, err, ErrClosed)
	_, err = e.Match("Stop", "")
	require.ErrorIs(t, err, ErrClosed)
	_, err = e.MatchIDs("Stop", "")
	require.ErrorIs(t, err, ErrClosed)

	_, err = ParseOptions([]byte(`{"profle":"claude"}`))
	require.ErrorIs(t, err, ErrInvalid)
	require.Contains(t, err.Error(), "profle")
	_, err = Open(Options{Profile: "nope"})
	require.ErrorIs(t, err, ErrConfig)
}

func TestMatchCounts(t *testing.T) {
	cfg := `{"hooks":{"PreToolUse":[{"matcher":"builtin:*","hooks":[{"command":"true"}]},{"matcher":"mcp__*","hooks":[{"command":"true"}]},
		{"matcher":"mcp__github__*","hooks":[{"command":"true"}]},{"matcher":"Bash|Edit","hooks":[{"command":"true"}]},{"matcher":"^Ed","hooks":[{"command":"true"}]},
		{"hooks":[{"command":"true"}]}]}}`
	e, _ := open(t, cfg)
	for subject, want := range map[string]int{"Bash": 3, "Edit": 4, "builtin:Edit": 4, "mcp__github__create_issue": 3, "github:create_issue": 3, "mcp__slack__post": 2} {
		n, err := e.Match("PreToolUse", subject)
		require.NoError(t, err)
		require.Equal(t, want, n, subject)
	}
}

// TestMatchIDs: the ids of the hooks Match counts, in config order, each hook's own matcher
// deciding; disabled hooks never appear; files and inline config alike.
func TestMatchIDs(t *testing.T) {
	cfg := `{"hooks":{"PreToolUse":[{"matcher":"write_file","hooks":[{"command":"echo w","name":"w"}]},
		{"matcher":"bash_execute","hooks":[{"command":"echo b","name":"b"},{"command":"echo off","name":"off"}]},
		{"matcher":"mcp__*","hooks":[{"command":"echo m","name":"m"}]},{"hooks":[{"command":"echo all","name":"all"}]}]},
		"disabledHooks":["off"]}`
	e, dir := open(t, cfg)
	file := filepath.Join(dir, ".config", "agent", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte(`{"hooks":{"PreToolUse":[{"matcher":"^bash","hooks":[{"command":"echo file","name":"file"}]}]}}`), 0o644))
	require.NoError(t, e.Reload())
	for _, tc := range []struct {
		event, subject string
		want           []string
	}{
		{"PreToolUse", "bash_execute", []string{"b", "all", "file"}},
		{"PreToolUse", "write_file", []string{"w", "all"}},
		{"PreToolUse", "mcp__fs__read", []string{"m", "all"}},
		{"PreToolUse", "read_file", []string{"all"}},
		{"Stop", "", []string{}},
	} {
		ids, err := e.MatchIDs(tc.event, tc.subject)
		require.NoError(t, err)
		require.Equal(t, tc.want, ids, "%s %s", tc.event, tc.subject)
		n, err := e.Match(tc.event, tc.subject)
		require.NoError(t, err)
		require.Len(t, ids, n, "MatchIDs lists what Match counts")
	}
	_, err := e.MatchIDs("", "x")
	require.ErrorIs(t, err, ErrInvalid)
}

func TestAsyncHookGoesToListener(t *testing.T) {
	e, _ := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":"sleep 0.1; echo late","async":true,"name":"bg"}]}]}}`)
	got := make(chan []byte, 1)
	require.NoError(t, e.SetListener(func(kind string, data []byte) {
		if kind == "async" {
			got <- data
		}
	}))
	r := fireT(t, e, "Stop", `{}`)
	require.True(t, r.Hooks[0].Async)
	select {
	case data := <-got:
		var m struct {
			Hook HookResult `json:"hook"`
		}
		require.NoError(t, json.Unmarshal(data, &m))
		require.Equal(t, "bg", m.Hook.ID)
		require.Equal(t, "late\n", m.Hook.Stdout)
	case <-time.After(hangGuard):
		t.Fatal("async result never arrived")
	}
}

func TestPromptHooks(t *testing.T) {
	e, _ := open(t, `{"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":"Is <<reason>> done?","timeout":2}]}]}}`)
	r := fireT(t, e, "Stop", `{"reason":"the task"}`)
	require.False(t, r.Blocked)
	require.Contains(t, r.Hooks[0].Error, "evaluator")

	var seen string
	require.NoError(t, e.SetPromptEvaluator(func(_ context.Context, prompt string, _ []byte) (bool, string, error) {
		seen = prompt
		return false, "not yet", nil
	}))
	r = fireT(t, e, "Stop", `{"reason":"the task"}`)
	require.Equal(t, "Is the task done?", seen)
	require.True(t, r.Blocked)
	require.Equal(t, "not yet", r.Reason)
}

// TestPendingBufferOnlyAtPreIteration follows seed 004: piped output of session_start,
// post_iteration and on_task_complete queues FIFO and reaches the agent only at the next
// pre_iteration (before that fire's own output) or through Drain; on_error hands over its
// own output at once and leaves the queue alone; no other fire takes the queue.
func TestPendingBufferOnlyAtPreIteration(t *testing.T) {
	piped := func(out string) string {
		return `[{"hooks":[{"command":"echo ` + out + `","pipe_output":true}]}]`
	}
	e, _ := open(t, `{"hooks":{"SessionStart":`+piped("start")+`,"PostIteration":`+piped("post")+
		`,"TaskComplete":`+piped("task")+`,"SessionError":`+piped("recover")+`,"PreIteration":`+piped("pre")+
		`,"PreToolUse":[{"hooks":[{"command":"true"}]}]}}`)
	steps := []struct {
		event string
		want  []string
	}{
		{"SessionStart", []string{}},
		{"PostIteration", []string{}},
		{"PreToolUse", []string{}},
		{"TaskComplete", []string{}},
		{"Stop", []string{}},
		{"SessionError", []string{"recover\n"}},
		{"PreIteration", []string{"start\n", "post\n", "task\n", "pre\n"}},
		{"PreIteration", []string{"pre\n"}},
		{"PostIteration", []string{}},
		{"TaskComplete", []string{}},
	}
	for i, s := range steps {
		r := fireT(t, e, s.event, `{}`)
		require.Equal(t, s.want, append([]string{}, r.AgentOutput...), "fire %d (%s)", i, s.event)
	}
	out, err := e.Drain()
	require.NoError(t, err)
	require.Equal(t, []string{"post\n", "task\n"}, out, "final delivery")
	out, err = e.Drain()
	require.NoError(t, err)
	require.Empty(t, out)
	require.Equal(t, []string{"pre\n"}, fireT(t, e, "PreIteration", `{}`).AgentOutput)
}

func TestHostileEnvValuesDoNotStopGuards(t *testing.T) {
	e, _ := open(t, pre("Write", `echo guarded >&2; exit 2`))
	big, _ := json.Marshal(map[string]any{"tool_name": "Write", "tool_input": map[string]string{"content": strings.Repeat("x", 200000), "file_path": "a"}})
	r := fireT(t, e, "PreToolUse", string(big))
	require.True(t, r.Blocked, "a 200 KB tool input must not keep the guard from starting: %+v", r.Hooks[0])
	require.Contains(t, strings.Join(r.Warnings, "\n"), "HOOK_ARGS left out")

	r = fireT(t, e, "PreToolUse", `{"tool_name":"Write","tool_input":{"file_path":"a\u0000b"}}`)
	require.True(t, r.Blocked, "a NUL in a payload value must not keep the guard from starting: %+v", r.Hooks[0])
	require.Contains(t, strings.Join(r.Warnings, "\n"), "NUL")
}

func TestMissingWorkingDirectoryIsNamed(t *testing.T) {
	e, dir := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":"true","cwd":"nowhere"}]}]}}`)
	r := fireT(t, e, "Stop", `{}`)
	require.Contains(t, r.Hooks[0].Error, "working directory "+filepath.Join(dir, "nowhere"))
	require.False(t, r.Blocked)
}
