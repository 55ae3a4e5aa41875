package suite

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

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

// NoLeftovers fails t if a process whose command line holds pattern (pgrep -f) still runs
// after the suite's vectors: an agent that detaches something must have it killed.
func NoLeftovers(t *testing.T, pattern string) {
	t.Helper()
	out, _ := exec.Command("pgrep", "-f", pattern).Output()
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("%s processes left running: %s", state.a.Title, s)
	}
}
