package run

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

// hangGuard is the slack a time bound in these tests allows beyond the time the behaviour
// needs: only a real hang (the scripts sleep 30 s) exceeds it, never a loaded machine.
// Speed is measured by the benchmarks, not asserted here.
const hangGuard = 10 * time.Second

func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	realDir, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	// A program only the child's PATH knows about.
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "myhook"), []byte("#!/bin/sh\nprintf 'from myhook %s' \"$1\"\n"), 0o755))
	stdin := append([]byte("line one\n\x00binary\xff\n"), bytes.Repeat([]byte("x"), 100_000)...)

	tests := []struct {
		name       string
		spec       Spec
		code       int
		signal     string
		out, errs  string
		outIsStdin bool
	}{
		{name: "exit 0", spec: Spec{Argv: sh("exit 0")}, code: 0},
		{name: "exit 1", spec: Spec{Argv: sh("exit 1")}, code: 1},
		{name: "exit 2", spec: Spec{Argv: sh("exit 2")}, code: 2},
		{name: "exit 7", spec: Spec{Argv: sh("exit 7")}, code: 7},
		{name: "streams", spec: Spec{Argv: sh(`printf 'out\n'; printf 'err' >&2; printf 'more'`)}, out: "out\nmore", errs: "err"},
		{name: "stdin exact", spec: Spec{Argv: []string{"cat"}, Stdin: stdin, OutputCap: 1 << 20}, outIsStdin: true},
		{name: "nil stdin is empty", spec: Spec{Argv: []string{"cat"}}, out: ""},
		{name: "env is whole", spec: Spec{Argv: sh(`printf '%s|%s' "$FOO" "${HOME-unset}"`), Env: []string{"FOO=bar baz"}}, out: "bar baz|unset"},
		{name: "dir", spec: Spec{Argv: []string{"pwd"}, Dir: dir}, out: realDir + "\n"},
		{name: "path from env", spec: Spec{Argv: []string{"myhook", "a b"}, Env: []string{"PATH=/nope", "PATH=" + bin + ":/usr/bin:/bin"}}, out: "from myhook a b"},
		{name: "signal", spec: Spec{Argv: sh(`kill -SEGV $$`)}, code: -1, signal: "SIGSEGV"},
		{name: "timeout not reached", spec: Spec{Argv: sh("echo ok"), Timeout: 5 * time.Second}, out: "ok\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Run(context.Background(), tc.spec)
			require.NoError(t, r.Err)
			require.Equal(t, tc.code, r.ExitCode)
			require.Equal(t, tc.signal, r.Signal)
			require.False(t, r.TimedOut)
			if tc.outIsStdin {
				require.Equal(t, stdin, r.Stdout)
			} else {
				require.Equal(t, tc.out, string(r.Stdout))
			}
			require.Equal(t, tc.errs, string(r.Stderr))
			require.EqualValues(t, len(r.Stdout), r.StdoutBytes)
			require.EqualValues(t, len(r.Stderr), r.StderrBytes)
			require.False(t, r.StdoutTruncated)
			require.False(t, r.StderrTruncated)
			require.Positive(t, r.Duration)
		})
	}
}

func TestRunOutputCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		script             string
		cap                int
		outKept, errKept   int
		outTotal, errTotal int64
	}{
		{name: "1 MiB at cap 1024", script: "head -c 1048576 /dev/zero", cap: 1024, outKept: 1024, outTotal: 1 << 20},
		{name: "both streams flooded", script: "head -c 1048576 /dev/zero; head -c 3000000 /dev/zero >&2", cap: 1024,
			outKept: 1024, outTotal: 1 << 20, errKept: 1024, errTotal: 3000000},
		{name: "default cap 32 KiB", script: "head -c 40000 /dev/zero", cap: 0, outKept: 32 << 10, outTotal: 40000},
		{name: "exactly at cap", script: "head -c 1024 /dev/zero", cap: 1024, outKept: 1024, outTotal: 1024},
		{name: "negative cap counts only", script: "head -c 5000 /dev/zero", cap: -1, outKept: 0, outTotal: 5000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The timeout only guards against a deadlock; it must not fire.
			r := Run(context.Background(), Spec{Argv: sh(tc.script), OutputCap: tc.cap, Timeout: 10 * time.Second})
			require.NoError(t, r.Err)
			require.False(t, r.TimedOut)
			require.Equal(t, 0, r.ExitCode)
			require.Len(t, r.Stdout, tc.outKept)
			require.Len(t, r.Stderr, tc.errKept)
			require.Equal(t, tc.outTotal, r.StdoutBytes)
			require.Equal(t, tc.errTotal, r.StderrBytes)
			require.Equal(t, tc.outTotal > int64(tc.outKept), r.StdoutTruncated)
			require.Equal(t, tc.errTotal > int64(tc.errKept), r.StderrTruncated)
		})
	}
}

