// Package auggie is Augment's auggie CLI's live conformance suite (tests/live/suite): the
// pinned @augmentcode/auggie as `auggie --print` against tests/live/fakeapi's fake of
// Augment's own backend (fakeapi.Augment: the only model API auggie talks to; its
// enable_hooks flag turns auggie's hooks on), logged in through AUGMENT_SESSION_AUTH whose
// tenantURL is the fake's. The recorder lives in the user settings of a HOME of auggie's
// own (the tree's ~/.augment/settings.json merged in), which hookexec's auggie profile does
// not read; vectors put their hooks in the project's .augment. The run needs no network
// (checked inside `unshare -n`). `make test-auggie` runs it; without HOOKEXEC_LIVE_AUGGIE=1
// every test here skips at once.
package auggie

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

var agent = suite.Agent{
	Name: "auggie", Title: "Augment auggie", Package: "@augmentcode/auggie", Bin: "auggie",
	Gate: "HOOKEXEC_LIVE_AUGGIE",
	// Notification fires only in the interactive TUI; the others fire in every --print run.
	Events:        []string{"PreToolUse", "PostToolUse", "Stop", "SessionStart", "SessionEnd", "Notification", "PromptSubmit"},
	NewModel:      func(v suite.Vector) suite.Model { return (&fakeapi.Augment{}).With(v.Script) },
	Command:       command,
	Normalize:     normalize,
	PayloadFields: "payload_fields.json",
	ShellCommand:  suite.ShellTool("launch-process"),
}

// command runs auggie --print with HOME a directory of its own: its ~/.augment/settings.json
// holds the tree's user hooks (if any) followed by the recorder (auggie merges the user
// file's groups with the project's, so where the recorder sits changes nothing else).
func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	home := filepath.Join(tree.Root, "auggie-home")
	if err := os.MkdirAll(filepath.Join(home, ".augment"), 0o755); err != nil {
		return nil, err
	}
	settings := map[string]any{}
	data, err := os.ReadFile(filepath.Join(tree.Home, ".augment", "settings.json"))
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &settings); err != nil {
			return nil, fmt.Errorf("the vector's user settings: %w", err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	suite.AddRecorder(settings, recorder)
	out, _ := json.Marshal(settings)
	if err := os.WriteFile(filepath.Join(home, ".augment", "settings.json"), out, 0o644); err != nil {
		return nil, err
	}
	// Through hookexec install (dispatch mode), the user's moved hooks go with its dispatcher.
	if managed, err := os.ReadFile(filepath.Join(tree.Home, ".augment", "hookexec-hooks.json")); err == nil {
		if err := os.WriteFile(filepath.Join(home, ".augment", "hookexec-hooks.json"), managed, 0o644); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	auth, _ := json.Marshal(map[string]any{"accessToken": "fake-token-for-offline-tests", "tenantURL": base, "scopes": []string{"read", "write"}})
	args := append([]string{"--print", "--dont-save-session"}, v.Args...)
	cmd := exec.Command(bin, append(args, suite.PromptOf(v))...)
	cmd.Dir = tree.Project
	env["AUGMENT_SESSION_AUTH"] = string(auth)
	for k, val := range env {
		if k == "HOME" {
			val = home
		}
		cmd.Env = append(cmd.Env, k+"="+val)
	}
	return cmd, nil
}

// What differs between two runs: request ids and a command's duration.
var (
	requestIDRE = regexp.MustCompile(`Request ID: [0-9a-f-]+`)
	durationRE  = regexp.MustCompile(`[0-9.]+ ?m?s\b`)
)

func normalize(s string) string {
	s = requestIDRE.ReplaceAllString(s, "Request ID: $$ID")
	return durationRE.ReplaceAllString(s, "$$T")
}

func TestMain(m *testing.M) { suite.Main(m, agent) }

func TestAuggieLive(t *testing.T) { suite.Test(t) }

// TestNoLeftovers checks that no auggie process outlives the suite's runs.
func TestNoLeftovers(t *testing.T) { suite.NoLeftovers(t, "auggie --print --dont-save-session") }
