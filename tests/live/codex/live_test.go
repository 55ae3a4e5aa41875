// Package codex is Codex's live conformance suite (tests/live/suite): the pinned
// @openai/codex as `codex exec` against a fake Responses API (a custom model provider's
// base_url), hooks run without hash approval (--dangerously-bypass-hook-trust), the project
// trusted in CODEX_HOME's config.toml, and the recorder in CODEX_HOME/hooks.json, which
// hookexec's codex profile (project .codex, ~/.codex) does not read. `make test-codex` runs
// it; without HOOKEXEC_LIVE_CODEX=1 every test here skips at once.
package codex

import (
	"encoding/json"
	"fmt"
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
	Name: "codex", Title: "Codex", Package: "@openai/codex", Bin: "codex", Gate: "HOOKEXEC_LIVE_CODEX",
	Events:        []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "PermissionRequest", "SubagentStart", "SubagentStop"},
	NewModel:      func(v suite.Vector) suite.Model { return (&fakeapi.Responses{}).With(v.Script) },
	Command:       command,
	Normalize:     normalize,
	PayloadFields: "payload_fields.json",
	ShellCommand: func(tool string, input map[string]any) string {
		switch c := input["command"].(type) {
		case string:
			return c
		case []any:
			// ["bash", "-lc", script]: the script.
			if len(c) == 3 {
				s, _ := c[2].(string)
				return s
			}
		}
		if s, ok := input["cmd"].(string); ok {
			return s
		}
		return ""
	},
}

func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	home, err := suite.SecureDir(tree)
	if err != nil {
		return nil, err
	}
	hooks := map[string]any{}
	for ev, c := range recorder {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": c}}}}
	}
	data, _ := json.Marshal(map[string]any{"hooks": hooks})
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), data, 0o644); err != nil {
		return nil, err
	}
	config := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects.%q]
trust_level = "trusted"

[analytics]
enabled = false

[otel]
exporter = "none"
`, base, tree.Project)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644); err != nil {
		return nil, err
	}
	prompt := v.Prompt
	if prompt == "" {
		prompt = "go"
	}
	cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
		"--dangerously-bypass-hook-trust", "--ephemeral", "--color", "never", prompt)
	cmd.Dir = tree.Project
	env["CODEX_HOME"] = home
	env["FAKE_OPENAI_KEY"] = "fake-key-for-offline-tests"
	env["RUST_LOG"] = "error"
	for k, val := range env {
		cmd.Env = append(cmd.Env, k+"="+val)
	}
	return cmd, nil
}

// What Codex's exec tool reports of a run that differs between any two runs: its wall
// time ("Wall time: 0.0123 seconds") and a random id of its output ("Chunk ID: 1a52db").
var (
	wallRE  = regexp.MustCompile(`(Wall time: )[0-9.]+( seconds)`)
	chunkRE = regexp.MustCompile(`(Chunk ID: )[0-9a-f]+`)
)

func normalize(s string) string {
	return chunkRE.ReplaceAllString(wallRE.ReplaceAllString(s, "${1}$$S${2}"), "${1}$$ID")
}

func TestMain(m *testing.M) { suite.Main(m, agent) }

func TestCodexLive(t *testing.T) { suite.Test(t) }