func TestRunStdinNeverRead(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("y"), 4<<20)

	t.Run("exits", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		r := Run(context.Background(), Spec{Argv: []string{"true"}, Stdin: big})
		require.Less(t, time.Since(start), hangGuard)
		require.NoError(t, r.Err)
		require.Equal(t, 0, r.ExitCode)
	})
	t.Run("sleeps past its timeout", func(t *testing.T) {
		t.Parallel()
		// A grace longer than the guard: waiting it out would show.
		spec := Spec{Argv: []string{"sleep", "30"}, Stdin: big, Timeout: 300 * time.Millisecond, Grace: 2 * hangGuard}
		start := time.Now()
		r := Run(context.Background(), spec)
		// sleep dies of SIGTERM, so Run need not wait out the grace.
		require.Less(t, time.Since(start), spec.Timeout+hangGuard)
		require.NoError(t, r.Err)
		require.True(t, r.TimedOut)
		require.Equal(t, -1, r.ExitCode)
		require.Equal(t, "SIGTERM", r.Signal)
	})
}

// treeScript starts a leader and two grandchildren that all ignore SIGTERM, one of
// them holding stdout, and records their pids in $PIDS.
const treeScript = `
trap '' TERM
echo $$ > "$PIDS.tmp"
sh -c 'echo $$ >> "$PIDS.tmp"; exec sleep 30' &
sleep 30 >/dev/null 2>&1 &
echo $! >> "$PIDS.tmp"
while [ $(wc -l < "$PIDS.tmp") -lt 3 ]; do sleep 0.01; done
mv "$PIDS.tmp" "$PIDS"
echo started
sleep 30
`

// detachedScript's leader obeys SIGTERM, but a grandchild that no longer holds
// any pipe ignores it, so Wait returns at once and only the group check finds it.
const detachedScript = `
echo $$ > "$PIDS.tmp"
sh -c 'trap "" TERM; echo $$ >> "$PIDS.tmp"; exec sleep 30' >/dev/null 2>&1 &
sleep 30 &
echo $! >> "$PIDS.tmp"
while [ $(wc -l < "$PIDS.tmp") -lt 3 ]; do sleep 0.01; done
mv "$PIDS.tmp" "$PIDS"
echo started
wait
`

// setsidScript's grandchild leaves the process group and session (setsid) and ignores
// SIGTERM: a kill of the group alone would miss it.
const setsidScript = `
trap '' TERM
echo $$ > "$PIDS.tmp"
setsid sh -c 'trap "" TERM; echo $$ >> "$PIDS.tmp"; exec sleep 30' >/dev/null 2>&1 &
sleep 30 &
echo $! >> "$PIDS.tmp"
while [ $(wc -l < "$PIDS.tmp") -lt 3 ]; do sleep 0.01; done
mv "$PIDS.tmp" "$PIDS"
echo started
wait
`

