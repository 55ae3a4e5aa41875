package suite

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hookexec/tests/live/livetest"
)

// What most agents' Command and ShellCommand share.

// ShellTool is an Agent.ShellCommand for agents whose shell tools take {"command": "…"}: the
// command of a call to one of tools, "" for any other tool.
func ShellTool(tools ...string) func(tool string, input map[string]any) string {
	return func(tool string, input map[string]any) string {
		if !slices.Contains(tools, tool) {
			return ""
		}
		s, _ := input["command"].(string)
		return s
	}
}

// PromptOf is the vector's prompt, "go" when it sets none.
func PromptOf(v Vector) string {
	if v.Prompt == "" {
		return "go"
	}
	return v.Prompt
}

// Environ is env as an exec.Cmd's Env, sorted by name.
func Environ(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// PrivateSettings writes settings as JSON to a file named name in a SecureDir of the tree
// (an agent that skips a settings file under a world-writable directory, /tmp, reads it
// there) and returns the file's path and its directory.
func PrivateSettings(tree livetest.Tree, name string, settings any) (path, dir string, err error) {
	if dir, err = SecureDir(tree); err != nil {
		return "", "", err
	}
	data, err := json.Marshal(settings)
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, name)
	return path, dir, os.WriteFile(path, data, 0o644)
}

// RunMarkEnv is the variable every agent process of a suite run carries (runAgent adds it
// to the agent's environment), set to a value no other run shares: what the agent starts,
// a daemon it detaches included, inherits it, so NoLeftovers finds this run's processes and
// no one else's (another engineer's run of the same agent, CI beside a developer).
const RunMarkEnv = "HOOKEXEC_LIVE_RUN"

// newRunMark is a run's RunMarkEnv value: the agent's name and 16 random hex digits.
func newRunMark(agent string) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on the systems the suites run on; a pid and a time
		// still tell two runs apart.
		return fmt.Sprintf("%s-%d-%d", agent, os.Getpid(), time.Now().UnixNano())
	}
	return agent + "-" + hex.EncodeToString(b)
}

// RunMark is this run's RunMarkEnv value (after Main).
func RunMark() string { return state.mark }

// Process is a running process: its pid and its command line (arguments joined by spaces).
type Process struct {
	PID     int
	Command string
}

// ErrNoProc is returned by Marked where /proc cannot be read (not Linux): a leftover check
// that cannot look fails rather than passes.
var ErrNoProc = errors.New("suite: /proc is not readable: cannot tell which processes are this run's")

// Marked lists, by pid, the processes whose environment (/proc/PID/environ) holds
// RunMarkEnv=mark and whose command line contains pattern ("" matches any). A process whose
// environment cannot be read (another user's, or one that just ended) is not this run's.
func Marked(mark, pattern string) ([]Process, error) {
	if mark == "" {
		return nil, errors.New("suite: no run mark to look for")
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	want := []byte(RunMarkEnv + "=" + mark)
	var out []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return bytes.Equal(kv, want) }) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue // ended, or a zombie: nothing left running
		}
		cmdline := strings.TrimSpace(string(bytes.ReplaceAll(raw, []byte{0}, []byte{' '})))
		if strings.Contains(cmdline, pattern) {
			out = append(out, Process{PID: pid, Command: cmdline})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out, nil
}

// NoLeftovers fails t if a process of this run (one carrying its RunMarkEnv mark) whose
// command line contains pattern ("": any of the run's processes) still runs after the
// suite's vectors: an agent that detaches something must have it killed. Processes of
// other runs, the same agent's included, are not looked at.
func NoLeftovers(t *testing.T, pattern string) {
	t.Helper()
	left, err := Marked(state.mark, pattern)
	if err != nil {
		t.Fatalf("%s: checking for leftover processes: %v", state.a.Title, err)
	}
	for _, p := range left {
		t.Errorf("%s process left running: %d %s", state.a.Title, p.PID, p.Command)
	}
}
