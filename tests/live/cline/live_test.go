// Package cline is Cline CLI's live conformance suite (tests/live/suite): the pinned cline
// (npm "cline", a Bun binary bundling @cline/core) in headless JSON mode (--json,
// --auto-approve true) against a fake Chat Completions API, configured as an
// openai-compatible provider in $CLINE_DIR/data/settings/providers.json. The recorder is
// one script per event in $CLINE_DIR/hooks, which Cline reads and hookexec's cline profile
// does not (CLINE_DIR is set for the agent only; hookexec reads ~/.cline/hooks). Sessions
// run in-process (CLINE_SESSION_BACKEND_MODE=local): the default backend starts a detached
// "--cline-hub-daemon" per session, which outlives the run; the suite kills any that carries
// the run's mark (suite.RunMarkEnv). `make test-cline` runs it; without HOOKEXEC_LIVE_CLINE=1
// every test here skips at once.
package cline

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/hookexec/hookexec/core/vocab"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

var agent = suite.Agent{
	Name: "cline", Title: "Cline CLI", Package: "cline", Bin: "cline", Gate: "HOOKEXEC_LIVE_CLINE",
	Events: []string{"TaskStart", "TaskResume", "TaskCancel", "TaskComplete", "TaskError", "PreToolUse",
		"PostToolUse", "UserPromptSubmit", "PreCompact", "SessionShutdown"},
	NewModel:      func(v suite.Vector) suite.Model { return (&fakeapi.Chat{}).With(v.Script) },
	Command:       command,
	PayloadFields: "payload_fields.json",
	Normalize:     normalize,
	ToolCall:      toolCall,
	ShellCommand: func(tool string, input map[string]any) string {
		if tool != "run_commands" {
			return ""
		}
		switch c := input["commands"].(type) {
		case []any:
			var parts []string
			for _, x := range c {
				s, _ := x.(string)
				parts = append(parts, s)
			}
			return strings.Join(parts, "; ")
		case string:
			return c
		}
		return ""
	},
}

// toolCall reads Cline's tool_call {name, input} (preToolUse.parameters has every value
// as a string).
func toolCall(payload []byte) (string, map[string]any) {
	var p struct {
		ToolCall struct {
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		} `json:"tool_call"`
	}
	_ = json.Unmarshal(payload, &p)
	return p.ToolCall.Name, p.ToolCall.Input
}

func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	dir, err := suite.SecureDir(tree)
	if err != nil {
		return nil, err
	}
	hooks := filepath.Join(dir, "hooks")
	settings := filepath.Join(dir, "data", "settings")
	for _, d := range []string{hooks, settings} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	for ev, c := range recorder {
		// The recorder logs the canonical event (SessionStart for TaskStart), which is what
		// a host fires hookexec with; the payload's hookName tells TaskStart from TaskResume.
		if e, ok := vocab.EventOf(vocab.Cline, ev); ok {
			c = strings.Replace(c, "@"+ev, "@"+e.Canonical, 1)
		}
		script := "#!/bin/sh\nexec " + c + "\n"
		if err := os.WriteFile(filepath.Join(hooks, ev), []byte(script), 0o755); err != nil {
			return nil, err
		}
	}
	providers := map[string]any{
		"version": 1, "lastUsedProvider": "openai-compatible",
		"providers": map[string]any{"openai-compatible": map[string]any{
			"settings":  map[string]any{"provider": "openai-compatible", "model": "fake-model", "apiKey": "fake-key-for-offline-tests", "baseUrl": base},
			"updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual",
		}},
	}
	data, _ := json.Marshal(providers)
	if err := os.WriteFile(filepath.Join(settings, "providers.json"), data, 0o600); err != nil {
		return nil, err
	}
	prompt := v.Prompt
	if prompt == "" {
		// A one-word prompt that names a subcommand ("go" does not, "update" would) is
		// refused as an unquoted command; two words never are.
		prompt = "please go"
	}
	args := append([]string{"--json", "-P", "openai-compatible", "-m", "fake-model", "--auto-approve", "true"}, v.Args...)
	cmd := exec.Command(bin, append(args, prompt)...)
	cmd.Dir = tree.Project
	env["CLINE_DIR"] = dir
	env["CLINE_SESSION_BACKEND_MODE"] = "local"
	env["CI"] = "1"
	cmd.Env = suite.Environ(env)
	return cmd, nil
}

// What differs between any two runs of Cline: its ids (conv_<ms>_<rand>, agent_…), the
// command's execution id, times.
var idRE = regexp.MustCompile(`\b(conv|agent|call|run)_[0-9]+_[0-9a-z]+\b`)

func normalize(s string) string { return idRE.ReplaceAllString(s, "${1}_$$ID") }

// killHubs kills what Cline left running in this run (a process carrying the run's mark:
// the hub daemon it detaches in its default backend), so no vector leaks a process; another
// run's Cline processes, on the same machine at the same time, are not this run's to kill.
func killHubs(t *testing.T) {
	left, err := suite.Marked(suite.RunMark(), "")
	if err != nil {
		t.Error(err)
		return
	}
	for _, p := range left {
		if strings.Contains(p.Command, "rec") && !strings.Contains(p.Command, "cline") {
			continue // a hook still running: the suite waits for those
		}
		t.Logf("killing %d left behind by cline: %q", p.PID, p.Command)
		_ = syscall.Kill(p.PID, syscall.SIGKILL)
	}
}

func TestMain(m *testing.M) { suite.Main(m, agent) }

func TestClineLive(t *testing.T) {
	t.Cleanup(func() { killHubs(t) })
	suite.Test(t)
}

// TestNoLeftovers checks that no process of this run outlives the suite's runs (what
// killHubs could not kill).
func TestNoLeftovers(t *testing.T) { suite.NoLeftovers(t, "") }