func TestRunTimeoutKillsTree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script, signal string
	}{
		{name: "all ignore TERM, grandchild holds stdout", script: treeScript, signal: "SIGKILL"},
		{name: "detached grandchild ignores TERM", script: detachedScript, signal: "SIGTERM"},
		{name: "grandchild in its own session ignores TERM", script: setsidScript, signal: "SIGKILL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pids")
			spec := Spec{
				Argv:    sh(tc.script),
				Env:     append(os.Environ(), "PIDS="+pidFile),
				Timeout: time.Second,
				Grace:   time.Second,
			}
			start := time.Now()
			r := Run(context.Background(), spec)
			elapsed := time.Since(start)

			require.NoError(t, r.Err)
			require.True(t, r.TimedOut)
			require.Equal(t, -1, r.ExitCode)
			require.Equal(t, tc.signal, r.Signal)
			require.Equal(t, "started\n", string(r.Stdout), "output so far is kept")
			require.Less(t, elapsed, spec.Timeout+spec.Grace+hangGuard)
			// The grandchild that ignored SIGTERM was given its grace.
			require.GreaterOrEqual(t, elapsed, spec.Timeout+spec.Grace)
			requireTreeDead(t, pidFile)
		})
	}
}

func TestRunCancelKillsTree(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := Spec{
		Argv:    sh(treeScript),
		Env:     append(os.Environ(), "PIDS="+pidFile),
		Timeout: time.Minute,
		Grace:   500 * time.Millisecond,
	}
	cancelled := make(chan time.Time, 1)
	go func() {
		waitFile(pidFile)
		cancelled <- time.Now()
		cancel()
	}()
	r := Run(ctx, spec)
	elapsed := time.Since(<-cancelled)

	require.ErrorIs(t, r.Err, context.Canceled)
	require.False(t, r.TimedOut)
	require.False(t, r.NotFound())
	require.Equal(t, -1, r.ExitCode)
	require.Less(t, elapsed, spec.Grace+hangGuard)
	requireTreeDead(t, pidFile)

	t.Run("already cancelled", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pids")
		r := Run(ctx, Spec{Argv: sh(`echo $$ > "$PIDS"`), Env: []string{"PIDS=" + pidFile}})
		require.ErrorIs(t, r.Err, context.Canceled)
		require.Equal(t, -1, r.ExitCode)
		require.NoFileExists(t, pidFile, "the child must not start")
	})
}

func TestRunGrandchildHoldsStdout(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	spec := Spec{
		Argv:  sh(`echo hi; sleep 30 & echo $! > "$PIDS"; exit 3`),
		Env:   append(os.Environ(), "PIDS="+pidFile),
		Grace: 300 * time.Millisecond,
	}
	start := time.Now()
	r := Run(context.Background(), spec)
	elapsed := time.Since(start)

	pids := readPids(t, pidFile)
	require.Len(t, pids, 1)
	t.Cleanup(func() { _ = syscall.Kill(pids[0], syscall.SIGKILL) })

	require.NoError(t, r.Err)
	require.False(t, r.TimedOut)
	require.Equal(t, 3, r.ExitCode)
	require.Equal(t, "hi\n", string(r.Stdout))
	require.GreaterOrEqual(t, elapsed, spec.Grace, "Run waits the grace for the pipe")
	require.Less(t, elapsed, spec.Grace+hangGuard, "Run must not wait for the grandchild's 30 s")
	// It held the output for the whole grace: hung, not a daemon, so it is killed.
	require.True(t, r.Stragglers)
	require.False(t, alive(pids[0]), "grandchild %d survives", pids[0])
}

func TestRunStartErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(plain, []byte("#!/bin/sh\necho no\n"), 0o644))

	tests := []struct {
		name     string
		spec     Spec
		is       error
		notFound bool
	}{
		{name: "not found", spec: Spec{Argv: []string{"hookexec-no-such-command"}}, is: exec.ErrNotFound, notFound: true},
		{name: "not on the child's PATH", spec: Spec{Argv: []string{"sh", "-c", "true"}, Env: []string{"PATH=" + dir}}, is: exec.ErrNotFound, notFound: true},
		{name: "no PATH", spec: Spec{Argv: []string{"sh"}, Env: []string{}}, is: exec.ErrNotFound, notFound: true},
		{name: "permission denied", spec: Spec{Argv: []string{plain}}, is: fs.ErrPermission},
		{name: "missing path", spec: Spec{Argv: []string{filepath.Join(dir, "missing")}}, is: fs.ErrNotExist},
		{name: "bad dir", spec: Spec{Argv: []string{"/bin/true"}, Dir: filepath.Join(dir, "missing")}, is: fs.ErrNotExist},
		{name: "empty argv", spec: Spec{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Run(context.Background(), tc.spec)
			require.Error(t, r.Err)
			require.True(t, strings.HasPrefix(r.Err.Error(), "hookexec: "), r.Err.Error())
			if tc.is != nil {
				require.ErrorIs(t, r.Err, tc.is)
			}
			require.Equal(t, tc.notFound, r.NotFound())
			require.Equal(t, -1, r.ExitCode)
			require.False(t, r.TimedOut)
		})
	}

	t.Run("dot on PATH is refused", func(t *testing.T) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "dotted"), []byte("#!/bin/sh\n"), 0o755))
		r := Run(context.Background(), Spec{Argv: []string{"dotted"}, Env: []string{"PATH=:/bin"}, Dir: dir})
		require.ErrorIs(t, r.Err, exec.ErrDot)
	})
}

// TestRunCleanSignalMask blocks signals on the calling thread, as a C host may,
// and checks that the child still starts with none blocked.
func TestRunCleanSignalMask(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	blocked := uint64(1)<<(syscall.SIGTERM-1) | 1<<(syscall.SIGINT-1) | 1<<(syscall.SIGUSR1-1)
	var old uint64
	_, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 0 /* SIG_BLOCK */, uintptr(unsafe.Pointer(&blocked)), uintptr(unsafe.Pointer(&old)), 8, 0, 0)
	require.Zero(t, e)
	defer syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, sigSetmask, uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)

	r := Run(context.Background(), Spec{Argv: []string{"grep", "^SigBlk:", "/proc/self/status"}})
	require.NoError(t, r.Err)
	require.Equal(t, "SigBlk:\t0000000000000000\n", string(r.Stdout))

	var now uint64
	sigprocmask(sigSetmask, nil, &now)
	require.Equal(t, blocked|old, now, "the caller's mask is left as it was")
}

func TestRunConcurrent(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			want := strings.Repeat(strconv.Itoa(i), 1000)
			r := Run(context.Background(), Spec{Argv: []string{"cat"}, Stdin: []byte(want), Timeout: 10 * time.Second})
			require.NoError(t, r.Err)
			require.Equal(t, want, string(r.Stdout))
		})
	}
	wg.Wait()
}

// TestRunWithoutPidfd runs the process tests again the way Run works on kernels
// older than 5.3, where a goroutine waits for the leader instead of a pidfd. It is
// not parallel, so no other test runs while pidfdWorks is swapped.
func TestRunWithoutPidfd(t *testing.T) {
	saved := pidfdWorks
	pidfdWorks = func() bool { return false }
	t.Cleanup(func() { pidfdWorks = saved })
	t.Run("Run", TestRun)
	t.Run("OutputCap", TestRunOutputCap)
	t.Run("StdinNeverRead", TestRunStdinNeverRead)
	t.Run("TimeoutKillsTree", TestRunTimeoutKillsTree)
	t.Run("CancelKillsTree", TestRunCancelKillsTree)
	t.Run("GrandchildHoldsStdout", TestRunGrandchildHoldsStdout)
	t.Run("Concurrent", TestRunConcurrent)
}

