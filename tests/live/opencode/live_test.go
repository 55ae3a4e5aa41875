// Package opencode is the live conformance suite of opencode and of its fork Kilo Code
// (tests/live/suite): the pinned opencode-ai as `opencode run -m fake/fake-model` (or
// @kilocode/cli as `kilo run ...`) against a fake Chat Completions API (a custom provider,
// @ai-sdk/openai-compatible with options.baseURL, in the project's opencode.json or
// kilo.json). Neither agent runs command hooks: every vector installs hookexec's plugin with
// the built `hookexec install --agent opencode|kilo`, and the hooks (the vector's, in
// $DOTDIR/hooks.json, and the recorder, in ~/.config/$CONFNAME/hooks.json) run through the
// dispatcher that plugin calls. The comparison then checks that the agent did what the
// plugin makes of hookexec's answer for the payloads it sent: the call or prompt refused or
// run, with which arguments, the reason and context reaching the model. One set of vectors
// serves both agents: `make test-opencode` runs it against opencode, `make test-kilo`
// (HOOKEXEC_LIVE_KILO=1) against Kilo; without either gate every test here skips at once.
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

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

// flavor is what differs between opencode and Kilo Code: names and directories.
type flavor struct {
	agent      string // hookexec install --agent, the profile
	dot        string // the project's configuration directory
	conf       string // the user's, under ~/.config
	config     string // the project's configuration file
	pluginPkg  string // the plugin API package the agent installs into each configuration directory
	envPrefix  string // of the agent's variables (OPENCODE_CONFIG_CONTENT, KILO_...)
	binPattern string // pgrep -f pattern of a run left behind
}

var flavors = map[string]flavor{
	"opencode": {"opencode", ".opencode", "opencode", "opencode.json", "@opencode-ai/plugin", "OPENCODE", "opencode-linux-x64/bin/opencode run -m fake/fake-model"},
	"kilo":     {"kilo", ".kilo", "kilo", "kilo.json", "@kilocode/plugin", "KILO", "cli-linux-x64/bin/kilo run -m fake/fake-model"},
}

// fl is the flavor this run checks.
var fl = flavors["opencode"]

func newAgent(f flavor) suite.Agent {
	a := suite.Agent{
		Name: "opencode", Title: "opencode", Package: "opencode-ai", Bin: "opencode", Gate: "HOOKEXEC_LIVE_OPENCODE",
		PayloadFields: "payload_fields.json",
	}
	if f.agent == "kilo" {
		a = suite.Agent{
			// The platform binary itself: bin/kilo is a Node wrapper that spawns it, and a hang
			// guard killing the wrapper would leave Kilo running, holding the test's pipes.
			Name: "kilo", Title: "Kilo Code", Package: "@kilocode/cli", Bin: "@kilocode/cli-linux-x64/bin/kilo", Gate: "HOOKEXEC_LIVE_KILO",
			PayloadFields: "payload_fields_kilo.json",
		}
	}
	a.Events = []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop"}
	a.NewModel = func(v suite.Vector) suite.Model { return (&fakeapi.Chat{}).With(v.Script) }
	a.Command = command
	a.Compare = compare
	// No daemon: each call runs in-process, so nothing outlives a vector. No models.dev
	// fetch, update check or default plugins: the runs need no network.
	a.Env = map[string]string{"HOOKEXEC_DAEMON": "off"}
	for _, v := range []string{"DISABLE_MODELS_FETCH", "DISABLE_AUTOUPDATE", "DISABLE_DEFAULT_PLUGINS", "DISABLE_LSP_DOWNLOAD", "DISABLE_SHARE"} {
		a.Env[f.envPrefix+"_"+v] = "1"
	}
	if f.agent == "kilo" {
		// Kilo's own services: session upload, presence, indexing.
		for _, v := range []string{"DISABLE_SESSION_INGEST", "DISABLE_PRESENCE", "DISABLE_CODEBASE_INDEXING"} {
			a.Env["KILO_"+v] = "1"
		}
	}
	a.ShellCommand = suite.ShellTool("bash")
	// The vectors name the agent's directories and variables through these.
	a.Vars = func([]byte) (map[string]string, error) {
		return map[string]string{"$DOTDIR": f.dot, "$CONFNAME": f.conf, "$CONFIG_CONTENT": f.envPrefix + "_CONFIG_CONTENT",
			"$PROJECT_ENV": strings.ToUpper(f.agent) + "_PROJECT_DIR"}, nil
	}
	return a
}

