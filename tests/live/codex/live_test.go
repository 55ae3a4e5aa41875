// Package codex is Codex's live conformance suite (tests/live/suite): the pinned
// @openai/codex as `codex exec` against a fake Responses API (a custom model provider's
// base_url), hooks run without hash approval (--dangerously-bypass-hook-trust), the project
// trusted in CODEX_HOME's config.toml, and the recorder in CODEX_HOME/hooks.json, which
// hookexec's codex profile (project .codex, ~/.codex) does not read. `make test-codex` runs
// it; without HOOKEXEC_LIVE_CODEX=1 every test here skips at once.
package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/mcpclient"
	"github.com/hookexec/hookexec/tests/live/suite"
)

var agent = suite.Agent{
	Name: "codex", Title: "Codex", Package: "@openai/codex", Bin: "codex", Gate: "HOOKEXEC_LIVE_CODEX",
	Events:        []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "PermissionRequest", "SubagentStart", "SubagentStop", "SessionEnd"},
	NewModel:      func(v suite.Vector) suite.Model { return (&fakeapi.Responses{}).With(v.Script) },
	Command:       command,
	Normalize:     normalize,
	PayloadFields: "payload_fields.json",
	Setup:         setup,
	Vars:          vars,
	Compare: func(c *suite.Comparison) []string {
		return append(suite.Compare(c), mcpclient.CompareCalls(c.Tree.Root, "codex")...)
	},
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
	servers, err := mcpServers(v)
	if err != nil {
		return nil, err
	}
	for name, s := range servers {
		config += fmt.Sprintf("\n[mcp_servers.%s]\ncommand = %s\nargs = %s\n", tomlString(name), tomlString(s.Command), tomlStrings(s.Args))
		if len(s.Env) > 0 {
			config += fmt.Sprintf("[mcp_servers.%s.env]\n", tomlString(name))
			for k, val := range s.Env {
				config += tomlString(k) + " = " + tomlString(val) + "\n"
			}
		}
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644); err != nil {
		return nil, err
	}
	prompt := suite.PromptOf(v)
	args := []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
		"--dangerously-bypass-hook-trust", "--ephemeral", "--color", "never"}
	if slices.Contains(v.Args, "--approve-for-me") {
		// codex exec's approval policy is always "never"; --approve-for-me routes a command
		// asking for escalated permissions through review, where PermissionRequest hooks
		// answer first. It cannot be combined with the bypass.
		args = slices.DeleteFunc(args, func(a string) bool { return a == "--dangerously-bypass-approvals-and-sandbox" })
	}
	args = append(append(args, v.Args...), prompt)
	cmd := exec.Command(bin, args...)
	cmd.Dir = tree.Project
	env["CODEX_HOME"] = home
	env["FAKE_OPENAI_KEY"] = "fake-key-for-offline-tests"
	env["RUST_LOG"] = "error"
	cmd.Env = suite.Environ(env)
	return cmd, nil
}

// vars gives a vector $MCP, the MCP server helper (tests/live/mcpclient), built once
// beside the suite's rec hook.
func vars(raw []byte) (map[string]string, error) {
	if !bytes.Contains(raw, []byte("$MCP")) {
		return nil, nil
	}
	bin, err := mcpclient.Build(filepath.Dir(suite.Rec()))
	return map[string]string{"$MCP": bin}, err
}

// mcpServers reads the vector's root/mcp.json ({"mcpServers": {name: {command, args,
// env}}}, Claude Code's shape, $MCP and $ROOT filled in): Codex gets them as
// [mcp_servers.<name>] in config.toml, hookexec's evaluator starts the same ones for
// mcp_tool hooks.
func mcpServers(v suite.Vector) (map[string]mcpclient.Server, error) {
	data, ok := v.Files["root/mcp.json"]
	if !ok {
		return nil, nil
	}
	var cfg struct {
		MCPServers map[string]mcpclient.Server `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("mcp.json: %w", err)
	}
	return cfg.MCPServers, nil
}

// tomlString is s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func tomlStrings(ss []string) string {
	if ss == nil {
		ss = []string{}
	}
	b, _ := json.Marshal(ss)
	return string(b)
}

// setup gives hookexec an evaluator as a host embedding it would have: prompt and agent
// hooks get the vector's side answer (the verdict the fake model would give), so a Codex
// prompt or agent hook that hookexec ran would decide something (Codex skips them);
// mcp_tool hooks call the vector's MCP server (root/mcp.json) as Codex does.
func setup(e *engine.Engine, v suite.Vector) (any, error) {
	return nil, e.SetEvaluator(func(ctx context.Context, hookType string, hook, _ []byte) (engine.Outcome, error) {
		if hookType == "mcp_tool" {
			servers, err := mcpServers(v)
			if err != nil {
				return engine.Outcome{}, err
			}
			return mcpclient.Evaluate(ctx, servers, hook)
		}
		return suite.ModelVerdict(v.Side)
	})
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