// TestRunNoLeaks checks that Run gives back every descriptor and goroutine it
// takes, whichever way the run ends. It is not parallel, so it counts alone.
func TestRunNoLeaks(t *testing.T) {
	countFds := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		require.NoError(t, err)
		return len(entries)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	live, stop := context.WithCancel(context.Background())
	defer stop()
	big := bytes.Repeat([]byte("z"), 1<<20)
	specs := []struct {
		ctx  context.Context
		spec Spec
	}{
		{live, Spec{Argv: []string{"true"}}},
		{live, Spec{Argv: []string{"cat"}, Stdin: []byte("hi")}},
		{live, Spec{Argv: []string{"cat"}, Stdin: big, Timeout: 10 * time.Second}},
		{live, Spec{Argv: []string{"true"}, Stdin: big}},
		{live, Spec{Argv: []string{"hookexec-no-such-command"}}},
		{live, Spec{Argv: []string{"/bin/true"}, Dir: "/nonexistent-dir"}},
		{cancelled, Spec{Argv: []string{"true"}, Stdin: []byte("x")}},
		{live, Spec{Argv: []string{"sleep", "5"}, Stdin: big, Timeout: 50 * time.Millisecond, Grace: 50 * time.Millisecond}},
	}
	Run(live, specs[0].spec) // opens the shared /dev/null
	fds, goroutines := countFds(), runtime.NumGoroutine()
	for range 3 {
		for _, s := range specs {
			Run(s.ctx, s.spec)
		}
	}
	require.Equal(t, fds, countFds(), "descriptors leak")
	// Eventually would count its own goroutine.
	for end := time.Now().Add(hangGuard); runtime.NumGoroutine() > goroutines && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), goroutines, "goroutines leak")
}

// TestRunSigchldIgnored runs a child while the host ignores SIGCHLD, so the kernel
// reaps it: Run must return the output with a wait error instead of hanging. It is
// not parallel, since every child of the process is reaped meanwhile.
func TestRunSigchldIgnored(t *testing.T) {
	// Not signal.Ignore: signal.Reset would leave SIGCHLD ignored for later tests.
	var old [4]uint64 // big enough for the kernel's struct sigaction
	_, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGCHLD), 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0)
	require.Zero(t, e)
	ign := old
	ign[0] = 1 // SIG_IGN
	_, _, e = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGCHLD), uintptr(unsafe.Pointer(&ign)), 0, 8, 0, 0)
	require.Zero(t, e)
	defer syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGCHLD), uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	for _, pidfd := range []bool{true, false} {
		t.Run(fmt.Sprintf("pidfd=%v", pidfd), func(t *testing.T) {
			if !pidfd {
				saved := pidfdWorks
				pidfdWorks = func() bool { return false }
				defer func() { pidfdWorks = saved }()
			}
			start := time.Now()
			r := Run(context.Background(), Spec{Argv: sh("echo out; sleep 0.1"), Timeout: 10 * time.Second})
			require.ErrorIs(t, r.Err, syscall.ECHILD)
			require.Equal(t, "out\n", string(r.Stdout))
			require.Equal(t, -1, r.ExitCode)
			require.Less(t, time.Since(start), hangGuard)
		})
	}
}

func TestDedupEnv(t *testing.T) {
	clean := []string{"A=1", "B=2", "=C:=x", "weird"}
	got, err := dedupEnv(clean)
	require.NoError(t, err)
	require.Equal(t, clean, got)
	require.Same(t, &clean[0], &got[0], "a clean env is not copied")

	env := []string{"A=1", "B=2", "A=3", "=C:=x", "=C:=y", "weird", "", "N=a\x00b"}
	got, err = dedupEnv(env)
	require.ErrorContains(t, err, "NUL")
	require.Equal(t, []string{"B=2", "A=3", "=C:=y", "weird"}, got)
	require.Equal(t, (&exec.Cmd{Env: env}).Environ(), got, "as os/exec does")
	require.Equal(t, "A=1", env[0], "the caller's env is left alone")
}

func TestSignalName(t *testing.T) {
	require.Equal(t, "SIGKILL", signalName(syscall.SIGKILL))
	require.Equal(t, "SIGSEGV", signalName(syscall.SIGSEGV))
	require.Equal(t, "SIG40", signalName(syscall.Signal(40)))
}

func BenchmarkRunTrue(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		r := Run(context.Background(), Spec{Argv: []string{"/bin/true"}})
		if r.Err != nil || r.ExitCode != 0 {
			b.Fatal(r)
		}
	}
}

