package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	// The vectors' languages, whatever the engine's build links.
	_ "github.com/hookexec/hookexec/core/policy/rego"
)

// The policy vectors (<dialect>/policy_cel.json, <dialect>/policy_rego.json) are generated
// from the table below rather than written by hand: one vector per dialect with command
// hooks and per language, each with a guard for every case of issue 27 (allow, deny with a
// reason, ask, a rewrite through updatedInput, context, and a runtime error failing as the
// hook's failure policy says, by default and where the dialect has a failure policy, with
// it). TestPolicyVectorsUpToDate fails when a file differs from what the table makes;
// HOOKEXEC_UPDATE_VECTORS=1 writes them.

// policyLanguages are the languages the vectors are made for.
var policyLanguages = []string{"cel", "rego"}

// policyDialect is how one dialect writes a policy hook and answers in its own words.
type policyDialect struct {
	dir, profile string
	// file is where its configuration lives (under project/ or home/); kiro writes one file
	// per hook, named by file(i).
	file string
	// event is the PreToolUse hook key as the dialect spells it; "" for kiro (when.type).
	event string
	// grouped: handlers sit in {"matcher": "Bash", "hooks": [...]} groups (Claude's shape).
	grouped bool
	// wrap turns the handlers into the file's JSON (nil: {"hooks": {event: handlers}}).
	wrap func(handlers []any) any
	// rewrite and context are a JSON answer in the dialect's words; rewritten and added
	// what the fire's result then holds (null and "" where the dialect's answer has no
	// such field, said in why).
	rewrite, context  string
	rewritten, added  any
	why               string
	failure           map[string]any // the failure-policy field that makes a failure block; nil when the dialect has none
	fire              string         // the event the host fires
	toolName, payload string
}

const (
	claudeRewrite = `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "echo rewritten"}}}`
	claudeContext = `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "policy context"}}`
)

var rewritten = map[string]any{"command": "echo rewritten"}

func claudeLike(dir, profile, file string, failure map[string]any) policyDialect {
	return policyDialect{dir: dir, profile: profile, file: file, event: "PreToolUse", grouped: true,
		rewrite: claudeRewrite, context: claudeContext, rewritten: rewritten, added: "policy context", failure: failure}
}

var policyDialects = []policyDialect{
	claudeLike("claude", "claude", "project/.claude/settings.json", map[string]any{"onFailure": "block"}),
	claudeLike("cli-agent", "cli-agent", "project/.config/agent/settings.json", map[string]any{"fail_closed": true}),
	claudeLike("mycode", "mycode", "project/.gen/settings.json", map[string]any{"blocking": true}),
	claudeLike("autoagent", "autoagent", "project/.autoagent/config.json", map[string]any{"blocking": true}),
	func() policyDialect {
		d := claudeLike("factory", "factory", "project/.factory/settings.json", map[string]any{"fail_closed": true})
		d.added, d.why = "", "droid 0.225.2 reads no additionalContext on PreToolUse (tests/live/droid, docs/agents/factory.md)"
		return d
	}(),
	func() policyDialect {
		d := claudeLike("qwen", "qwen", "project/.qwen/settings.json", map[string]any{"fail_closed": true})
		d.rewritten, d.why = nil, "Qwen Code applies updatedInput from PermissionRequest hooks only"
		return d
	}(),
	claudeLike("codex", "codex", "project/.codex/hooks.json", map[string]any{"fail_closed": true}),
	{dir: "gemini", profile: "gemini", file: "project/.gemini/settings.json", event: "BeforeTool", grouped: true,
		rewrite: `{"hookSpecificOutput": {"tool_input": {"command": "echo rewritten"}}}`, context: `{"hookSpecificOutput": {"additionalContext": "policy context"}}`,
		rewritten: rewritten, added: "policy context", failure: map[string]any{"fail_closed": true}},
	{dir: "autohand", profile: "autohand", file: "home/.autohand/config.json",
		wrap: func(hs []any) any {
			for _, h := range hs {
				h.(map[string]any)["event"] = "pre-tool"
			}
			return map[string]any{"hooks": map[string]any{"hooks": hs}}
		},
		rewrite: claudeRewrite, context: claudeContext, rewritten: rewritten, added: "policy context", failure: map[string]any{"fail_closed": true}},
	{dir: "cursor", profile: "cursor", file: "project/.cursor/hooks.json", event: "beforeShellExecution",
		wrap: func(hs []any) any {
			return map[string]any{"version": 1, "hooks": map[string]any{"beforeShellExecution": hs}}
		},
		rewrite: `{"permission": "allow", "updated_input": {"command": "echo rewritten"}}`, context: `{"additional_context": "policy context"}`,
		rewritten: rewritten, added: "policy context", failure: map[string]any{"failClosed": true}},
	{dir: "copilot", profile: "copilot", file: "project/.github/hooks/hooks.json", event: "preToolUse",
		wrap:    func(hs []any) any { return map[string]any{"version": 1, "hooks": map[string]any{"preToolUse": hs}} },
		rewrite: `{"permissionDecision": "allow", "modifiedArgs": {"command": "echo rewritten"}}`, context: `{"additionalContext": "policy context"}`,
		rewritten: rewritten, added: "policy context"},
	{dir: "windsurf", profile: "windsurf", file: "project/.windsurf/hooks.json", event: "pre_run_command",
		rewrite: claudeRewrite, context: claudeContext,
		why: "Windsurf reads a hook's exit code only: a JSON answer decides nothing there (true/false policies do)"},
	{dir: "kiro", profile: "kiro", file: "project/.kiro/hooks/%d-guard.kiro.hook",
		rewrite: claudeRewrite, context: claudeContext, added: "additionalContext",
		why: "Kiro hands a hook's output to the agent as text, never reads it as JSON: a map answer is context (true/false policies decide)"},
}

