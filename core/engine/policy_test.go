package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/policy"
)

func policyHook(event string, fields map[string]any) string {
	fields["type"] = "policy"
	return hookCfg(event, fields)
}

// TestPolicyHookAnswers runs a policy hook's answers through a Claude Code configuration:
// a bool applies the hook's decision, a map is read like a command's JSON stdout.
func TestPolicyHookAnswers(t *testing.T) {
	bash := `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`
	tests := []struct {
		name     string
		event    string
		handler  map[string]any
		payload  string
		blocked  bool
		decision string
		reason   string
		context  string
		updated  string
		errSub   string
	}{
		{name: "true denies with the reason", event: "PreToolUse", handler: map[string]any{"cel": "true", "reason": "no rm -rf"}, payload: bash, blocked: true, decision: "deny", reason: "no rm -rf"},
		{name: "true without a reason still denies", event: "PreToolUse", handler: map[string]any{"cel": "true"}, payload: bash, blocked: true, decision: "deny", reason: "policy: true"},
		{name: "false is no answer", event: "PreToolUse", handler: map[string]any{"cel": "false", "reason": "no"}, payload: bash, decision: "none"},
		{name: "true asks", event: "PreToolUse", handler: map[string]any{"cel": "true", "decision": "ask", "reason": "sure?"}, payload: bash, decision: "ask", reason: "sure?"},
		{name: "true allows", event: "PreToolUse", handler: map[string]any{"cel": "true", "decision": "allow"}, payload: bash, decision: "allow"},
		{name: "true defers", event: "PreToolUse", handler: map[string]any{"cel": "true", "decision": "defer"}, payload: bash, decision: "defer"},
		{name: "block on a prompt", event: "UserPromptSubmit", handler: map[string]any{"cel": "true", "decision": "block", "reason": "no secrets"}, payload: `{"prompt":"x"}`, blocked: true, decision: "deny", reason: "no secrets"},
		{name: "deny on Stop blocks the stop", event: "Stop", handler: map[string]any{"cel": "true", "reason": "tests first"}, payload: `{}`, blocked: true, decision: "deny", reason: "tests first"},
		{name: "deny on PermissionRequest", event: "PermissionRequest", handler: map[string]any{"cel": "true", "reason": "no"}, payload: bash, blocked: true, decision: "deny", reason: "no"},
		{name: "a map is read like JSON stdout", event: "PreToolUse", handler: map[string]any{"cel": `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "from the map"}}`}, payload: bash, blocked: true, decision: "deny", reason: "from the map"},
		{name: "a map rewrites the input", event: "PreToolUse", handler: map[string]any{"cel": `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls"}}}`}, payload: bash, decision: "allow", updated: `{"command":"ls"}`},
		{name: "a map adds context", event: "UserPromptSubmit", handler: map[string]any{"cel": `{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "branch main"}}`}, payload: `{"prompt":"x"}`, decision: "none", context: "branch main"},
		{name: "a runtime error is a non-blocking error", event: "PreToolUse", handler: map[string]any{"cel": `int("x") == 1`}, payload: bash, decision: "none", errSub: "policy: cel: type conversion error"},
		{name: "onFailure block blocks on a runtime error", event: "PreToolUse", handler: map[string]any{"cel": `int("x") == 1`, "onFailure": "block"}, payload: bash, blocked: true, decision: "deny", errSub: "policy: cel: type conversion error"},
		{name: "fail_closed blocks on a runtime error", event: "PreToolUse", handler: map[string]any{"cel": `int("x") == 1`, "fail_closed": true}, payload: bash, blocked: true, decision: "deny", errSub: "policy: cel: type conversion error"},
		{name: "a policy that does not compile fails each fire", event: "PreToolUse", handler: map[string]any{"cel": `)(`}, payload: bash, decision: "none", errSub: "policy does not compile"},
		{name: "a policy that does not compile blocks with onFailure block", event: "PreToolUse", handler: map[string]any{"cel": `)(`, "onFailure": "block"}, payload: bash, blocked: true, decision: "deny", errSub: "policy does not compile"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := open(t, policyHook(tc.event, tc.handler), claudeProfile)
			r := fireT(t, e, tc.event, tc.payload)
			require.Len(t, r.Hooks, 1)
			h := r.Hooks[0]
			require.Equal(t, tc.blocked, r.Blocked, "%+v", h)
			require.Equal(t, tc.decision, r.Decision)
			if tc.reason != "" {
				require.Contains(t, r.Reason, tc.reason)
			}
			require.Equal(t, tc.context, strings.TrimSpace(r.AdditionalContext))
			if tc.updated != "" {
				require.JSONEq(t, tc.updated, string(r.UpdatedInput))
			}
			require.Equal(t, "policy", h.Exec)
			require.Equal(t, tc.handler["cel"], h.Command)
			if tc.errSub == "" {
				require.Empty(t, h.Error)
				require.Equal(t, 0, h.ExitCode)
			} else {
				require.Contains(t, h.Error, tc.errSub)
			}
		})
	}
}

