// Package copilot is GitHub Copilot CLI's live conformance suite (tests/live/suite): the
// pinned @github/copilot as `copilot -p` offline (COPILOT_OFFLINE) against a fake Chat
// Completions API (a bring-your-own-key "openai" provider at COPILOT_PROVIDER_BASE_URL),
// every tool allowed, the folder trusted, and the recorder in COPILOT_HOME/hooks, a private
// directory hookexec's copilot profile (.github/hooks, ~/.copilot/hooks) does not read.
// Copilot's camelCase payloads are read into canonical ones (core/adapt.Canonical) before
// hookexec's engine is fired with them, as the engine's host would. `make test-copilot`
// runs it; without HOOKEXEC_LIVE_COPILOT=1 every test here skips at once.
package copilot

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hookexec/hookexec/core/adapt"
	"github.com/hookexec/hookexec/core/vocab"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

var agent = suite.Agent{
	Name: "copilot", Title: "GitHub Copilot CLI", Package: "@github/copilot", Bin: "copilot", Gate: "HOOKEXEC_LIVE_COPILOT",
	Events: []string{"sessionStart", "sessionEnd", "userPromptSubmitted", "preToolUse", "postToolUse",
		"postToolUseFailure", "permissionRequest", "agentStop", "subagentStop", "errorOccurred", "notification", "preCompact"},
	NewModel:      func(v suite.Vector) suite.Model { return (&fakeapi.Chat{}).With(v.Script) },
	Command:       command,
	Normalize:     normalize,
	PayloadFields: "payload_fields.json",
	Read: func(event string, payload []byte) (string, []byte, error) {
		return adapt.Canonical(vocab.Copilot, event, payload)
	},
	ShellCommand: func(tool string, input map[string]any) string {
		if tool != "Bash" && tool != "bash" {
			return ""
		}
		s, _ := input["command"].(string)
		return s
	},
}

func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	home, err := suite.SecureDir(tree)
	if err != nil {
		return nil, err
	}
	hooks := map[string]any{}
	for ev, c := range recorder {
		hooks[ev] = []any{map[string]any{"type": "command", "bash": c}}
	}
	data, _ := json.Marshal(map[string]any{"version": 1, "hooks": hooks})
	if err := os.MkdirAll(filepath.Join(home, "hooks"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(home, "hooks", "recorder.json"), data, 0o644); err != nil {
		return nil, err
	}
	prompt := v.Prompt
	if prompt == "" {
		prompt = "go"
	}
	args := append([]string{"-p", prompt, "--allow-all-tools", "--trust-folder", "--no-auto-update"}, v.Args...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = tree.Project
	env["COPILOT_HOME"] = home
	env["COPILOT_OFFLINE"] = "true"
	env["COPILOT_PROVIDER_BASE_URL"] = base
	env["COPILOT_PROVIDER_TYPE"] = "openai"
	env["COPILOT_PROVIDER_API_KEY"] = "fake-key-for-offline-tests"
	env["COPILOT_MODEL"] = "fake-model"
	// The native binary unpacks its runtime (235 MB) into a cache on each first start: one
	// cache beside the pinned install, shared by every vector, instead of one per HOME.
	env["COPILOT_PKG_CACHE_HOME"] = filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(bin))), "pkg-cache")
	for k, val := range env {
		cmd.Env = append(cmd.Env, k+"="+val)
	}
	return cmd, nil
}

// What Copilot's shell tool reports that differs between any two runs: the shell's id.
var shellRE = regexp.MustCompile(`(<shellId: )[0-9]+`)

func normalize(s string) string { return shellRE.ReplaceAllString(s, "${1}$$ID") }

func TestMain(m *testing.M) { suite.Main(m, agent) }

func TestCopilotLive(t *testing.T) { suite.Test(t) }
