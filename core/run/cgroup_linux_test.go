package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// withoutCgroups runs f with cgroups off, as on a host that may not create them.
func withoutCgroups(t *testing.T, f func()) {
	was := cgroupsOff.Swap(true)
	defer cgroupsOff.Store(was)
	f()
}

// escapeScript starts a process that leaves the group (setsid), writes its pid and
// sleeps; the leader then hangs or, with EXIT set, exits while it holds stdout.
const escapeScript = `
setsid sh -c 'echo $$ > "$PIDS"; exec sleep 30' &
while [ ! -s "$PIDS" ]; do sleep 0.01; done
echo started
[ -n "$EXIT" ] && exit 0
exec sleep 30
`

// TestRunCgroupCatchesSetsid: a process that left the group escapes a group kill;
// only the run's cgroup reaches it. Without cgroups it survives, which is the one
// case the README names.
func TestRunCgroupCatchesSetsid(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	usable := Contained()
	for _, tc := range []struct {
		name string
		env  string
	}{
		{name: "timeout", env: "EXIT="},
		{name: "exits holding stdout", env: "EXIT=1"},
	} {
		for _, cg := range []bool{true, false} {
			t.Run(tc.name+"/cgroup="+strconv.FormatBool(cg), func(t *testing.T) {
				if cg && !usable {
					t.Skip("this host may not create cgroups (needs cgroup v2 and a writable cgroup)")
				}
				pidFile := filepath.Join(t.TempDir(), "pid")
				spec := Spec{
					Argv:    sh(escapeScript),
					Env:     append(os.Environ(), "PIDS="+pidFile, tc.env),
					Timeout: 500 * time.Millisecond,
					Grace:   200 * time.Millisecond,
				}
				var r Result
				if cg {
					r = Run(context.Background(), spec)
				} else {
					withoutCgroups(t, func() { r = Run(context.Background(), spec) })
				}
				require.NoError(t, r.Err)
				require.Equal(t, "started\n", string(r.Stdout))
				require.Equal(t, tc.env == "EXIT=", r.TimedOut)
				require.Equal(t, tc.env == "EXIT=1", r.Stragglers)
				pids := readPids(t, pidFile)
				require.Len(t, pids, 1)
				if cg {
					require.False(t, alive(pids[0]), "escaped pid %d survives its cgroup", pids[0])
					return
				}
				t.Cleanup(func() { syscall.Kill(pids[0], syscall.SIGKILL) })
				require.True(t, alive(pids[0]), "without a cgroup nothing reaches a process that left the group")
			})
		}
	}
	requireNoRunCgroups(t)
}

// TestRunCgroupKeepsDaemon: a background process that let go of the output is left
// running, with or without a cgroup, and the run's cgroup is still removed.
func TestRunCgroupKeepsDaemon(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	if !Contained() {
		t.Skip("this host may not create cgroups (needs cgroup v2 and a writable cgroup)")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := Run(context.Background(), Spec{
		Argv:    sh(`setsid sh -c 'echo $$ > "$PIDS"; exec sleep 30' >/dev/null 2>&1 </dev/null & while [ ! -s "$PIDS" ]; do sleep 0.01; done; echo ok`),
		Env:     append(os.Environ(), "PIDS="+pidFile),
		Timeout: 10 * time.Second,
		Grace:   200 * time.Millisecond,
	})
	require.NoError(t, r.Err)
	require.Equal(t, 0, r.ExitCode)
	require.False(t, r.Stragglers)
	pids := readPids(t, pidFile)
	require.Len(t, pids, 1)
	t.Cleanup(func() { syscall.Kill(pids[0], syscall.SIGKILL) })
	require.True(t, alive(pids[0]), "the daemon was killed")
	cg, err := os.ReadFile("/proc/" + strconv.Itoa(pids[0]) + "/cgroup")
	require.NoError(t, err)
	require.NotContains(t, string(cg), "hookexec-", "the daemon lives in the host's cgroup")
	requireNoRunCgroups(t)
}

// TestRunCgroupFallsBack: a failed start (a bad directory) is not blamed on the
// cgroup, and runs keep getting one.
func TestRunCgroupFallsBack(t *testing.T) {
	if !Contained() {
		t.Skip("this host may not create cgroups (needs cgroup v2 and a writable cgroup)")
	}
	r := Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Dir: "/nonexistent-dir"})
	require.Error(t, r.Err)
	require.False(t, cgroupsOff.Load(), "a program's own start error turned cgroups off")
	r = Run(context.Background(), Spec{Argv: sh(`cat /proc/self/cgroup`)})
	require.NoError(t, r.Err)
	require.Contains(t, string(r.Stdout), "hookexec-"+strconv.Itoa(os.Getpid())+"-")
	requireNoRunCgroups(t)
}

