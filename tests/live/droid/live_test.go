// Package droid is Factory Droid's live conformance suite (tests/live/suite): the pinned
// @factory/cli-linux-x64 (the platform package of @factory/cli, whose wrapper's dependency
// is missing from the registry) as `droid exec --auto high` against a fake Chat Completions
// API, reached as a custom model (customModels, provider generic-chat-completion-api) with
// no login. The recorder and the model live in a runtime settings overlay (--settings, a
// file outside the tree), which Droid merges for the one process and hookexec's factory
// profile does not read. FACTORY_AIRGAP_ENABLED keeps Droid from its own backend (the run
// needs no network: checked inside `unshare -n`). `make test-droid` runs it; without
// HOOKEXEC_LIVE_DROID=1 every test here skips at once.
package droid

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

var agent = suite.Agent{
	// The profile and `hookexec install --agent` call Droid "factory" (core/vocab).
	Name: "factory", Title: "Factory Droid", Package: "@factory/cli-linux-x64", Bin: "@factory/cli-linux-x64/bin/droid",
	Gate: "HOOKEXEC_LIVE_DROID",
	// UserPromptSubmit fires only in the JSON-RPC worker (--input-format stream-jsonrpc, what
	// the TUI runs), never for `droid exec <prompt>`; PreCompact, Notification and
	// SubagentStop need a long conversation, a user at a terminal or a sub-droid.
	Events:        []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "Notification", "SubagentStop", "PreCompact"},
	NewModel:      func(v suite.Vector) suite.Model { return (&fakeapi.Chat{}).With(v.Script) },
	Command:       command,
	Normalize:     normalize,
	PayloadFields: "payload_fields.json",
	Compare:       compare,
	ShellCommand:  suite.ShellTool("Execute"),
}

func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	overlay := map[string]any{
		"cloudSessionSync": false,
		"customModels": []any{map[string]any{"model": "fake-model", "displayName": "Fake", "baseUrl": base,
			"apiKey": "fake-key-for-offline-tests", "provider": "generic-chat-completion-api"}},
	}
	suite.AddRecorder(overlay, recorder)
	path, _, err := suite.PrivateSettings(tree, "runtime-settings.json", overlay)
	if err != nil {
		return nil, err
	}
	args := append([]string{"exec", "--settings", path, "--auto", "high", "-m", "custom:fake-model"}, v.Args...)
	cmd := exec.Command(bin, append(args, suite.PromptOf(v))...)
	cmd.Dir = tree.Project
	env["FACTORY_AIRGAP_ENABLED"] = "1"
	cmd.Env = suite.Environ(env)
	return cmd, nil
}

// compare is the default comparison, except for a vector marked with a deliberate
// difference (hookexec stricter than Droid: it runs or obeys a guard Droid does not): there
// the difference must show, as hookexec blocking (or asking about) a call Droid ran or
// running hooks Droid did not, and nothing else may differ. A deliberate difference that no longer shows is a
// difference too: Droid changed, and the vector and docs/agents/factory.md must follow.
func compare(c *suite.Comparison) []string {
	problems := suite.Compare(c)
	if c.V.Deliberate == "" {
		return problems
	}
	var rest []string
	shown := false
	for _, p := range problems {
		if strings.Contains(p, "hookexec blocks") || strings.Contains(p, "hookexec asks") || strings.Contains(p, "hooks run:") {
			shown = true
			continue
		}
		rest = append(rest, p)
	}
	if !shown {
		rest = append(rest, "the deliberate difference no longer shows: "+c.V.Deliberate)
	}
	return rest
}

// What Droid's tools report that differs between two runs: the elapsed time of a command.
var elapsedRE = regexp.MustCompile(`(?i)(took |in )[0-9.]+ ?m?s`)

// Droid lists the names of its environment's variables to the model ("Env: HOME
// HOOKEXEC_LIVE_LOG ..."); dispatch mode adds the run daemon's HOOKEXEC_RUNTIME_DIR there.
var runtimeDirRE = regexp.MustCompile(` HOOKEXEC_RUNTIME_DIR\b`)

func normalize(s string) string {
	return runtimeDirRE.ReplaceAllString(elapsedRE.ReplaceAllString(s, "${1}$$T"), "")
}

func TestMain(m *testing.M) { suite.Main(m, agent) }

func TestDroidLive(t *testing.T) { suite.Test(t) }

// TestNoLeftovers checks that no droid process outlives the suite's runs (Droid detaches
// no daemon for `droid exec`; a hook it timed out is killed with its process group).
func TestNoLeftovers(t *testing.T) { suite.NoLeftovers(t, "cli-linux-x64/bin/droid exec --settings") }