// policyCase is one guard of the vector and the fire that exercises it.
type policyCase struct {
	name, command string
	fields        func(lang string, d policyDialect) map[string]any
	expect        func(d policyDialect, n, i int) map[string]any
}

// celMap is a CEL expression answering with JSON answer when the command is command, and
// with no answer ({}) otherwise.
func celMap(command, answer string) string {
	return fmt.Sprintf("tool_input.command == %q ? %s : {}", command, answer)
}

// regoModule is the vector's Rego guard: one rule per case, each undefined (no answer)
// unless the command is its own.
func regoModule(d policyDialect) string {
	return strings.Join([]string{
		"package guard",
		`deny if input.tool_input.command == "rm -rf /"`,
		`ask if input.tool_input.command == "git push origin main"`,
		`allow if input.tool_input.command == "ls"`,
		`rewrite := ` + d.rewrite + ` if input.tool_input.command == "rewrite-me"`,
		`context := ` + d.context + ` if input.tool_input.command == "context-me"`,
		`# two values for one complete rule: an evaluation error`,
		`boom := 1 if input.tool_input.command == "boom"`,
		`boom := 2 if input.tool_input.command == "boom"`,
		`boom_block := 1 if input.tool_input.command == "boom-block"`,
		`boom_block := 2 if input.tool_input.command == "boom-block"`,
		"",
	}, "\n")
}

