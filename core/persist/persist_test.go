package persist

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/run"
)

// hookScript speaks protocol v1 in sh: X_CRASH exits 3, X_GARBAGE answers text, X_SLOW
// sleeps, X_SPAM answers and then writes 1 MiB outside any request, X_STALE answers with a
// second line after its answer, X_BIG answers 100 000 bytes of stdout; else it answers its pid.
const hookScript = `while IFS= read -r line; do
  case "$line" in
    *X_CRASH*) echo "boom" >&2; exit 3 ;;
    *X_GARBAGE*) echo "not json" ;;
    *X_SLOW*) sleep 30 ;;
    *X_SPAM*) printf '{"stdout":"spam"}\n'; i=0; while [ $i -lt 1024 ]; do printf '%01024d\n' 0; printf '%01024d' 0 >&2; i=$((i+1)); done; : > "$0.done" ;;
    *X_STALE*) printf '{"stdout":"first"}\n{"stdout":"stale"}\n'; : > "$0.stale" ;;
    *X_BIG*) printf '{"stdout":"%0100000d"}\n' 0 ;;
    *) printf '{"stdout":"%s","stderr":"e","exit_code":2}\n' "$$" ;;
  esac
done`

// withHook runs f against a fresh pool's hook running the protocol script.
func withHook(t *testing.T, f func(t *testing.T, h *Hook)) {
	script := filepath.Join(t.TempDir(), "hook.sh")
	require.NoError(t, os.WriteFile(script, []byte(hookScript), 0o644))
	pool := NewPool()
	t.Cleanup(func() { pool.Close(time.Second) })
	f(t, pool.Hook("h", Spec{Argv: []string{"/bin/sh", script}, Grace: 200 * time.Millisecond}))
}

func ask(h *Hook, payload string, timeout time.Duration) run.Result {
	return h.Run(context.Background(), run.Spec{Stdin: []byte(payload), Timeout: timeout})
}

func TestRequestsReachOneProcess(t *testing.T) {
	withHook(t, func(t *testing.T, h *Hook) {
		r := ask(h, `{"n":1}`, 5*time.Second)
		require.NoError(t, r.Err)
		require.Equal(t, 2, r.ExitCode)
		require.Equal(t, "e", string(r.Stderr))
		pid := string(r.Stdout)
		require.Equal(t, pid, strconv.Itoa(h.Status().PID))
		r = ask(h, `{"n":2}`, 5*time.Second)
		require.Equal(t, pid, string(r.Stdout))
		require.Equal(t, 1, h.Status().Starts)
	})
}

func TestFailuresReplaceTheProcess(t *testing.T) {
	withHook(t, func(t *testing.T, h *Hook) {
		for _, tc := range []struct{ payload, want string }{
			{"X_CRASH", "it exited with status 3 without answering (stderr: boom)"},
			{"X_GARBAGE", `answer is not one JSON object line: "not json\n"`},
		} {
			first := string(ask(h, "{}", 5*time.Second).Stdout)
			r := ask(h, tc.payload, 5*time.Second)
			require.ErrorIs(t, r.Err, ErrFailed)
			require.Contains(t, r.Err.Error(), tc.want)
			second := string(ask(h, "{}", 5*time.Second).Stdout)
			require.NotEqual(t, first, second)
		}
		first := string(ask(h, "{}", 5*time.Second).Stdout)
		r := ask(h, "X_SLOW", 200*time.Millisecond)
		require.True(t, r.TimedOut)
		require.NoError(t, r.Err)
		require.NotEqual(t, first, string(ask(h, "{}", 5*time.Second).Stdout))
	})
}

