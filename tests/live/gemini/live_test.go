// Package gemini is Gemini CLI's live conformance suite (tests/live/suite): the pinned
// @google/gemini-cli in headless mode (-p, --yolo) against a fake Gemini API
// (GOOGLE_GEMINI_BASE_URL), project hooks trusted with GEMINI_CLI_TRUST_WORKSPACE, and the
// recorder in the system settings file (GEMINI_CLI_SYSTEM_SETTINGS_PATH, set for the agent
// only: hookexec's gemini profile reads that variable from its own environment, where the
// suite does not set it). `make test-gemini` runs it; without HOOKEXEC_LIVE_GEMINI=1
// every test here skips at once.
package gemini

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

var agent = suite.Agent{
	Name: "gemini", Title: "Gemini CLI", Package: "@google/gemini-cli", Bin: "gemini", Gate: "HOOKEXEC_LIVE_GEMINI",
	Events: []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd", "Notification", "PreCompress",
		"BeforeModel", "AfterModel", "BeforeToolSelection"},
	NewModel: func(v suite.Vector) suite.Model {
		return (&fakeapi.Gemini{NeverRepeat: true}).With(v.Script)
	},
	Command:       command,
	Normalize:     normalize,
	Compare:       compare,
	PayloadFields: "payload_fields.json",
	ShellCommand:  suite.ShellTool("run_shell_command"),
}

func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	system := map[string]any{
		"telemetry": map[string]any{"enabled": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	}
	suite.AddNamedRecorder(system, recorder, "recorder")
	// Gemini CLI skips a system settings file under a world-writable directory (/tmp), so
	// it goes in a private directory of the user's cache, removed with the tree.
	path, dir, err := suite.PrivateSettings(tree, "system-settings.json", system)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-p", suite.PromptOf(v), "--yolo", "--output-format", "json")
	cmd.Dir = tree.Project
	env["GEMINI_API_KEY"] = "fake-key-for-offline-tests"
	env["GOOGLE_GEMINI_BASE_URL"] = base
	env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = path
	env["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"] = filepath.Join(dir, "system-defaults.json")
	env["GEMINI_TELEMETRY_ENABLED"] = "false"
	env["CI"] = "1"
	cmd.Env = suite.Environ(env)
	return cmd, nil
}

// pgidRE is the process group Gemini CLI's shell tool reports running a command in: it
// differs between any two runs (dispatch mode normalises it).
var pgidRE = regexp.MustCompile(`(Process Group PGID: )[0-9]+`)

func normalize(s string) string { return pgidRE.ReplaceAllString(s, "${1}$$PGID") }

func TestMain(m *testing.M) { suite.Main(m, agent) }

func TestGeminiLive(t *testing.T) { suite.Test(t) }