// TestPolicyDoesNotCompileIsALoadError: the load reports it at the line of "cel", and the
// hook stays enabled so that a broken guard never vanishes.
func TestPolicyDoesNotCompileIsALoadError(t *testing.T) {
	e, _ := open(t, policyHook("PreToolUse", map[string]any{"cel": ")("}), claudeProfile)
	cfg, err := e.Config()
	require.NoError(t, err)
	var found bool
	for _, w := range cfg.Warnings {
		if strings.Contains(w.Message, "policy does not compile") {
			found = true
			require.True(t, w.Error)
			require.Equal(t, `hooks.PreToolUse[0].hooks[0].cel`, w.Path)
		}
	}
	require.True(t, found, "%+v", cfg.Warnings)
	require.Len(t, cfg.Hooks, 1)
	require.True(t, cfg.Hooks[0].Enabled, "a broken guard stays in the fire")
	require.Contains(t, cfg.Hooks[0].PolicyError, "policy does not compile")
}

type slowPolicy struct{ done chan struct{} }

func (p slowPolicy) Eval(ctx context.Context, _ *policy.Input) ([]byte, error) {
	<-p.done
	return []byte(`true`), nil
}

// TestPolicyTimeout: a policy that does not honour ctx still ends at the hook's timeout.
func TestPolicyTimeout(t *testing.T) {
	p := slowPolicy{done: make(chan struct{})}
	defer close(p.done)
	start := time.Now()
	out, failure, timedOut := evalGuard(context.Background(), p, &policy.Input{}, 50*time.Millisecond)
	require.Less(t, time.Since(start), hangGuard)
	require.Equal(t, policy.Result{}, out)
	require.True(t, timedOut)
	require.Contains(t, failure, "timed out after 50ms")
}

// TestTrustPolicyHook: a project's policy hook awaits approval like a project's command;
// its approval names the expression, and pins the content of its Rego modules.
func TestTrustPolicyHook(t *testing.T) {
	tp := newTrustProject(t)
	write := func(handlers ...map[string]any) {
		hs := make([]any, len(handlers))
		for i, h := range handlers {
			h["type"] = "policy"
			hs[i] = h
		}
		b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": hs}}}})
		tp.write(t, ".claude/settings.json", string(b))
	}
	tp.write(t, ".claude/policy/guard.rego", "package guard\ndecision := true\n")
	write(map[string]any{"name": "cel-guard", "cel": "true", "reason": "no"},
		map[string]any{"name": "rego-guard", "rego": "policy/guard.rego", "query": "data.guard.decision"})
	e := tp.open(t)
	r := fireT(t, e, "PreToolUse", bashPayload)
	require.False(t, r.Blocked, "an unapproved policy neither blocks nor allows")
	require.Len(t, r.AwaitingApproval, 2)
	require.Equal(t, "true", r.AwaitingApproval[0].Command)
	require.Equal(t, filepath.Join(tp.dir, ".claude/policy/guard.rego")+" data.guard.decision", r.AwaitingApproval[1].Command)

	list, err := e.TrustList()
	require.NoError(t, err)
	require.Len(t, list.Hooks, 2)
	require.Len(t, list.Hooks[1].Files, 1)
	require.Equal(t, ".claude/policy/guard.rego", list.Hooks[1].Files[0].Path)

	_, err = e.Approve("cel-guard")
	require.NoError(t, err)
	_, err = e.Approve("rego-guard")
	require.NoError(t, err)
	r = fireT(t, e, "PreToolUse", bashPayload)
	require.True(t, r.Blocked, "the approved CEL guard runs")
	require.Empty(t, r.AwaitingApproval)

	// Editing a module withdraws the Rego guard's approval; the CEL guard stays approved.
	tp.write(t, ".claude/policy/guard.rego", "package guard\ndecision := false\n")
	r = fireT(t, e, "PreToolUse", bashPayload)
	require.Len(t, r.AwaitingApproval, 1)
	require.Equal(t, "rego-guard", r.AwaitingApproval[0].ID)
	require.Contains(t, r.AwaitingApproval[0].Reason, ".claude/policy/guard.rego changed")

	// Another expression is another hook: not approved.
	write(map[string]any{"name": "cel-guard", "cel": "false", "reason": "no"})
	require.NoError(t, e.Reload())
	r = fireT(t, e, "PreToolUse", bashPayload)
	require.Len(t, r.AwaitingApproval, 1)
	require.Equal(t, "cel-guard", r.AwaitingApproval[0].ID)
}

