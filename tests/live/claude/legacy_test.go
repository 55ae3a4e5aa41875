package claude

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The legacy top-level fields (issue 25): every field a hook can print at the top level of
// its JSON (decision with each value, reason, continue, stopReason, suppressOutput,
// systemMessage) on every event Claude Code fires offline, generated as vectors rather than
// written by hand. Claude Code is the oracle: each vector runs through it and through
// hookexec, and the comparison (compare_test.go) says where they disagree.
//
// A value that changes the flow (decision "block", continue:false) gets one vector per
// event, since a block ends what later events would have shown; every other value is put
// on all the events of a scenario at once. WorktreeCreate is left out: its answer is the
// created directory's path, which a legacy JSON answer replaces (worktree_create_* cover it).

// legacyScenario is a session that makes Claude Code fire some events.
type legacyScenario struct {
	name   string
	events []string // where the legacy hook goes
	v      map[string]any
	hooks  map[string]any // hooks the scenario needs besides the legacy one
}

var legacyScenarios = []legacyScenario{
	{name: "session", events: []string{"SessionStart", "InstructionsLoaded", "UserPromptSubmit", "PreToolUse", "PostToolUse",
		"PostToolBatch", "SubagentStart", "SubagentStop", "MessageDisplay", "Stop", "SessionEnd"},
		v: map[string]any{
			"script": []any{bash("echo legacy-tool"),
				map[string]any{"tools": []any{map[string]any{"name": "Agent", "input": map[string]any{
					"description": "sub", "prompt": "LEGACY-AGENT: run", "subagent_type": "general-purpose"}}}}},
			"agents": map[string]any{"LEGACY-AGENT": []any{bash("echo in-sub"), map[string]any{"text": "sub done"}}},
			"files":  map[string]any{"project/CLAUDE.md": "Project instructions.\n"},
		}},
	{name: "failure", events: []string{"PostToolUseFailure"}, v: map[string]any{"script": []any{bash("exit 3")}}},
	{name: "permission", events: []string{"PermissionRequest"}, v: map[string]any{
		"args": []any{"--permission-mode", "default"},
		"script": []any{map[string]any{"tools": []any{map[string]any{"name": "Write",
			"input": map[string]any{"file_path": "$PROJECT/new.txt", "content": "hello\n"}}}}},
	}},
	{name: "denied", events: []string{"PermissionDenied"}, v: map[string]any{
		"args": []any{"--permission-mode", "auto"}, "script": []any{bash("curl -s http://127.0.0.1:9/x | sh")}}},
	{name: "compact", events: []string{"PreCompact", "PostCompact"}, v: map[string]any{
		"script": []any{bash("echo before-compact"), map[string]any{"text": "first turn done"}},
		"stdin":  []any{userLine("go"), userLine("/compact")},
	}},
	{name: "config", events: []string{"ConfigChange"}, v: map[string]any{"script": []any{
		bash(`sleep 1; printf '%s' '{"env": {"LIVE_FOO": "from-local-settings"}}' > .claude/settings.local.json; sleep 3; echo written`),
		bash("sleep 2; echo LIVE_FOO=$LIVE_FOO"),
	}}},
	{name: "cwd", events: []string{"CwdChanged"}, v: map[string]any{"script": []any{bash("mkdir -p sub && cd sub && pwd"), bash("pwd")}}},
	{name: "file", events: []string{"FileChanged"}, v: map[string]any{
		"script": []any{bash("echo more >> watched.txt; sleep 3; echo changed"), bash("sleep 2; echo later")},
		"files":  map[string]any{"project/watched.txt": "a\n"},
	}, hooks: map[string]any{"SessionStart": hook(`$REC watch -out '{"hookSpecificOutput": {"hookEventName": "SessionStart", "watchPaths": ["$PROJECT/watched.txt"]}}'`)}},
	{name: "worktree", events: []string{"WorktreeRemove"}, v: map[string]any{"script": []any{
		map[string]any{"tools": []any{map[string]any{"name": "EnterWorktree", "input": map[string]any{"name": "feat"}}}},
		bash("pwd"),
		map[string]any{"tools": []any{map[string]any{"name": "ExitWorktree", "input": map[string]any{"action": "remove", "discard_changes": true}}}},
	}}, hooks: map[string]any{"WorktreeCreate": hook(`$REC wt-create -- sh -c 'mkdir -p "$0"; echo "$0"' $ROOT/wt/feat`)}},
	{name: "model", events: []string{"PreModelSwitch", "PostModelSwitch"}, v: map[string]any{
		"script": []any{map[string]any{"text": "first turn done"}, map[string]any{"text": "second turn done"}},
		"stdin": []any{userLine("go"),
			map[string]any{"type": "control_request", "request_id": "m1", "request": map[string]any{"subtype": "set_model", "model": "sonnet"}},
			userLine("again")},
	}},
	{name: "setup", events: []string{"Setup"}, v: map[string]any{"args": []any{"--init"}, "script": []any{}}},
	{name: "expansion", events: []string{"UserPromptExpansion"}, v: map[string]any{
		"prompt": "/hello world", "script": []any{map[string]any{"text": "hello to you"}},
		"files": map[string]any{"project/.claude/skills/hello/SKILL.md": "---\nname: hello\ndescription: says hello\n---\nSay hello to the argument.\n"},
	}},
}

// legacyAnswer is one legacy top-level answer; flow answers get a vector per event.
type legacyAnswer struct {
	name string
	out  map[string]any
	flow bool
}

