package suite

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startSleep starts a real sleep whose command line begins with argv0 (so it looks like the
// agent a pattern names) and whose environment holds extra; it is killed when the test ends.
// It returns once /proc shows the sleep itself, not the forked test binary before its exec.
func startSleep(t *testing.T, argv0 string, extra ...string) int {
	t.Helper()
	path, err := exec.LookPath("sleep")
	require.NoError(t, err)
	cmd := exec.Command(path, "300")
	cmd.Args[0] = argv0
	cmd.Env = append(os.Environ(), extra...)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	waitExec(t, cmd.Process.Pid, argv0)
	return cmd.Process.Pid
}

// waitExec waits until pid's command line starts with argv0 (its exec done).
func waitExec(t *testing.T, pid int, argv0 string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		raw, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if bytes.HasPrefix(raw, []byte(argv0+"\x00")) {
			return
		}
	}
	t.Fatalf("process %d never showed %q", pid, argv0)
}

func pids(ps []Process) []int {
	out := make([]int, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.PID)
	}
	return out
}

// The leftover check looks only at this run's processes: for each agent's pattern, a
// process carrying the run's mark is reported, while the same-named process of another run
// (another mark) or of no run (no mark) is not, though a scan by command line alone
// (pgrep -f, the check before the mark) finds all three.
func TestMarkedOnlyThisRun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the leftover check reads /proc")
	}
	mark := newRunMark("unit")
	other := newRunMark("unit")
	require.NotEqual(t, mark, other, "two runs share a mark")
	for _, tc := range []struct {
		agent, argv0, pattern string
	}{
		{"droid", "/cache/@factory/cli-linux-x64/bin/droid exec --settings /s/settings.json", "cli-linux-x64/bin/droid exec --settings"},
		{"auggie", "/cache/node_modules/.bin/auggie --print --dont-save-session", "auggie --print --dont-save-session"},
		{"opencode", "/cache/opencode-linux-x64/bin/opencode run -m fake/fake-model", "opencode-linux-x64/bin/opencode run -m fake/fake-model"},
		{"cline", "/cache/node_modules/.bin/cline --cline-hub-daemon", ""},
		{"copilot", "/cache/node_modules/.bin/copilot -p go --allow-all-tools", ""},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			ours := startSleep(t, tc.argv0, RunMarkEnv+"="+mark)
			theirs := startSleep(t, tc.argv0, RunMarkEnv+"="+other)
			// A value that only begins like the mark is another run's too.
			prefixed := startSleep(t, tc.argv0, RunMarkEnv+"="+mark+"x")
			unmarked := startSleep(t, tc.argv0)

			left, err := Marked(mark, tc.pattern)
			require.NoError(t, err)
			assert.Equal(t, []int{ours}, pids(left), "only this run's process is a leftover")
			require.Len(t, left, 1)
			assert.True(t, strings.HasPrefix(left[0].Command, tc.argv0+" 300"), left[0].Command)

			// The same processes by command line alone: the others are there to be found.
			// (A "" pattern stands for "any process of the run"; pgrep gets the argv0.)
			byName := tc.pattern
			if byName == "" {
				byName = tc.argv0
			}
			out, _ := exec.Command("pgrep", "-f", "--", byName).Output()
			var found []int
			for _, f := range strings.Fields(string(out)) {
				n, _ := strconv.Atoi(f)
				found = append(found, n)
			}
			for _, pid := range []int{ours, theirs, prefixed, unmarked} {
				assert.True(t, slices.Contains(found, pid), "pgrep -f %q does not see %d: the test shows nothing", byName, pid)
			}
		})
	}
}

// A daemon the agent detaches (a new session, its parent gone) inherits the environment,
// so it is still this run's leftover; one that ended is not.
func TestMarkedDetachedDaemon(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the leftover check reads /proc")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	mark := newRunMark("unit")
	sh := exec.Command("/bin/sh", "-c", `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!`)
	sh.Env = append(os.Environ(), RunMarkEnv+"="+mark)
	out, err := sh.Output()
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	require.NoError(t, err)
	daemon, err := os.FindProcess(pid)
	require.NoError(t, err)
	t.Cleanup(func() { _ = daemon.Kill() })
	waitExec(t, pid, "sleep")

	left, err := Marked(mark, "sleep 300")
	require.NoError(t, err)
	assert.Equal(t, []int{pid}, pids(left), "the detached daemon outlived its parent and is this run's")

	require.NoError(t, daemon.Kill())
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if left, err = Marked(mark, ""); err == nil && len(left) == 0 {
			return
		}
	}
	t.Fatalf("killed, still reported: %v %v", left, err)
}

// An empty mark is refused: the check must know which run it looks for.
func TestMarkedNeedsAMark(t *testing.T) {
	_, err := Marked("", "")
	require.Error(t, err)
}
