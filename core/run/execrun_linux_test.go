package run

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The os/exec runner is the one macOS and Windows use; these tests hold it to Run's
// contract on Linux, where it builds too.

func execRun(ctx context.Context, spec Spec) Result {
	start := time.Now()
	r := runExec(ctx, &spec, start)
	r.Duration = time.Since(start)
	return r
}

func TestExecRunner(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "myhook"), []byte("#!/bin/sh\nprintf 'from myhook %s' \"$1\"\n"), 0o755))
	plain := filepath.Join(bin, "plain")
	require.NoError(t, os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644))
	stdin := append([]byte("line one\n\x00binary\xff\n"), bytes.Repeat([]byte("x"), 100_000)...)

	tests := []struct {
		name         string
		spec         Spec
		code         int
		signal       string
		out, errs    string
		outTotal     int64
		outTruncated bool
		is           error
	}{
		{name: "exit 2", spec: Spec{Argv: sh("exit 2")}, code: 2},
		{name: "streams", spec: Spec{Argv: sh(`printf 'out\n'; printf 'err' >&2`)}, out: "out\n", errs: "err", outTotal: 4},
		{name: "stdin exact", spec: Spec{Argv: []string{"cat"}, Stdin: stdin, OutputCap: 1 << 20}, out: string(stdin), outTotal: int64(len(stdin))},
		{name: "nil stdin is empty", spec: Spec{Argv: []string{"cat"}}},
		{name: "env is whole", spec: Spec{Argv: sh(`printf '%s|%s' "$FOO" "${HOME-unset}"`), Env: []string{"FOO=bar"}}, out: "bar|unset", outTotal: 9},
		{name: "path from env", spec: Spec{Argv: []string{"myhook", "a b"}, Env: []string{"PATH=/nope", "PATH=" + bin + ":/usr/bin:/bin"}}, out: "from myhook a b", outTotal: 15},
		{name: "signal", spec: Spec{Argv: sh(`kill -SEGV $$`)}, code: -1, signal: "SIGSEGV"},
		{name: "cap", spec: Spec{Argv: sh("head -c 5000 /dev/zero"), OutputCap: 1000}, out: string(make([]byte, 1000)), outTotal: 5000, outTruncated: true},
		{name: "not found", spec: Spec{Argv: []string{"hookexec-no-such-command"}}, code: -1, is: exec.ErrNotFound},
		{name: "permission denied", spec: Spec{Argv: []string{plain}}, code: -1, is: fs.ErrPermission},
		{name: "dot on PATH", spec: Spec{Argv: []string{"myhook"}, Env: []string{"PATH=:/bin"}, Dir: bin}, code: -1, is: exec.ErrDot},
		{name: "empty argv", spec: Spec{}, code: -1, is: errEmptyArgv},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := execRun(context.Background(), tc.spec)
			if tc.is != nil {
				require.ErrorIs(t, r.Err, tc.is)
			} else {
				require.NoError(t, r.Err)
			}
			require.Equal(t, tc.code, r.ExitCode)
			require.Equal(t, tc.signal, r.Signal)
			require.False(t, r.TimedOut)
			require.Equal(t, tc.out, string(r.Stdout))
			require.Equal(t, tc.errs, string(r.Stderr))
			require.Equal(t, tc.outTotal, r.StdoutBytes)
			require.Equal(t, tc.outTruncated, r.StdoutTruncated)
		})
	}
}

func TestExecRunnerTimeoutKillsTree(t *testing.T) {
	t.Parallel()
	for _, script := range []string{treeScript, detachedScript} {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pids")
			spec := Spec{Argv: sh(script), Env: append(os.Environ(), "PIDS="+pidFile), Timeout: 500 * time.Millisecond, Grace: 300 * time.Millisecond}
			r := execRun(context.Background(), spec)
			require.NoError(t, r.Err)
			require.True(t, r.TimedOut)
			require.Equal(t, -1, r.ExitCode)
			require.NotEmpty(t, r.Signal)
			require.Equal(t, "started\n", string(r.Stdout), "output so far is kept")
			requireTreeDead(t, pidFile)
		})
	}
}

func TestExecRunnerCancel(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		waitFile(pidFile)
		cancel()
	}()
	r := execRun(ctx, Spec{Argv: sh(treeScript), Env: append(os.Environ(), "PIDS="+pidFile), Timeout: 20 * time.Second, Grace: 300 * time.Millisecond})
	require.ErrorIs(t, r.Err, context.Canceled)
	require.False(t, r.TimedOut)
	require.Equal(t, -1, r.ExitCode)
	requireTreeDead(t, pidFile)

	r = execRun(ctx, Spec{Argv: sh(`echo $$ > "$PIDS"`), Env: []string{"PIDS=" + pidFile + ".2"}})
	require.ErrorIs(t, r.Err, context.Canceled)
	require.NoFileExists(t, pidFile+".2", "the child must not start once ctx has ended")
}

func TestExecRunnerGrandchildHoldsStdout(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	spec := Spec{Argv: sh(`echo hi; sleep 30 & echo $! > "$PIDS"; exit 3`), Env: append(os.Environ(), "PIDS="+pidFile), Grace: 200 * time.Millisecond}
	r := execRun(context.Background(), spec)
	pids := readPids(t, pidFile)
	require.Len(t, pids, 1)
	t.Cleanup(func() { _ = syscall.Kill(pids[0], syscall.SIGKILL) })
	require.NoError(t, r.Err)
	require.Equal(t, 3, r.ExitCode)
	require.Equal(t, "hi\n", string(r.Stdout))
	require.GreaterOrEqual(t, r.Duration, spec.Grace, "the runner waits the grace for the pipe")
	require.True(t, alive(pids[0]), "without a timeout the background process is left alone")
}
