package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// protocolHook is a persistent hook in POSIX sh speaking protocol v1. Per request it looks
// at the payload: "rm -rf" blocks, "X_CRASH" exits 3, "X_GARBAGE" answers a line that is
// not JSON, "X_SLOW" sleeps, "X_SPAM" answers then writes 1 MiB to stdout and stderr outside any
// request; anything else is answered with its pid, request count and HOOKEXEC_PERSISTENT.
const protocolHook = `n=0
while IFS= read -r line; do
  n=$((n+1))
  case "$line" in
    *'rm -rf'*) printf '{"exit_code":2,"stderr":"no rm -rf (pid %s)"}\n' "$$" ;;
    *X_CRASH*) echo "boom" >&2; exit 3 ;;
    *X_GARBAGE*) echo "hello, not json" ;;
    *X_SLOW*) sleep 30; printf '{}\n' ;;
    *X_SPAM*)
      printf '{"stdout":"spam"}\n'
      i=0; while [ $i -lt 1024 ]; do printf '%01024d\n' 0; printf '%01024d' 0 >&2; i=$((i+1)); done
      : > "$SPAM_DONE" ;;
    *) printf '{"stdout":"pid=%s n=%s persistent=%s"}\n' "$$" "$n" "$HOOKEXEC_PERSISTENT" ;;
  esac
done`

// persistentCfg writes the protocol hook to dir and returns a config with it as a
// persistent PreToolUse hook; extra fields go into the handler.
func persistentCfg(t *testing.T, dir string, extra map[string]any) string {
	t.Helper()
	script := filepath.Join(dir, "hook.sh")
	require.NoError(t, os.WriteFile(script, []byte(protocolHook), 0o644))
	h := map[string]any{"type": "command", "command": "sh " + script, "persistent": true, "timeout": 5}
	for k, v := range extra {
		h[k] = v
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Bash", "hooks": []any{h}}}}})
	return string(b)
}

func openPersistent(t *testing.T, extra map[string]any) (*Engine, string) {
	t.Helper()
	var dir string
	return open(t, "", func(o *Options) {
		dir = o.ProjectDir
		o.Config = json.RawMessage(persistentCfg(t, dir, extra))
		o.Env = map[string]string{"SPAM_DONE": filepath.Join(dir, "spam.done")}
	})
}

func bash(cmd string) string {
	b, _ := json.Marshal(map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}})
	return string(b)
}

// answeredPID is the pid the protocol hook reported in its stdout.
func answeredPID(t *testing.T, r *Result) int {
	t.Helper()
	require.Len(t, r.Hooks, 1)
	f := strings.Fields(r.Hooks[0].Stdout)
	require.NotEmpty(t, f, "stdout %q, error %q", r.Hooks[0].Stdout, r.Hooks[0].Error)
	pid, err := strconv.Atoi(strings.TrimPrefix(f[0], "pid="))
	require.NoError(t, err)
	return pid
}

func processOf(t *testing.T, e *Engine) HookInfo {
	t.Helper()
	c, err := e.Config()
	require.NoError(t, err)
	for _, h := range c.Hooks {
		if h.Persistent {
			require.NotNil(t, h.Process)
			return h
		}
	}
	t.Fatal("no persistent hook in config()")
	return HookInfo{}
}

// gone reports whether no process of group pgid is left (zombies do not count: the
// watcher reaps the leader, and nothing else of the group may be left).
func gone(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		i := strings.LastIndexByte(string(b), ')')
		if err != nil || i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:])) // state ppid pgrp ...
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) && fields[0] != "Z" && fields[0] != "X" {
			return false
		}
	}
	return true
}

func waitGone(t *testing.T, pgid int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if gone(pgid) {
			return
		}
	}
	t.Fatalf("process group %d still alive", pgid)
}

func TestPersistentProtocolKeepsOneProcess(t *testing.T) {
	e, _ := openPersistent(t, nil)
	require.Equal(t, "idle", processOf(t, e).Process.State, "started on the first fire that needs it, not at open")

	r := fireT(t, e, "PreToolUse", bash("ls"))
	pid := answeredPID(t, r)
	require.Contains(t, r.Hooks[0].Stdout, "n=1 persistent=1")
	require.Equal(t, "none", r.Decision)
	info := processOf(t, e)
	require.Equal(t, "running", info.Process.State)
	require.Equal(t, pid, info.Process.PID)
	require.Equal(t, 1, info.Process.Starts)

	r = fireT(t, e, "PreToolUse", bash("ls -la"))
	require.Equal(t, pid, answeredPID(t, r), "the second fire reaches the same process")
	require.Contains(t, r.Hooks[0].Stdout, "n=2")

	r = fireT(t, e, "PreToolUse", bash("rm -rf /"))
	require.True(t, r.Blocked, "exit_code 2 blocks exactly as a one-shot exit 2 does")
	require.Equal(t, "deny", r.Decision)
	require.Equal(t, fmt.Sprintf("no rm -rf (pid %d)", pid), r.Reason)
	require.Equal(t, 2, r.Hooks[0].ExitCode)
}

