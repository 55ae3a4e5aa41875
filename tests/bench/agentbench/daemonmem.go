package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/daemon"
)

// runningDaemon is a `hookexec daemon` the bench started.
type runningDaemon struct {
	cmd     *exec.Cmd
	exited  chan error
	runtime string
}

// startDaemon spawns `hookexec daemon` with runtime as its directory and returns it with
// the time from the spawn to its first answer (a status request on its socket, asked every
// millisecond until one is answered).
func startDaemon(hookexec, runtime string) (*runningDaemon, time.Duration, error) {
	cmd := exec.Command(hookexec, "daemon", "--idle", "10m")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOOKEXEC_RUNTIME_DIR=" + runtime}
	if httpDir != "" {
		cmd.Env = append(cmd.Env, "HOOKEXEC_HTTP_DIR="+httpDir)
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	d := &runningDaemon{cmd: cmd, exited: make(chan error, 1), runtime: runtime}
	go func() { d.exited <- cmd.Wait() }()
	for deadline := t0.Add(60 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := daemon.Ask(runtime, "status"); err == nil {
			return d, time.Since(t0), nil
		}
		select {
		case err := <-d.exited:
			return nil, 0, fmt.Errorf("hookexec daemon exited before answering: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-d.exited
			return nil, 0, fmt.Errorf("hookexec daemon did not answer in 60 s")
		}
	}
}

// stop asks the daemon to shut down and waits for it; one that has not exited within
// 10 s is killed.
func (d *runningDaemon) stop() {
	_, _ = daemon.Ask(d.runtime, "shutdown")
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
}

// startTimes starts and stops n daemons, one after the other, each in a fresh runtime
// directory under root, and returns each one's time from spawn to first answer.
func startTimes(hookexec, root string, n int) ([]time.Duration, error) {
	var ds []time.Duration
	for i := 0; i < n; i++ {
		runtime := filepath.Join(root, fmt.Sprintf("start-%d", i))
		d, took, err := startDaemon(hookexec, runtime)
		if err != nil {
			return nil, err
		}
		d.stop()
		ds = append(ds, took)
	}
	return ds, nil
}

// memory is the daemon's memory at one moment: its own (from /proc/PID/status: VmRSS and
// the part of it that is anonymous memory, the Go heap, stacks and runtime, rather than
// the binary's mapped file) and that of the hook processes it keeps (its children).
type memory struct {
	label                 string
	engines               int
	rss, anon             int // KiB
	children, childrenRSS int // processes, KiB
}

// settle is how long a reading waits after the daemon's last call: its quiet release
// (core/daemon releaseIfQuiet: freed heap and start-up pages returned 2 s after the last
// call, checked every second) has then run, so a reading is the memory the daemon keeps
// between sessions, not the garbage of the session just ended.
const settle = 3500 * time.Millisecond

// daemonMemory reads the daemon's memory once it has settled.
func daemonMemory(runtime, label string) (memory, error) {
	time.Sleep(settle)
	raw, err := daemon.Ask(runtime, "status")
	if err != nil {
		return memory{}, err
	}
	var st daemon.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		return memory{}, fmt.Errorf("daemon status: %w", err)
	}
	m := memory{label: label, engines: st.Engines}
	if m.rss, err = procStatus(st.PID, "VmRSS"); err != nil {
		return memory{}, err
	}
	if m.anon, err = procStatus(st.PID, "RssAnon"); err != nil {
		return memory{}, err
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return memory{}, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone since the listing
		}
		// pid (comm) state ppid ...: comm may hold blanks and parentheses.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(st.PID) {
			continue
		}
		if rss, err := procStatus(pid, "VmRSS"); err == nil {
			m.children++
			m.childrenRSS += rss
		}
	}
	return m, nil
}

// procStatus reads a field in KiB from /proc/PID/status.
func procStatus(pid int, field string) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				return strconv.Atoi(f[0])
			}
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no %s", pid, field)
}

func mib(kib int) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }
