// Package copilot is GitHub Copilot CLI's live conformance suite (tests/live/suite): the
// pinned @github/copilot as `copilot -p` offline (COPILOT_OFFLINE) against a fake Chat
// Completions API (a bring-your-own-key "openai" provider at COPILOT_PROVIDER_BASE_URL),
// every tool allowed, the folder trusted, and the recorder in COPILOT_HOME/hooks, a private
// directory hookexec's side does not read (unless a vector sets COPILOT_HOME for both).
// Copilot's camelCase payloads are read into canonical ones (core/adapt.Canonical) before
// hookexec's engine is fired with them, as the engine's host would. `make test-copilot`
// runs it; without HOOKEXEC_LIVE_COPILOT=1 every test here skips at once.
package copilot

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hookexec/hookexec/core/adapt"
	"github.com/hookexec/hookexec/core/engine"
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
	Compare:       compare,
	PayloadFields: "payload_fields.json",
	Read: func(event string, payload []byte) (string, []byte, error) {
		return adapt.Canonical(vocab.Copilot, event, payload)
	},
	ShellCommand: suite.ShellTool("Bash", "bash"),
}

func command(bin string, tree livetest.Tree, base string, recorder map[string]string, env map[string]string, v suite.Vector) (*exec.Cmd, error) {
	// COPILOT_HOME is a private directory hookexec does not read, unless the vector sets it
	// (then both sides read its hooks; hookexec's log ignores the recorder's "@" entries).
	home := v.Env["COPILOT_HOME"]
	if home == "" {
		var err error
		if home, err = suite.SecureDir(tree); err != nil {
			return nil, err
		}
	}
	hooks := map[string]any{}
	for ev, c := range recorder {
		hooks[ev] = []any{map[string]any{"type": "command", "bash": c}}
	}
	data, _ := json.Marshal(map[string]any{"version": 1, "hooks": hooks})
	if err := os.MkdirAll(filepath.Join(home, "hooks"), 0o755); err != nil {
		return nil, err
	}
	// Copilot runs the user's files before the project's, each directory in reverse name
	// order, and the first deny ends the fire: the recorder's name sorts last so it runs
	// first, and no vector's hook can hide a fire from it.
	if err := os.WriteFile(filepath.Join(home, "hooks", "zzz-recorder.json"), data, 0o644); err != nil {
		return nil, err
	}
	args := append([]string{"-p", suite.PromptOf(v), "--allow-all-tools", "--trust-folder", "--no-auto-update"}, v.Args...)
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
	cmd.Env = suite.Environ(env)
	return cmd, nil
}

// What differs between any two runs: the shell's id Copilot's shell tool reports, and the
// time Copilot puts before the prompt.
var (
	shellRE = regexp.MustCompile(`(<shellId: )[0-9]+`)
	timeRE  = regexp.MustCompile(`(<current_datetime>)[^<]*(</current_datetime>)`)
)

func normalize(s string) string {
	return timeRE.ReplaceAllString(shellRE.ReplaceAllString(s, "${1}$$ID"), "${1}$$T${2}")
}

// compare is the default comparison after three readings of hookexec's results that are
// the host's, not the hooks' (docs/agents/copilot.md):
//   - a call that a permissionRequest hook denied is denied: the preToolUse fire before it
//     reads as that deny;
//   - in -p mode Copilot cannot ask, so a preToolUse "ask" is a deny with its reason;
//   - a postToolUse modifiedResult (updated_tool_output) is what the model sees of the
//     call: the call ran when the model got that text (which must reach it).
func compare(c *suite.Comparison) []string {
	results := slices.Clone(c.Results)
	var problems []string
	lastPre := -1
	for i, f := range c.Fires {
		r := results[i]
		switch f.Event {
		case "PreToolUse":
			lastPre = i
			if !r.Blocked && r.Decision == "ask" {
				results[i] = denied(r, r.Reason)
			}
		case "PermissionRequest":
			if r.Blocked && lastPre >= 0 && !results[lastPre].Blocked {
				results[lastPre] = denied(results[lastPre], r.Reason)
			}
		}
	}
	c2 := *c
	c2.Results = results
	model := modified{Model: c.Run.Model, texts: map[string]string{}}
	for i, f := range c.Fires {
		out := c.Results[i].UpdatedToolOutput
		if f.Event != "PostToolUse" || len(out) == 0 || string(out) == "null" {
			continue
		}
		var m struct {
			Text string `json:"textResultForLlm"`
		}
		var p struct {
			ToolInput map[string]any `json:"tool_input"`
		}
		_ = json.Unmarshal(out, &m)
		_ = json.Unmarshal([]byte(f.Payload), &p)
		if m.Text == "" {
			problems = append(problems, fmt.Sprintf("PostToolUse #%d: updated tool output %s has no textResultForLlm", i, out))
			continue
		}
		if !strings.Contains(suite.Texts(c.Run.Model), m.Text) {
			problems = append(problems, fmt.Sprintf("PostToolUse #%d: modified result %q never reached the model", i, m.Text))
		}
		cmd, _ := p.ToolInput["command"].(string)
		model.texts[m.Text] = suite.ShellOutput(c.Tree.Project, cmd)
	}
	c2.Run.Model = model
	return append(problems, suite.Compare(&c2)...)
}

// denied is r as a deny with reason.
func denied(r *engine.Result, reason string) *engine.Result {
	d := *r
	d.Blocked, d.Decision, d.Reason = true, "deny", reason
	return &d
}

// modified is a run's model whose tool results that hold a postToolUse hook's modified
// result also hold what the call printed: the call ran, and the hook replaced its output.
type modified struct {
	suite.Model
	texts map[string]string // modified result → the call's own output
}

func (m modified) ToolResults() map[string]fakeapi.ToolResult {
	out := m.Model.ToolResults()
	if len(m.texts) == 0 {
		return out
	}
	out = maps.Clone(out)
	for id, tr := range out {
		for text, ran := range m.texts {
			if strings.Contains(tr.Text, text) {
				tr.Text = ran + "\n" + tr.Text
				out[id] = tr
			}
		}
	}
	return out
}

func TestMain(m *testing.M) { suite.Main(m, agent) }

func TestCopilotLive(t *testing.T) { suite.Test(t) }

// TestNoLeftovers checks that no process of this run (Copilot CLI or anything it started)
// outlives the suite's runs.
func TestNoLeftovers(t *testing.T) { suite.NoLeftovers(t, "") }