func TestPersistentConcurrentFiresQueue(t *testing.T) {
	e, _ := openPersistent(t, nil)
	var wg sync.WaitGroup
	pids := make(chan int, 40)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				r, err := e.Fire("PreToolUse", []byte(bash("ls")))
				if err == nil && len(r.Hooks) == 1 && r.Hooks[0].Error == "" {
					pid, _ := strconv.Atoi(strings.TrimPrefix(strings.Fields(r.Hooks[0].Stdout)[0], "pid="))
					pids <- pid
				}
			}
		}()
	}
	wg.Wait()
	close(pids)
	seen := map[int]int{}
	for p := range pids {
		seen[p]++
	}
	require.Len(t, seen, 1, "one process served every fire")
	for _, n := range seen {
		require.Equal(t, 40, n, "every fire got its own answer")
	}
}

func TestPersistentTimeoutKillsAndRestarts(t *testing.T) {
	e, _ := openPersistent(t, map[string]any{"timeout": 0.3})
	first := answeredPID(t, fireT(t, e, "PreToolUse", bash("ls")))

	r := fireT(t, e, "PreToolUse", bash("X_SLOW"))
	require.True(t, r.Hooks[0].TimedOut)
	require.False(t, r.Blocked, "a timeout is a non-blocking error unless fail_closed")
	require.Contains(t, r.Hooks[0].Error, "timed out")
	waitGone(t, first)

	second := answeredPID(t, fireT(t, e, "PreToolUse", bash("ls")))
	require.NotEqual(t, first, second, "the next fire starts a fresh process")
	require.Contains(t, fireT(t, e, "PreToolUse", bash("ls")).Hooks[0].Stdout, "n=2")
}