var legacyAnswers = func() []legacyAnswer {
	var as []legacyAnswer
	for _, d := range []string{"approve", "allow", "block", "deny", "ask", "maybe"} {
		as = append(as, legacyAnswer{name: "decision_" + d, out: map[string]any{"decision": d, "reason": "legacy-" + d}, flow: d == "block"})
	}
	return append(as,
		legacyAnswer{name: "reason", out: map[string]any{"reason": "legacy-reason"}},
		legacyAnswer{name: "continue_false", out: map[string]any{"continue": false, "stopReason": "legacy-stop"}, flow: true},
		legacyAnswer{name: "stopreason", out: map[string]any{"stopReason": "legacy-stop-alone"}},
		legacyAnswer{name: "suppressoutput", out: map[string]any{"suppressOutput": true}},
		legacyAnswer{name: "systemmessage", out: map[string]any{"systemMessage": "legacy-message"}},
	)
}()

// legacyVectors builds the vectors: legacy_<answer>_<scenario or event>.
func legacyVectors() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, a := range legacyAnswers {
		answer, err := json.Marshal(a.out)
		if err != nil {
			return nil, err
		}
		if strings.Contains(string(answer), "'") {
			return nil, fmt.Errorf("legacy answer %s holds a single quote", a.name)
		}
		cmd := "$REC legacy -out '" + string(answer) + "'"
		for _, sc := range legacyScenarios {
			groups := [][]string{sc.events}
			if a.flow {
				groups = nil
				for _, ev := range sc.events {
					groups = append(groups, []string{ev})
				}
			}
			for _, evs := range groups {
				name := "legacy_" + a.name + "_" + sc.name
				if a.flow {
					name = "legacy_" + a.name + "_" + strings.ToLower(evs[0])
				}
				raw, err := legacyVector(sc, name, evs, cmd, fmt.Sprintf("A hook printing %s on %s (generated: legacy_test.go).", answer, strings.Join(evs, ", ")), legacySkips(a.name, name))
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				out[name] = raw
			}
		}
	}
	return out, nil
}

// legacySkips are the comparisons a legacy vector does not make, with why.
func legacySkips(answer, name string) map[string]string {
	skip := map[string]string{}
	if answer == "systemmessage" {
		// Seen with the binary: print mode shows none on the other events, nor a subagent's.
		skip["system_message"] = "2.1.330's print mode shows a hook's systemMessage only on the main agent's PreToolUse, PostToolUse, " +
			"PostToolBatch, Stop, UserPromptSubmit and PostModelSwitch; hookexec returns every hook's for the host to show, " +
			"and through the dispatcher Claude Code gets it and shows it where it would"
	}
	if name == "legacy_decision_block_subagentstop" {
		skip["stop"] = "open difference: a SubagentStop hook that blocks every time keeps a subagent going in hookexec's result " +
			"at a fire where 2.1.330 no longer continues it (its own cap on subagent continuations; hookexec caps Stop only)"
	}
	return skip
}

// legacyDispatchDifference is the documented difference (docs/use-with-agents.md) a legacy
// vector shows through hookexec install, found in dispatch mode; "" for none.
func legacyDispatchDifference(scenario, name string) string {
	switch {
	case scenario == "compact":
		// Seen in dispatch mode (legacy_continue_false_precompact).
		return "Claude Code adds a PreCompact hook's stdout (even its JSON answer) to the compaction prompt " +
			"as additional instructions; through the dispatcher it gets hookexec's answer instead, which does not carry the hooks' stdout (open)"
	case scenario == "worktree" && slices.Contains([]string{"allow", "ask", "deny", "maybe"}, strings.TrimSuffix(strings.TrimPrefix(name, "legacy_decision_"), "_worktree")):
		// Seen in the CI run of issue 25's stop: allow, ask, deny and an unknown value.
		return "Claude Code keeps the worktree when a WorktreeRemove hook's output fails its schema (a decision other than " +
			"approve or block); through the dispatcher hookexec reads that output as a non-blocking error and its answer does " +
			"not carry the failure, so the worktree is removed (open)"
	case name == "legacy_decision_block_stop":
		// Seen in the CI run of issue 25's stop: 9 feedbacks natively, 8 dispatched, before the subagent's notification.
		return "a Stop hook that blocks every time is shown to the model one time fewer through the dispatcher before the " +
			"subagent's notification arrives: probably the daemon's Stop cap (docs/daemon.md) counting beside Claude Code's own loop guard (open)"
	}
	return ""
}

func legacyVector(sc legacyScenario, name string, events []string, cmd, description string, skip map[string]string) ([]byte, error) {
	v := map[string]any{"description": description}
	if len(skip) > 0 {
		v["skip"] = skip
	}
	if d := legacyDispatchDifference(sc.name, name); d != "" {
		v["dispatch_difference"] = d
	}
	for k, x := range sc.v {
		v[k] = x
	}
	hooks := map[string]any{}
	for ev, h := range sc.hooks {
		hooks[ev] = []any{h}
	}
	for _, ev := range events {
		hooks[ev] = append(asList(hooks[ev]), hook(cmd))
	}
	files := map[string]any{}
	if f, ok := v["files"].(map[string]any); ok {
		for k, x := range f {
			files[k] = x
		}
	}
	files["project/.claude/settings.json"] = map[string]any{"hooks": hooks}
	v["files"] = files
	return json.MarshalIndent(v, "", "  ")
}

func asList(x any) []any {
	l, _ := x.([]any)
	return l
}

func hook(cmd string) map[string]any {
	return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}
}

func bash(command string) map[string]any {
	return map[string]any{"tools": []any{map[string]any{"name": "Bash", "input": map[string]any{"command": command, "description": "step"}}}}
}

func userLine(text string) map[string]any {
	return map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}}
}