func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	config := map[string]any{
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": base, "apiKey": "fake-key-for-offline-tests"},
			"models":  map[string]any{"fake-model": map[string]any{"name": "Fake"}},
		}},
	}
	data, _ := json.Marshal(config)
	if err := os.WriteFile(filepath.Join(tree.Project, fl.config), data, 0o644); err != nil {
		return nil, err
	}
	for _, dir := range []string{filepath.Join(tree.Project, fl.dot), filepath.Join(tree.Home, ".config", fl.conf)} {
		if err := stubDeps(dir); err != nil {
			return nil, err
		}
	}
	if err := addRecorder(filepath.Join(tree.Home, ".config", fl.conf, "hooks.json"), recorder); err != nil {
		return nil, err
	}
	hookexec := filepath.Join(strings.SplitN(env["PATH"], string(os.PathListSeparator), 2)[0], "hookexec")
	inst := exec.Command(hookexec, "install", "--agent", fl.agent)
	inst.Dir = tree.Project
	inst.Env = []string{"HOME=" + tree.Home, "PATH=" + env["PATH"]}
	if out, err := inst.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("hookexec install --agent %s: %v: %s", fl.agent, err, out)
	}
	args := append([]string{"run", "-m", "fake/fake-model"}, v.Args...)
	cmd := exec.Command(bin, append(args, suite.PromptOf(v))...)
	cmd.Dir = tree.Project
	env["PWD"] = tree.Project // opencode and Kilo take the project from $PWD
	cmd.Env = suite.Environ(env)
	return cmd, nil
}

// stubDeps puts in a configuration directory the package.json, lockfile and node_modules
// the agent would otherwise install with npm at start (its plugin API package at its own
// version; offline: a 70 s stall).
func stubDeps(dir string) error {
	pkg, version := fl.pluginPkg, suite.Version()
	mod := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg))
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return err
	}
	lock := fmt.Sprintf(`{"name": %q, "lockfileVersion": 3, "requires": true, "packages": {"": {"dependencies": {%q: %q}}, "node_modules/%s": {"version": %q}}}`, fl.agent, pkg, version, pkg, version)
	for path, text := range map[string]string{
		filepath.Join(dir, "package.json"):      fmt.Sprintf(`{"dependencies": {%q: %q}}`, pkg, version),
		filepath.Join(dir, "package-lock.json"): lock,
		filepath.Join(mod, "package.json"):      fmt.Sprintf(`{"name": %q, "version": %q, "type": "module", "main": "index.js"}`, pkg, version),
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

// compare is the default comparison of what the plugin makes of hookexec's answers (a plugin
// can refuse a call but not ask the user, stop the turn, make the session go on or add
// context at its start), plus the files a vector says must survive the run.
func compare(c *suite.Comparison) []string {
	mapped := *c
	mapped.Results = make([]*engine.Result, len(c.Results))
	for i, r := range c.Results {
		mapped.Results[i] = asPlugin(c.V, event.Canonical(c.Fires[i].Event), r)
	}
	problems := suite.Compare(&mapped)
	for name := range c.V.Files {
		rel, ok := strings.CutPrefix(name, "project/")
		if ok && strings.Contains(rel, "must-survive") {
			if _, err := os.Stat(filepath.Join(c.Tree.Project, rel)); err != nil {
				problems = append(problems, fmt.Sprintf("%s should have survived the run: %v", rel, err))
			}
		}
	}
	return problems
}

// failClosedReason is the plugin's refusal when the dispatcher gives no answer.
const failClosedReason = "refused to be safe"

// asPlugin is engine result r of an event as the plugin applies it (core/install's
// opencode.js, docs/agents/opencode.md): before a call, ask and continue:false refuse it; a
// Stop block cannot make the session go on; SessionStart context has nowhere to go. A
// vector with skip "fail_closed" breaks the dispatcher itself: the plugin refuses, whatever
// the hooks would have said (its broken hook is a PreToolUse one).
func asPlugin(v suite.Vector, ev string, r *engine.Result) *engine.Result {
	x := *r
	switch ev {
	case "PreToolUse", "UserPromptSubmit":
		switch {
		case v.Skip["fail_closed"] != "" && ev == "PreToolUse":
			x.Blocked, x.Reason = true, failClosedReason
		case x.Blocked:
		case !x.Continue:
			x.Blocked, x.Reason, x.Continue = true, x.StopReason, true
		case x.Decision == "ask" && ev == "PreToolUse":
			x.Blocked = true
		}
	case "Stop":
		x.Blocked = false
	case "SessionStart":
		x.AdditionalContext = ""
	}
	return &x
}

func TestMain(m *testing.M) {
	if os.Getenv("HOOKEXEC_LIVE_KILO") != "" {
		fl = flavors["kilo"]
	}
	suite.Main(m, newAgent(fl))
}

func TestOpencodeLive(t *testing.T) { suite.Test(t) }

// TestNoLeftovers checks that no agent process outlives the suite's runs.
func TestNoLeftovers(t *testing.T) {
	suite.NoLeftovers(t, fl.binPattern)
}