func TestPersistentCrashAndGarbageAreReplaced(t *testing.T) {
	for _, tc := range []struct{ name, payload, want string }{
		{"crash", "X_CRASH", "exited with status 3 without answering (stderr: boom)"},
		{"garbage", "X_GARBAGE", `answer is not one JSON object line: "hello, not json\n"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, closed := range []bool{false, true} {
				e, _ := openPersistent(t, map[string]any{"fail_closed": closed})
				first := answeredPID(t, fireT(t, e, "PreToolUse", bash("ls")))
				r := fireT(t, e, "PreToolUse", bash(tc.payload))
				require.Contains(t, r.Hooks[0].Error, tc.want)
				require.Equal(t, closed, r.Blocked, "non-blocking error, blocking with fail_closed")
				waitGone(t, first)
				require.Equal(t, "idle", processOf(t, e).Process.State)
				second := answeredPID(t, fireT(t, e, "PreToolUse", bash("ls")))
				require.NotEqual(t, first, second)
			}
		})
	}
}

func TestPersistentBacksOffThenDisables(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	cfg := fmt.Sprintf(`{"hooks":{"PreToolUse":[{"hooks":[{"command":"sh -c 'echo x >> %s; exit 1'","persistent":true}]}]}}`, starts)
	e, _ := open(t, cfg)
	count := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "x")
	}
	fail := func() string {
		r := fireT(t, e, "PreToolUse", `{}`)
		require.False(t, r.Blocked)
		return r.Hooks[0].Error
	}
	require.Contains(t, fail(), "exited with status 1")
	require.Contains(t, fail(), "exited with status 1", "the first failure is replaced at once")
	require.Equal(t, 2, count())
	require.Contains(t, fail(), "backing off after 2 failures")
	require.Equal(t, 2, count(), "no restart while backing off")
	require.Equal(t, "backoff", processOf(t, e).Process.State)

	var last *Result
	for count() < 5 {
		time.Sleep(50 * time.Millisecond)
		last = fireT(t, e, "PreToolUse", `{}`)
	}
	require.Contains(t, last.Hooks[0].Error, "disabled until reload")
	require.Contains(t, strings.Join(last.Warnings, "\n"), "persistent hook disabled until reload")
	info := processOf(t, e)
	require.Equal(t, "disabled", info.Process.State)
	c, _ := e.Config()
	require.Contains(t, fmt.Sprint(c.Warnings), "failed 5 times in a row")

	time.Sleep(2 * time.Second) // longer than any back-off: disabled means disabled
	require.Contains(t, fail(), "disabled until reload")
	require.Equal(t, 5, count())

	require.NoError(t, e.Reload())
	require.Equal(t, "idle", processOf(t, e).Process.State, "a reload enables it again")
	require.Contains(t, fail(), "exited with status 1")
	require.Equal(t, 6, count())
}

func TestPersistentReloadKeepsUnchangedHooks(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "hook.sh")
	require.NoError(t, os.WriteFile(script, []byte(protocolHook), 0o644))
	src := filepath.Join(dir, "hooks.json")
	write := func(bEnv string) {
		cfg := map[string]any{"hooks": map[string]any{"PreToolUse": []any{
			map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"command": "sh " + script, "persistent": true, "name": "a"}}},
			map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"command": "sh " + script + " b", "persistent": true, "name": "b", "env": map[string]string{"V": bEnv}}}},
		}}}
		b, _ := json.Marshal(cfg)
		require.NoError(t, os.WriteFile(src, b, 0o644))
	}
	write("1")
	e, err := Open(Options{ProjectDir: dir, Home: dir, Sources: []string{src}})
	require.NoError(t, err)
	defer e.Close()
	pids := func() (int, int) {
		r := fireT(t, e, "PreToolUse", bash("ls"))
		require.Len(t, r.Hooks, 2)
		a, _ := strconv.Atoi(strings.TrimPrefix(strings.Fields(r.Hooks[0].Stdout)[0], "pid="))
		b, _ := strconv.Atoi(strings.TrimPrefix(strings.Fields(r.Hooks[1].Stdout)[0], "pid="))
		return a, b
	}
	a1, b1 := pids()
	write("2") // hook b changes, hook a does not
	require.NoError(t, e.Reload())
	waitGone(t, b1)
	a2, b2 := pids()
	require.Equal(t, a1, a2, "reload keeps the process of an unchanged hook")
	require.NotEqual(t, b1, b2)
	require.False(t, gone(a1))
}

func TestPersistentCloseLeavesNoProcess(t *testing.T) {
	dir := t.TempDir()
	// Starts a background child in its group and ignores stdin EOF and SIGTERM: only the
	// group kill after the close timeout ends it.
	script := filepath.Join(dir, "stubborn.sh")
	require.NoError(t, os.WriteFile(script, []byte(`trap '' TERM
sleep 300 &
while IFS= read -r line; do printf '{"stdout":"pid=%s"}\n' "$$"; done
while :; do sleep 1; done`), 0o644))
	cfg := `{"hooks":{"PreToolUse":[{"hooks":[{"command":"sh ` + script + `","persistent":true}]}]}}`
	e, err := Open(Options{ProjectDir: dir, Home: dir, Config: json.RawMessage(cfg), CloseTimeoutMs: 200, KillGraceMs: 100})
	require.NoError(t, err)
	pid := answeredPID(t, fireT(t, e, "PreToolUse", `{}`))
	require.False(t, gone(pid))
	require.NoError(t, e.Close())
	require.True(t, gone(pid), "Close returns with the whole group gone")
}

func TestPersistentOutputOutsideRequestsIsDrained(t *testing.T) {
	e, dir := openPersistent(t, nil)
	pid := answeredPID(t, fireT(t, e, "PreToolUse", bash("ls")))
	r := fireT(t, e, "PreToolUse", bash("X_SPAM"))
	require.Equal(t, "spam", r.Hooks[0].Stdout)
	done := filepath.Join(dir, "spam.done")
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(done); err == nil {
			break
		}
		require.True(t, time.Now().Before(end), "the hook blocked writing 1 MiB outside a request")
	}
	time.Sleep(100 * time.Millisecond) // let the reader drop the last unsolicited lines
	require.Equal(t, pid, answeredPID(t, fireT(t, e, "PreToolUse", bash("ls"))))
}

func TestPersistentConfigErrors(t *testing.T) {
	e, _ := open(t, `{"hooks":{"PreToolUse":[
		{"hooks":[{"command":"guard <<tool_name>>","persistent":true}]},
		{"hooks":[{"type":"prompt","prompt":"ok?","persistent":true}]},
		{"hooks":[{"command":"guard","persistent":true}]}]}}`)
	c, err := e.Config()
	require.NoError(t, err)
	require.Len(t, c.Hooks, 3)
	require.False(t, c.Hooks[0].Enabled)
	require.Contains(t, c.Hooks[0].Disabled, "a persistent command cannot have placeholders (tool_name)")
	require.False(t, c.Hooks[1].Enabled)
	require.Contains(t, c.Hooks[1].Disabled, "persistent applies to command hooks only")
	require.True(t, c.Hooks[2].Enabled)
	require.True(t, c.Hooks[2].Persistent)
	require.Equal(t, "idle", c.Hooks[2].Process.State)
	r := fireT(t, e, "PreToolUse", `{}`)
	require.Contains(t, r.Hooks[0].Error, "exited with status 127")
	require.Contains(t, r.Hooks[0].Error, "not found")
}

// rendezvousHook answers a request only once another process of it holds a request too:
// each request leaves in.$$ in $MEET and waits until two such marks exist. Two fires can
// both be answered only when two processes serve them at the same time.
const rendezvousHook = `while IFS= read -r line; do
  : > "$MEET/in.$$"
  while set -- "$MEET"/in.*; [ $# -lt 2 ]; do sleep 0.01; done
  printf '{"stdout":"pid=%s"}\n' "$$"
done`

func TestPersistentWorkersServeFiresInParallel(t *testing.T) {
	var dir string
	e, _ := open(t, "", func(o *Options) {
		dir = o.ProjectDir
		script := filepath.Join(dir, "meet.sh")
		require.NoError(t, os.WriteFile(script, []byte(rendezvousHook), 0o644))
		meet := filepath.Join(dir, "meet")
		require.NoError(t, os.Mkdir(meet, 0o755))
		// timeout is a hang guard: with one process serving, the first fire never returns.
		b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"hooks": []any{
			map[string]any{"command": "sh " + script, "persistent": true, "workers": 2, "timeout": 120,
				"env": map[string]string{"MEET": meet}}}}}}})
		o.Config = b
	})
	info := processOf(t, e)
	require.Equal(t, 2, info.Workers)
	require.Equal(t, 2, info.Process.Workers)

	results := make([]*Result, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = fireT(t, e, "PreToolUse", bash("ls"))
		}()
	}
	wg.Wait()
	a, b := answeredPID(t, results[0]), answeredPID(t, results[1])
	require.NotEqual(t, a, b, "two processes answered")
	info = processOf(t, e)
	require.Equal(t, "running", info.Process.State)
	require.ElementsMatch(t, []int{a, b}, info.Process.PIDs)
	require.NoError(t, e.Close())
	require.True(t, gone(a) && gone(b), "Close stops every worker")
}

func TestPersistentWorkersConfigErrors(t *testing.T) {
	e, _ := open(t, `{"hooks":{"PreToolUse":[{"hooks":[
		{"command":"guard a","workers":2},
		{"command":"guard b","persistent":true,"workers":0},
		{"command":"guard c","persistent":true,"workers":65},
		{"command":"guard d","persistent":true,"workers":"2"},
		{"command":"guard e","persistent":true,"workers":1.5}]}]}}`)
	c, err := e.Config()
	require.NoError(t, err)
	require.Len(t, c.Hooks, 5)
	for i, want := range []string{
		`workers applies to persistent hooks only ("persistent": true)`,
		"workers 0 is out of range (1 to 64)",
		"workers 65 is out of range (1 to 64)",
		"workers is string, want an integer",
		"workers is number, want an integer",
	} {
		require.False(t, c.Hooks[i].Enabled, "hook %d", i)
		require.Contains(t, c.Hooks[i].Disabled, want, "hook %d", i)
	}
}

// "persistent": "session" is a persistent hook the engine reports as per session; any
// other string disables the hook.
func TestPersistentSessionField(t *testing.T) {
	e, _ := open(t, `{"hooks":{"PreToolUse":[{"hooks":[
		{"command":"guard a","persistent":"session","workers":2},
		{"command":"guard b","persistent":"always"},
		{"command":"guard c","persistent":true}]}]}}`)
	c, err := e.Config()
	require.NoError(t, err)
	require.Len(t, c.Hooks, 3)
	require.True(t, c.Hooks[0].Enabled, c.Hooks[0].Disabled)
	require.True(t, c.Hooks[0].Persistent)
	require.True(t, c.Hooks[0].PerSession)
	require.Equal(t, 2, c.Hooks[0].Workers)
	require.False(t, c.Hooks[1].Enabled)
	require.Contains(t, c.Hooks[1].Disabled, `persistent is "always", want true, false or "session"`)
	require.False(t, c.Hooks[2].PerSession)
	require.True(t, e.PerSession())
}