// TestExplainShowsThePolicy: explain names the language, the policy, what true means, and
// why a broken one fails.
func TestExplainShowsThePolicy(t *testing.T) {
	e, _ := open(t, policyHook("PreToolUse", map[string]any{"cel": "true", "decision": "ask", "reason": "sure?"}), claudeProfile)
	x, err := e.Explain("PreToolUse", []byte(bashPayload))
	require.NoError(t, err)
	require.Len(t, x.Hooks, 1)
	require.True(t, x.Hooks[0].Runs)
	require.Equal(t, "policy", x.Hooks[0].Exec)
	require.Equal(t, `cel true (true: ask "sure?")`, x.Hooks[0].Command)

	e, _ = open(t, policyHook("PreToolUse", map[string]any{"cel": ")("}), claudeProfile)
	x, err = e.Explain("PreToolUse", []byte(bashPayload))
	require.NoError(t, err)
	require.Contains(t, x.Hooks[0].Command, "cel )( (true: deny); fails: policy does not compile")
}

// TestPolicyRegoSeesTheFire: a Rego policy gets the payload in Claude Code's envelope with
// canonical names, the event and the hook's matcher, and its module's path is relative to
// the declaring file; its bool and object answers are read like a CEL policy's.
func TestPolicyRegoSeesTheFire(t *testing.T) {
	dir := t.TempDir()
	module := `package guard

deny if {
	input.hook_event_name == "PreToolUse"
	input.tool_name == "Bash"
	hookexec.event() == "PreToolUse"
	hookexec.matcher() == "Bash|run_shell_command"
	startswith(input.tool_input.command, "rm -rf")
}

answer := {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": concat("", ["cwd ", input.cwd])}} if {
	input.tool_input.command == "pwd"
}
`
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude", "policy"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "policy", "guard.rego"), []byte(module), 0o644))
	cfg := `{"hooks": {"PreToolUse": [{"matcher": "Bash|run_shell_command", "hooks": [
		{"type": "policy", "rego": "policy/guard.rego", "query": "data.guard.deny", "reason": "no rm -rf"},
		{"type": "policy", "rego": "policy", "query": "data.guard.answer"}]}]}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(cfg), 0o644))
	e, err := Open(Options{Profile: "claude", ProjectDir: dir, Home: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	c, err := e.Config()
	require.NoError(t, err)
	require.Empty(t, c.Warnings)

	// Gemini's spelling of the tool: the policy sees the canonical one.
	r := fireT(t, e, "PreToolUse", `{"tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}`)
	require.True(t, r.Blocked, "%s", r.JSON())
	require.Equal(t, "no rm -rf", r.Reason)
	require.Equal(t, filepath.Join(dir, ".claude", "policy", "guard.rego")+" data.guard.deny", r.Hooks[0].Command)

	r = fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"pwd"}}`)
	require.False(t, r.Blocked)
	require.Equal(t, "cwd "+dir, r.AdditionalContext)
}

// TestPolicyAnswerIsACommandsAnswer: in every format, a policy's object answer gives the
// verdict the same JSON printed (exit 0) by a command hook of the same file gives.
func TestPolicyAnswerIsACommandsAnswer(t *testing.T) {
	type format struct {
		profile, file string
		write         func(handler map[string]any) any
	}
	group := func(event string) func(map[string]any) any {
		return func(h map[string]any) any {
			return map[string]any{"hooks": map[string]any{event: []any{map[string]any{"matcher": "Bash", "hooks": []any{h}}}}}
		}
	}
	list := func(event string, top map[string]any) func(map[string]any) any {
		return func(h map[string]any) any {
			out := map[string]any{"hooks": map[string]any{event: []any{h}}}
			for k, v := range top {
				out[k] = v
			}
			return out
		}
	}
	formats := []format{
		{"claude", ".claude/settings.json", group("PreToolUse")},
		{"cli-agent", ".config/agent/settings.json", group("PreToolUse")},
		{"mycode", ".gen/settings.json", group("PreToolUse")},
		{"qwen", ".qwen/settings.json", group("PreToolUse")},
		{"codex", ".codex/hooks.json", group("PreToolUse")},
		{"gemini", ".gemini/settings.json", group("BeforeTool")},
		{"factory", ".factory/settings.json", group("PreToolUse")},
		{"cursor", ".cursor/hooks.json", list("beforeShellExecution", map[string]any{"version": 1})},
		{"copilot", ".github/hooks/hooks.json", list("preToolUse", map[string]any{"version": 1})},
		{"windsurf", ".windsurf/hooks.json", list("pre_run_command", nil)},
		{"crush", "crush.json", list("PreToolUse", nil)},
		{"antigravity", ".agents/hooks.json", func(h map[string]any) any {
			return map[string]any{"guard": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "run_command", "hooks": []any{h}}}}}
		}},
		{"kiro", ".kiro/hooks/guard.kiro.hook", func(h map[string]any) any {
			return map[string]any{"name": "guard", "when": map[string]any{"type": "preToolUse", "toolTypes": []any{"shell"}}, "then": h}
		}},
	}
	answers := []string{
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}`,
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls"}}}`,
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "ctx"}}`,
		`{"decision": "block", "reason": "blocked"}`,
		`{"continue": false, "stopReason": "stop"}`,
		`{"permission": "deny", "agent_message": "cursor no", "user_message": "shown"}`,
		`{"permission": "allow", "updated_input": {"command": "ls"}, "additional_context": "c"}`,
		`{"permissionDecision": "deny", "permissionDecisionReason": "copilot no"}`,
		`{"permissionDecision": "allow", "modifiedArgs": {"command": "ls"}}`,
		`{"decision": "deny", "reason": "gemini no", "hookSpecificOutput": {"tool_input": {"command": "ls"}}}`,
		`{"systemMessage": "note"}`,
	}
	verdict := func(r *Result) string {
		context := r.AdditionalContext
		var v any
		if json.Unmarshal([]byte(context), &v) == nil {
			b, _ := json.Marshal(v) // Kiro's context is the answer's text: compared as JSON
			context = string(b)
		}
		return fmt.Sprintf("blocked=%v decision=%s reason=%q continue=%v stop=%q input=%s context=%q system=%q error=%q",
			r.Blocked, r.Decision, r.Reason, r.Continue, r.StopReason, r.UpdatedInput, context, r.SystemMessage, r.Hooks[0].Error)
	}
	for _, f := range formats {
		for i, answer := range answers {
			t.Run(fmt.Sprintf("%s/%d", f.profile, i), func(t *testing.T) {
				fire := func(handler map[string]any, module string) *Result {
					dir := t.TempDir()
					b, _ := json.Marshal(f.write(handler))
					path := filepath.Join(dir, f.file)
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, b, 0o644))
					if module != "" {
						require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(path), "answer.rego"), []byte(module), 0o644))
					}
					e, err := Open(Options{Profile: f.profile, ProjectDir: dir, Home: t.TempDir()})
					require.NoError(t, err)
					defer e.Close()
					return fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
				}
				cmd := map[string]any{"type": "command", "command": "printf '%s' '" + answer + "'"}
				if f.profile == "kiro" {
					cmd = map[string]any{"type": "runCommand", "command": cmd["command"]}
				}
				byCommand := fire(cmd, "")
				byPolicy := fire(map[string]any{"type": "policy", "rego": "answer.rego", "query": "data.answer.out"}, "package answer\nout := "+answer+"\n")
				require.Equal(t, verdict(byCommand), verdict(byPolicy), "command: %s\npolicy: %s", byCommand.JSON(), byPolicy.JSON())
			})
		}
	}
}

// TestPolicyInTheDebugLog: the log names the policy, its decision and its failure.
func TestPolicyInTheDebugLog(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "fires.jsonl")
	cfg := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "policy", "cel": "true", "reason": "no"},
		{"type": "policy", "cel": "int(\"x\") == 1"}]}]}}`
	e, _ := open(t, cfg, claudeProfile, func(o *Options) { o.LogFile = logPath })
	fireT(t, e, "PreToolUse", bashPayload)
	lines := readLog(t, logPath)
	require.Len(t, lines, 1)
	require.Len(t, lines[0].Hooks, 2)
	deny, broken := lines[0].Hooks[0], lines[0].Hooks[1]
	require.True(t, deny.Ran)
	require.Equal(t, "policy", deny.Exec)
	require.Equal(t, `cel true (true: deny "no")`, deny.Command)
	require.Equal(t, "deny", deny.HookDecision)
	require.True(t, broken.Ran)
	require.Contains(t, broken.Error, "policy")
}

// TestPolicyIfRuleAndAggregation: an "if" rule selects a policy hook as any hook, and a
// policy's deny beside a command's allow is a deny.
func TestPolicyIfRuleAndAggregation(t *testing.T) {
	cfg := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "policy", "if": "Bash(git push *)", "cel": "true", "reason": "no pushing"},
		{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\"}}'"}]}]}}`
	e, _ := open(t, cfg, claudeProfile)
	r := fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"git push origin main"}}`)
	require.True(t, r.Blocked)
	require.Equal(t, "deny", r.Decision)
	require.Equal(t, "no pushing", r.Reason)
	r = fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"git status"}}`)
	require.Equal(t, "allow", r.Decision, "the policy's if rule does not match: only the command answers")
	require.Len(t, r.Hooks, 1)
}