func guard(lang, cel, rule string, extra map[string]any) map[string]any {
	h := map[string]any{"type": "policy"}
	if lang == "cel" {
		h["cel"] = cel
	} else {
		h["rego"], h["query"] = "guard.rego", "data.guard."+rule
	}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

// hooksExpect is a fire's "hooks": n entries, entry i checked with want, the others with {}.
func hooksExpect(n, i int, want map[string]any) []any {
	out := make([]any, n)
	for j := range out {
		out[j] = map[string]any{}
	}
	out[i] = want
	return out
}

var policyCases = []policyCase{
	{name: "deny", command: "rm -rf /",
		fields: func(lang string, _ policyDialect) map[string]any {
			return guard(lang, `tool_input.command == "rm -rf /"`, "deny", map[string]any{"reason": "no rm -rf"})
		},
		expect: func(_ policyDialect, n, i int) map[string]any {
			return map[string]any{"blocked": true, "decision": "deny", "reason": "no rm -rf", "hooks": hooksExpect(n, i, map[string]any{"exec": "policy", "decision": "deny"})}
		}},
	{name: "ask", command: "git push origin main",
		fields: func(lang string, _ policyDialect) map[string]any {
			return guard(lang, `tool_input.command == "git push origin main"`, "ask", map[string]any{"decision": "ask", "reason": "push to main?"})
		},
		expect: func(_ policyDialect, n, i int) map[string]any {
			return map[string]any{"blocked": false, "decision": "ask", "reason": "push to main?"}
		}},
	{name: "allow", command: "ls",
		fields: func(lang string, _ policyDialect) map[string]any {
			return guard(lang, `tool_input.command == "ls"`, "allow", map[string]any{"decision": "allow"})
		},
		expect: func(_ policyDialect, n, i int) map[string]any {
			return map[string]any{"blocked": false, "decision": "allow"}
		}},
	{name: "rewrite", command: "rewrite-me",
		fields: func(lang string, d policyDialect) map[string]any {
			return guard(lang, celMap("rewrite-me", d.rewrite), "rewrite", nil)
		},
		expect: func(d policyDialect, n, i int) map[string]any {
			return map[string]any{"blocked": false, "updated_input": d.rewritten}
		}},
	{name: "context", command: "context-me",
		fields: func(lang string, d policyDialect) map[string]any {
			return guard(lang, celMap("context-me", d.context), "context", nil)
		},
		expect: func(d policyDialect, n, i int) map[string]any {
			if d.added == nil {
				return map[string]any{"blocked": false, "additional_context": ""}
			}
			return map[string]any{"blocked": false, "additional_context_contains": d.added}
		}},
	{name: "runtime error", command: "boom",
		fields: func(lang string, _ policyDialect) map[string]any {
			return guard(lang, `tool_input.command == "boom" && int("x") == 1`, "boom", nil)
		},
		expect: func(_ policyDialect, n, i int) map[string]any {
			return map[string]any{"blocked": false, "decision": "none", "hooks": hooksExpect(n, i, map[string]any{"error_contains": "policy"})}
		}},
	{name: "runtime error with the failure policy", command: "boom-block",
		fields: func(lang string, d policyDialect) map[string]any {
			return guard(lang, `tool_input.command == "boom-block" && int("x") == 1`, "boom_block", d.failure)
		},
		expect: func(d policyDialect, n, i int) map[string]any {
			want := map[string]any{"blocked": d.failure != nil, "hooks": hooksExpect(n, i, map[string]any{"error_contains": "policy"})}
			if d.failure != nil {
				want["decision"] = "deny"
			}
			return want
		}},
}

// policyVector builds the vector of one dialect and language.
func policyVector(d policyDialect, lang string) ([]byte, error) {
	files := map[string]any{}
	var handlers []any
	for i, c := range policyCases {
		h := c.fields(lang, d)
		h["name"] = strings.ReplaceAll(c.name, " ", "-")
		switch {
		case d.dir == "kiro":
			then := map[string]any{}
			for k, v := range h {
				if k != "name" {
					then[k] = v
				}
			}
			files[fmt.Sprintf(d.file, i+1)] = map[string]any{"name": h["name"], "when": map[string]any{"type": "preToolUse", "toolTypes": []any{"shell"}}, "then": then}
		default:
			handlers = append(handlers, h)
		}
	}
	dir := filepath.Dir(d.file)
	switch {
	case d.dir == "kiro":
	case d.wrap != nil:
		files[d.file] = d.wrap(handlers)
	case d.grouped:
		files[d.file] = map[string]any{"hooks": map[string]any{d.event: []any{map[string]any{"matcher": "Bash", "hooks": handlers}}}}
	default:
		files[d.file] = map[string]any{"hooks": map[string]any{d.event: handlers}}
	}
	if lang == "rego" {
		files[dir+"/guard.rego"] = regoModule(d)
	}
	fire := func(command string, expect map[string]any) map[string]any {
		return map[string]any{"event": "PreToolUse", "payload": map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": command}}, "expect": expect}
	}
	var fires []any
	n := len(policyCases)
	for i, c := range policyCases {
		fires = append(fires, fire(c.command, c.expect(d, n, i)))
	}
	fires = append(fires, fire("echo hello", map[string]any{"blocked": false, "decision": "none", "updated_input": nil, "additional_context": ""}))
	desc := fmt.Sprintf("A %s policy guard in %s's configuration: true applies the hook's decision (deny with its reason, ask, allow), a map is read like the hook's JSON answer in %s's words (a rewrite, context), a runtime error is the hook's failure, blocking only with the failure policy", strings.ToUpper(lang), d.dir, d.dir)
	if d.why != "" {
		desc += ". " + d.why
	}
	if d.failure == nil {
		desc += ". This format has no failure policy: a failure never blocks"
	}
	v := map[string]any{
		"description": desc,
		"source":      "docs/policy.md (The policy handler); generated by tests/conformance/policy_vectors_test.go",
		"profile":     d.profile,
		"files":       files,
		"config":      map[string]any{"hooks": n, "enabled": n},
		"fires":       fires,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}

func TestPolicyVectorsUpToDate(t *testing.T) {
	update := os.Getenv("HOOKEXEC_UPDATE_VECTORS") == "1"
	for _, d := range policyDialects {
		for _, lang := range policyLanguages {
			want, err := policyVector(d, lang)
			require.NoError(t, err)
			path := filepath.Join(d.dir, "policy_"+lang+".json")
			if update {
				require.NoError(t, os.MkdirAll(d.dir, 0o755))
				require.NoError(t, os.WriteFile(path, want, 0o644))
				continue
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err, "HOOKEXEC_UPDATE_VECTORS=1 go test -run TestPolicyVectorsUpToDate ./tests/conformance/ writes it")
			require.Equal(t, string(want), string(got), "%s is not what the table makes: HOOKEXEC_UPDATE_VECTORS=1 regenerates it", path)
		}
	}
}