// BenchmarkRunEngineSpec spawns /bin/true with what the engine passes on every
// fire: a cancellable parent, a timeout and grace, a JSON payload on stdin, the
// host's environment plus hook variables, a working directory and the default cap.
func BenchmarkRunEngineSpec(b *testing.B) {
	b.ReportAllocs()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := os.Environ()
	for i := range 10 {
		env = append(env, "HOOK_VAR_"+strconv.Itoa(i)+"=value "+strconv.Itoa(i))
	}
	stdin := []byte(`{"session_id":"s-1234","transcript_path":"/tmp/t.jsonl","cwd":"/work","hook_event_name":"PreToolUse","tool_name":"Bash","n":1}` + "\n")
	spec := Spec{
		Argv:      []string{"/bin/true"},
		Stdin:     stdin,
		Env:       env,
		Dir:       b.TempDir(),
		Timeout:   30 * time.Second,
		Grace:     time.Second,
		OutputCap: 32 << 10,
	}
	for b.Loop() {
		r := Run(ctx, spec)
		if r.Err != nil || r.ExitCode != 0 {
			b.Fatal(r)
		}
	}
}

func BenchmarkRunTrueTimeout(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		r := Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Stdin: []byte("{}\n"), Timeout: 5 * time.Second})
		if r.Err != nil || r.ExitCode != 0 {
			b.Fatal(r)
		}
	}
}

// BenchmarkRunTimeoutOvershoot measures how long past its timeout Run takes to return for
// a hook that dies of SIGTERM (ms/overshoot); the tests only guard against hangs.
func BenchmarkRunTimeoutOvershoot(b *testing.B) {
	spec := Spec{Argv: []string{"sleep", "30"}, Timeout: 20 * time.Millisecond, Grace: time.Second}
	var over time.Duration
	for b.Loop() {
		start := time.Now()
		if r := Run(context.Background(), spec); !r.TimedOut {
			b.Fatal(r)
		}
		over += time.Since(start) - spec.Timeout
	}
	b.ReportMetric(float64(over.Microseconds())/1000/float64(b.N), "ms/overshoot")
}

// requireTreeDead checks that every recorded pid and every member of the leader's
// group is gone. Zombies count as gone: they are dead, and an init that does not
// reap orphans keeps them forever. A SIGKILL is delivered asynchronously: a member the
// runner killed may still be on its way out (state R) when the runner returns, so the
// check waits for the tree, under a hang guard only a process that was never killed
// exceeds.
func requireTreeDead(t *testing.T, pidFile string) {
	t.Helper()
	pids := readPids(t, pidFile)
	require.Len(t, pids, 3)
	pgid := pids[0]
	deadline := time.Now().Add(10 * time.Second)
	for {
		var survivors []string
		if err := syscall.Kill(-pgid, 0); err != syscall.ESRCH {
			if g := liveGroup(pgid); len(g) > 0 {
				survivors = append(survivors, fmt.Sprintf("group %d: %v", pgid, g))
			}
		}
		for _, pid := range pids {
			if alive(pid) {
				survivors = append(survivors, fmt.Sprintf("pid %d", pid))
			}
		}
		if len(survivors) == 0 {
			return
		}
		if time.Now().After(deadline) {
			require.Empty(t, survivors, "the tree survives its kill")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitFile(path string) {
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	return pids
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return false
	}
	state, _, ok := statOf(strconv.Itoa(pid))
	return ok && state != "Z" && state != "X"
}

// liveGroup lists the non-zombie processes of group pgid.
func liveGroup(pgid int) []string {
	entries, _ := os.ReadDir("/proc")
	var live []string
	for _, e := range entries {
		state, pgrp, ok := statOf(e.Name())
		if ok && pgrp == strconv.Itoa(pgid) && state != "Z" && state != "X" {
			live = append(live, fmt.Sprintf("%s(%s)", e.Name(), state))
		}
	}
	return live
}

func statOf(pid string) (state, pgrp string, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return "", "", false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 3 {
		return "", "", false
	}
	return f[0], f[2], true
}