// requireNoRunCgroups checks that no run cgroup of this process is left behind.
func requireNoRunCgroups(t *testing.T) {
	t.Helper()
	root := cgroupRoot()
	if root == "" {
		return
	}
	left, err := filepath.Glob(filepath.Join(root, cgroupPrefix+strconv.Itoa(os.Getpid())+"-*"))
	require.NoError(t, err)
	idle.Lock()
	pooled := map[string]bool{}
	for _, c := range idle.free {
		pooled[c.dir] = true
	}
	idle.Unlock()
	for _, dir := range left {
		if pooled[dir] {
			continue
		}
		// Parallel tests may hold one for a run in flight; none may stay outside the pool.
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(dir); err != nil || inPool(dir) {
				break
			}
		}
		_, err := os.Stat(dir)
		require.True(t, err != nil || inPool(dir), "run cgroup %s left behind", dir)
	}
	idle.Lock()
	defer idle.Unlock()
	for _, c := range idle.free {
		procs, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
		require.NoError(t, err)
		require.Empty(t, strings.TrimSpace(string(procs)), "pooled cgroup %s holds processes", c.dir)
	}
}

func inPool(dir string) bool {
	idle.Lock()
	defer idle.Unlock()
	for _, c := range idle.free {
		if c.dir == dir {
			return true
		}
	}
	return false
}

// TestCgroupSweep: run cgroups of a host that is gone are removed, populated ones
// and this host's are not.
func TestCgroupSweep(t *testing.T) {
	root := cgroupRoot()
	if root == "" || !Contained() {
		t.Skip("this host may not create cgroups (needs cgroup v2 and a writable cgroup)")
	}
	// A pid that is surely gone: a child that has been reaped.
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	dead := filepath.Join(root, cgroupPrefix+strconv.Itoa(cmd.Process.Pid)+"-1")
	require.NoError(t, os.Mkdir(dead, 0o755))
	mine := filepath.Join(root, cgroupPrefix+strconv.Itoa(os.Getpid())+"-sweep")
	require.NoError(t, os.Mkdir(mine, 0o755))
	defer os.Remove(mine)
	sweep(root)
	require.NoDirExists(t, dead)
	require.DirExists(t, mine)
}

func TestUnescapeMount(t *testing.T) {
	require.Equal(t, "/sys/fs/cgroup", unescapeMount("/sys/fs/cgroup"))
	require.Equal(t, "/a b\\", unescapeMount(`/a\040b\`))
}

// BenchmarkRunCgroup prints what a run's cgroup costs next to a run without one.
func BenchmarkRunCgroup(b *testing.B) {
	if !Contained() {
		b.Skip("this host may not create cgroups")
	}
	spec := Spec{Argv: []string{"/bin/true"}}
	timeRuns := func(off bool) time.Duration {
		was := cgroupsOff.Swap(off)
		defer cgroupsOff.Store(was)
		start := time.Now()
		for range 200 {
			Run(context.Background(), spec)
		}
		return time.Since(start) / 200
	}
	var with, without time.Duration
	for b.Loop() {
		without += timeRuns(true)
		with += timeRuns(false)
	}
	b.ReportMetric(float64(with.Microseconds())/float64(b.N), "us/run-cgroup")
	b.ReportMetric(float64(without.Microseconds())/float64(b.N), "us/run-plain")
	b.ReportMetric(float64(with)/float64(without), "ratio")
}
