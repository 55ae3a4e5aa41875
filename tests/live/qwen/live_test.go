// Package qwen is Qwen Code's live conformance suite (tests/live/suite): the pinned
// @qwen-code/qwen-code in one-shot mode (--yolo) against a fake Chat Completions API
// (OPENAI_BASE_URL), with the recorder in the system settings file
// (QWEN_CODE_SYSTEM_SETTINGS_PATH), which hookexec's qwen profile does not read.
// `make test-qwen` runs it; without HOOKEXEC_LIVE_QWEN=1 every test here skips at once.
package qwen

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

var agent = suite.Agent{
	Name: "qwen", Title: "Qwen Code", Package: "@qwen-code/qwen-code", Bin: "qwen", Gate: "HOOKEXEC_LIVE_QWEN",
	Events: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SessionStart",
		"SessionEnd", "Notification", "PermissionRequest", "SubagentStart", "SubagentStop", "PreCompact",
		"PostToolBatch", "UserPromptExpansion", "MessageDisplay", "PostCompact", "PermissionDenied", "StopFailure",
		"InstructionsLoaded", "TodoCreated", "TodoCompleted", "SessionDelete"},
	Uncounted:     []string{"MessageDisplay"},
	NewModel:      func(v suite.Vector) suite.Model { return (&fakeapi.Chat{}).With(v.Script) },
	Command:       command,
	Compare:       compare,
	PayloadFields: "payload_fields.json",
	ShellCommand:  suite.ShellTool("run_shell_command"),
}

func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	system := map[string]any{
		"telemetry": map[string]any{"enabled": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}, "folderTrust": map[string]any{"enabled": false}},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"model":     map[string]any{"name": "fake-model"},
		// Qwen's run_shell_command defaults to a node-pty shell, whose
		// output is read asynchronously from the terminal: under heavy
		// load it can return an empty result for a command that ran.
		// The child_process shell pipes stdout and is deterministic.
		"tools": map[string]any{"shell": map[string]any{"enableInteractiveShell": false}},
	}
	suite.AddNamedRecorder(system, recorder, "recorder")
	path, dir, err := suite.PrivateSettings(tree, "system-settings.json", system)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--yolo", "--output-format", "json", suite.PromptOf(v))
	cmd.Dir = tree.Project
	env["OPENAI_API_KEY"] = "fake-key-for-offline-tests"
	env["OPENAI_BASE_URL"] = base
	env["OPENAI_MODEL"] = "fake-model"
	env["QWEN_CODE_SYSTEM_SETTINGS_PATH"] = path
	env["QWEN_CODE_SYSTEM_DEFAULTS_PATH"] = filepath.Join(dir, "system-defaults.json")
	env["CI"] = "1"
	cmd.Env = suite.Environ(env)
	return cmd, nil
}

func TestMain(m *testing.M) { suite.Main(m, agent) }

func TestQwenLive(t *testing.T) { suite.Test(t) }