func TestOutputOutsideRequestsNeverBlocks(t *testing.T) {
	withHook(t, func(t *testing.T, h *Hook) {
		require.Equal(t, "spam", string(ask(h, "X_SPAM", 5*time.Second).Stdout))
		// The hook writes 1 MiB to each stream outside any request, then leaves a mark: it
		// gets there only if hookexec drained it all.
		done := h.spec.Argv[1] + ".done"
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(done); err == nil {
				break
			}
			require.True(t, time.Now().Before(end), "the hook blocked writing outside a request")
		}
		time.Sleep(300 * time.Millisecond) // the last unsolicited lines are dropped meanwhile
		r := ask(h, "{}", 5*time.Second)
		require.NoError(t, r.Err)
		require.Equal(t, strconv.Itoa(h.Status().PID), string(r.Stdout))
		require.Equal(t, 1, h.Status().Starts)
	})
}

func TestCancelledRequestKillsTheProcess(t *testing.T) {
	withHook(t, func(t *testing.T, h *Hook) {
		pid := h.Status().PID
		require.Zero(t, pid)
		ask(h, "{}", 5*time.Second)
		pid = h.Status().PID
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		r := h.Run(ctx, run.Spec{Stdin: []byte("X_SLOW")})
		require.ErrorIs(t, r.Err, context.Canceled)
		require.Equal(t, "idle", h.Status().State)
		require.NotEqual(t, pid, h.Status().PID)
	})
}

func TestLineAfterTheAnswerIsNotTheNextAnswer(t *testing.T) {
	withHook(t, func(t *testing.T, h *Hook) {
		require.Equal(t, "first", string(ask(h, "X_STALE", 5*time.Second).Stdout))
		// The second line is written (the mark comes after it) before the next request:
		// output outside a request, dropped, never the next request's answer.
		stale := h.spec.Argv[1] + ".stale"
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(stale); err == nil {
				break
			}
			require.True(t, time.Now().Before(end), "the hook never wrote its second line")
		}
		r := ask(h, "{}", 5*time.Second)
		require.NoError(t, r.Err)
		require.Equal(t, strconv.Itoa(h.Status().PID), string(r.Stdout))
		require.Equal(t, 1, h.Status().Starts)
	})
}

func TestAnswerLongerThanAPipe(t *testing.T) {
	withHook(t, func(t *testing.T, h *Hook) {
		r := h.Run(context.Background(), run.Spec{Stdin: []byte("X_BIG"), Timeout: 5 * time.Second, OutputCap: 1 << 20})
		require.NoError(t, r.Err)
		require.Len(t, r.Stdout, 100000)
		require.False(t, r.StdoutTruncated)
		r = ask(h, "X_BIG", 5*time.Second) // the default cap, 32 KiB
		require.Len(t, r.Stdout, 32<<10)
		require.True(t, r.StdoutTruncated)
		require.EqualValues(t, 100000, r.StdoutBytes)
		require.Equal(t, strconv.Itoa(h.Status().PID), string(ask(h, "{}", 5*time.Second).Stdout))
	})
}

func TestRequestEndsWithItsOwnContext(t *testing.T) {
	withHook(t, func(t *testing.T, h *Hook) {
		// The first context a process serves stays watched; a request under another one is
		// ended by that one too.
		engine, stop := context.WithCancel(context.Background())
		defer stop()
		first := h.Run(engine, run.Spec{Stdin: []byte("{}"), Timeout: 5 * time.Second})
		require.NoError(t, first.Err)
		budget, cancel := context.WithCancel(engine)
		time.AfterFunc(100*time.Millisecond, cancel)
		r := h.Run(budget, run.Spec{Stdin: []byte("X_SLOW"), Timeout: 30 * time.Second})
		require.ErrorIs(t, r.Err, context.Canceled)
		again := h.Run(engine, run.Spec{Stdin: []byte("{}"), Timeout: 5 * time.Second})
		require.NoError(t, again.Err)
		require.NotEqual(t, string(first.Stdout), string(again.Stdout), "the cancelled process was replaced")
		// The engine's own context ending ends a request as well.
		time.AfterFunc(100*time.Millisecond, stop)
		r = h.Run(engine, run.Spec{Stdin: []byte("X_SLOW"), Timeout: 30 * time.Second})
		require.ErrorIs(t, r.Err, context.Canceled)
	})
}
