// Package opencode is opencode's live conformance suite (tests/live/suite): the pinned
// opencode-ai as `opencode run -m fake/fake-model` against a fake Chat Completions API (a
// custom provider, @ai-sdk/openai-compatible with options.baseURL, in the project's
// opencode.json). opencode runs no command hooks: every vector installs hookexec's plugin
// with the built `hookexec install --agent opencode`, and the hooks (the vector's, in
// .opencode/hooks.json, and the recorder, in ~/.config/opencode/hooks.json) run through the
// dispatcher that plugin calls. The comparison then checks that opencode did what
// hookexec's engine decided for the payloads the plugin sent: the call refused or run, with
// which arguments, the reason and context reaching the model. `make test-opencode` runs it;
// without HOOKEXEC_LIVE_OPENCODE=1 every test here skips at once.
package opencode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

var agent = suite.Agent{
	Name: "opencode", Title: "opencode", Package: "opencode-ai", Bin: "opencode", Gate: "HOOKEXEC_LIVE_OPENCODE",
	Events:   []string{"PreToolUse", "PostToolUse", "SessionStart", "Stop"},
	NewModel: func(v suite.Vector) suite.Model { return (&fakeapi.Chat{}).With(v.Script) },
	Command:  command,
	// No daemon: each call runs in-process, so nothing outlives a vector.
	Env:          map[string]string{"HOOKEXEC_DAEMON": "off"},
	ShellCommand: suite.ShellTool("bash"),
}

// pluginVersion is the @opencode-ai/plugin opencode installs into each configuration
// directory at start (its own version); a stub of it there keeps opencode from running npm.
const pluginVersion = "1.18.33"

func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	config := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": base, "apiKey": "fake-key-for-offline-tests"},
			"models":  map[string]any{"fake-model": map[string]any{"name": "Fake"}},
		}},
	}
	data, _ := json.Marshal(config)
	if err := os.WriteFile(filepath.Join(tree.Project, "opencode.json"), data, 0o644); err != nil {
		return nil, err
	}
	for _, dir := range []string{filepath.Join(tree.Project, ".opencode"), filepath.Join(tree.Home, ".config", "opencode")} {
		if err := stubDeps(dir); err != nil {
			return nil, err
		}
	}
	if err := addRecorder(filepath.Join(tree.Home, ".config", "opencode", "hooks.json"), recorder); err != nil {
		return nil, err
	}
	hookexec := filepath.Join(strings.SplitN(env["PATH"], string(os.PathListSeparator), 2)[0], "hookexec")
	inst := exec.Command(hookexec, "install", "--agent", "opencode")
	inst.Dir = tree.Project
	inst.Env = []string{"HOME=" + tree.Home, "PATH=" + env["PATH"]}
	if out, err := inst.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("hookexec install --agent opencode: %v: %s", err, out)
	}
	args := append([]string{"run", "-m", "fake/fake-model"}, v.Args...)
	cmd := exec.Command(bin, append(args, suite.PromptOf(v))...)
	cmd.Dir = tree.Project
	env["PWD"] = tree.Project // opencode takes the project from $PWD
	cmd.Env = suite.Environ(env)
	return cmd, nil
}

// stubDeps puts in an opencode configuration directory the package.json, lockfile and
// node_modules opencode would otherwise install with npm at start (offline: a 70 s stall).
func stubDeps(dir string) error {
	mod := filepath.Join(dir, "node_modules", "@opencode-ai", "plugin")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return err
	}
	pkg := fmt.Sprintf(`{"dependencies": {"@opencode-ai/plugin": %q}}`, pluginVersion)
	lock := fmt.Sprintf(`{"name": "opencode", "lockfileVersion": 3, "requires": true, "packages": {"": {"dependencies": {"@opencode-ai/plugin": %q}}, "node_modules/@opencode-ai/plugin": {"version": %q}}}`, pluginVersion, pluginVersion)
	for path, text := range map[string]string{
		filepath.Join(dir, "package.json"):      pkg,
		filepath.Join(dir, "package-lock.json"): lock,
		filepath.Join(mod, "package.json"):      fmt.Sprintf(`{"name": "@opencode-ai/plugin", "version": %q, "type": "module", "main": "index.js"}`, pluginVersion),
		filepath.Join(mod, "index.js"):          "export {}\n",
	} {
		if err := os.WriteFile(path, []byte(text+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// addRecorder adds the recorder's hooks (one group per event, no matcher) to a hooks file,
// keeping the groups a vector wrote there.
func addRecorder(path string, recorder map[string]string) error {
	doc := map[string]any{}
	data, err := os.ReadFile(path)
	if err == nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	suite.AddRecorder(doc, recorder)
	out, _ := json.Marshal(doc)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

func TestMain(m *testing.M) { suite.Main(m, agent) }

func TestOpencodeLive(t *testing.T) { suite.Test(t) }

// TestNoLeftovers checks that no opencode process outlives the suite's runs.
func TestNoLeftovers(t *testing.T) {
	suite.NoLeftovers(t, "opencode-linux-x64/bin/opencode run -m fake/fake-model")
}
