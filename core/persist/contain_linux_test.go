package persist

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/run"
)

// A persistent hook gets the containment of a one-shot hook: where runs get a cgroup, a
// process it started that left its process group (setsid) and still holds its stdout open
// does not outlive Close, nor a failed request that replaces the process.
func TestPersistentHookTreeEndsWithIt(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	if !run.Contained() {
		t.Skip("this host may not create cgroups (needs cgroup v2 and a writable cgroup): a process group is all there is")
	}
	for _, end := range []string{"close", "crash"} {
		t.Run(end, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "escaped.pid")
			script := filepath.Join(dir, "hook.sh")
			// The escapee keeps the hook's stdout (and stderr) open, as a daemon started
			// carelessly does.
			require.NoError(t, os.WriteFile(script, []byte(`setsid sh -c 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 300' sh "$PIDFILE" &
while IFS= read -r line; do
  case "$line" in
    *X_CRASH*) exit 3 ;;
    *) printf '{"stdout":"ok"}\n' ;;
  esac
done`), 0o644))
			pool := NewPool()
			defer pool.Close(time.Second)
			h := pool.Hook("h", Spec{Argv: []string{"/bin/sh", script}, Env: append(os.Environ(), "PIDFILE="+pidFile), Grace: 200 * time.Millisecond})
			require.Equal(t, "ok", string(ask(h, "{}", 10*time.Second).Stdout))
			pid := waitPid(t, pidFile)
			require.True(t, running(pid))
			if end == "close" {
				pool.Close(200 * time.Millisecond)
			} else {
				r := ask(h, "X_CRASH", 10*time.Second)
				require.ErrorIs(t, r.Err, ErrFailed)
			}
			for deadline := time.Now().Add(10 * time.Second); running(pid) && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			alive := running(pid)
			if alive {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			require.False(t, alive, "the setsid child of the persistent hook survived its end (%s)", end)
		})
	}
}

func waitPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			require.NoError(t, err)
			return pid
		}
	}
	t.Fatal("the hook's setsid child never started")
	return 0
}

// running reports whether pid runs; a zombie waiting for its reaper is not running.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
