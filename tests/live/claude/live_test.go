// Package claude is the Claude Code live conformance suite, on the shared runner
// (tests/live/suite): every vector runs through the real, pinned Claude Code binary
// (tests/live/versions.json) against a fake Messages API, then through hookexec's engine
// with the payloads Claude Code actually sent, and the two are compared on what the host
// must do (compare_test.go). `make test-claude` runs it; without HOOKEXEC_LIVE_CLAUDE=1
// every test here skips at once, so `go test ./...` stays fast.
package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/mcpclient"
	"github.com/hookexec/hookexec/tests/live/suite"
)

// recorded are the events the recorder hook (in --settings) listens to.
var recorded = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied",
	"UserPromptSubmit", "Notification", "Stop", "StopFailure", "SubagentStart", "SubagentStop", "SessionStart",
	"SessionEnd", "PreCompact", "PostCompact", "Setup", "InstructionsLoaded", "ConfigChange", "CwdChanged",
	"FileChanged", "TaskCreated", "TaskCompleted", "TeammateIdle", "WorktreeCreate", "WorktreeRemove",
	"Elicitation", "ElicitationResult", "DirectoryAdded", "UserPromptExpansion", "PostToolBatch", "MessageDisplay", "PreModelSwitch", "PostModelSwitch"}

var agent = suite.Agent{
	Name: "claude", Title: "Claude Code", Package: "@anthropic-ai/claude-code", Bin: "claude", Gate: "HOOKEXEC_LIVE_CLAUDE",
	Events: recorded,
	NewModel: func(v suite.Vector) suite.Model {
		return &fakeapi.Anthropic{Script: v.Script, Agents: v.Agents, Side: v.Side}
	},
	Command: command,
	// 6 at a time: a run spends most of its time starting Claude Code and waiting on the
	// shared cores; more only queues.
	Parallel:       6,
	SourceOptional: true,
	Env: map[string]string{
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_TELEMETRY":                        "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"DISABLE_ERROR_REPORTING":                  "1",
		"IS_SANDBOX":                               "1",
	},
	// Claude Code 2.1.330 gives a hook the TRACEPARENT of its own span when its tracing is on
	// (the enhanced telemetry beta) and it propagates trace context: by default only to
	// Anthropic's API, so with the fake API CLAUDE_CODE_PROPAGATE_TRACEPARENT asks for it.
	TelemetryEnv: []string{"CLAUDE_CODE_ENABLE_TELEMETRY=1", "CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1",
		"CLAUDE_CODE_PROPAGATE_TRACEPARENT=1", "OTEL_TRACES_EXPORTER=otlp", "OTEL_METRICS_EXPORTER=none",
		"OTEL_LOGS_EXPORTER=none", "OTEL_BSP_SCHEDULE_DELAY=100", "DISABLE_TELEMETRY="},
	Setup:         setup,
	Compare:       compare,
	PayloadFields: "payload_fields.json",
	Normalize:     normalize,
	Vars:          vars,
	Generated:     generated,
}

func TestMain(m *testing.M) { suite.Main(m, agent) }

func TestClaudeLive(t *testing.T) { suite.Test(t) }

// command runs `claude -p` with the recorder in a --settings file (a layer hookexec's
// claude profile does not read) and stream-json output with hook events: every hook's
// outcome and every message shown to the user are in the output, one JSON object per line.
func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	hooks := map[string]any{}
	for ev, c := range recorder {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": c}}}}
	}
	settings, _ := json.Marshal(map[string]any{"hooks": hooks})
	settingsFile := filepath.Join(tree.Root, "recorder-settings.json")
	if err := os.WriteFile(settingsFile, settings, 0o644); err != nil {
		return nil, err
	}
	prompt := suite.PromptOf(v)
	args := []string{"-p", prompt, "--output-format", "stream-json", "--verbose", "--include-hook-events",
		"--settings", settingsFile}
	var stdin bytes.Buffer
	if len(v.Stdin) > 0 {
		// The user messages come on stdin, one per line, in place of the prompt.
		args = append([]string{"-p", "--input-format", "stream-json"}, args[2:]...)
		for _, line := range v.Stdin {
			var compact bytes.Buffer
			if err := json.Compact(&compact, line); err != nil {
				return nil, err
			}
			stdin.Write(append(compact.Bytes(), '\n'))
		}
	}
	if !slices.Contains(v.Args, "--permission-mode") {
		args = append(args, "--dangerously-skip-permissions")
	}
	args = append(args, v.Args...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = tree.Project
	cmd.Stdin = &stdin
	env["ANTHROPIC_BASE_URL"] = base
	env["ANTHROPIC_API_KEY"] = "sk-ant-fake-key-for-offline-tests"
	cmd.Env = suite.Environ(env)
	// root/setup.sh, when the vector has one, prepares the project first (a third-party
	// installer writing its hooks): both sides then read what it wrote.
	if setup := filepath.Join(tree.Root, "setup.sh"); fileExists(setup) {
		c := exec.Command("/bin/sh", setup)
		c.Dir, c.Env = tree.Project, cmd.Env
		if out, err := c.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: %v: %s", setup, err, out)
		}
	}
	return withManaged(tree, cmd)
}

// setup gives prompt and agent hooks the fake API's answer: Claude Code asks the fake
// API, whose answer to requests without tools is v.Side. mcp_tool hooks call the vector's
// MCP server (mcp_test.go). It returns the listener's record of the vector's background
// results (asyncRewake wake-ups).
func setup(e *engine.Engine, v suite.Vector) (any, error) {
	l := &listened{}
	if err := e.SetListener(l.add); err != nil {
		return nil, err
	}
	servers, err := mcpServers(v)
	if err != nil {
		return nil, err
	}
	return l, e.SetEvaluator(func(ctx context.Context, hookType string, hook, _ []byte) (engine.Outcome, error) {
		if hookType == "mcp_tool" {
			return mcpclient.Evaluate(ctx, servers, hook)
		}
		side := v.Side
		if hookType == "agent" {
			if answer, ok := agentAnswer(v, hook); ok {
				side = answer
			}
		}
		return suite.ModelVerdict(side)
	})
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// agentAnswer is the verdict an agent hook's subagent gives in the vector: the input of
// the StructuredOutput call in the v.Agents script whose key the hook's prompt holds.
func agentAnswer(v suite.Vector, hook []byte) (string, bool) {
	var def struct {
		Prompt string `json:"prompt"`
	}
	if json.Unmarshal(hook, &def) != nil {
		return "", false
	}
	for key, turns := range v.Agents {
		if !strings.Contains(def.Prompt, key) {
			continue
		}
		for _, turn := range turns {
			for _, call := range turn.Tools {
				if call.Name == "StructuredOutput" {
					return string(call.Input), true
				}
			}
		}
	}
	return "", false
}

// listened records what the engine told its listener.
type listened struct {
	mu      sync.Mutex
	rewakes []string // the messages of "rewake" notes
}

func (l *listened) add(kind string, data []byte) {
	if kind != "rewake" {
		return
	}
	var m struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(data, &m)
	l.mu.Lock()
	l.rewakes = append(l.rewakes, m.Message)
	l.mu.Unlock()
}

func (l *listened) rewakeMessages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.rewakes...)
}
