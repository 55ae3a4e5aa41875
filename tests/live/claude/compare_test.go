package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/mcpclient"
	"github.com/hookexec/hookexec/tests/live/suite"
)

// compare says, fire by fire, where hookexec and Claude Code disagree on what the host
// must do. One string per disagreement; none means they agree.
func compare(c *suite.Comparison) []string {
	v, tree, run, fires, results, ran := c.V, c.Tree, c.Run, c.Fires, c.Results, c.Ran
	var problems []string
	add := func(i int, format string, args ...any) {
		line := fmt.Sprintf("%s #%d: ", fires[i].Event, i) + fmt.Sprintf(format, args...)
		if len(line) > 400 {
			line = line[:400] + "…"
		}
		problems = append(problems, line)
	}
	all := suite.Texts(run.Model)
	toolResults := run.Model.ToolResults()
	if len(fires) == 0 {
		problems = append(problems, "Claude Code fired no event (stderr: "+strings.TrimSpace(string(run.Stderr))+")")
	}
	// System messages: what Claude Code showed against what hookexec returned, per event.
	var sys []string
	for i, r := range results {
		for _, line := range strings.Split(r.SystemMessage, "\n") {
			if line != "" {
				sys = append(sys, fires[i].Event+": "+line)
			}
		}
	}
	sort.Strings(sys)
	if got := shown(stream(run.Stdout)); !reflect.DeepEqual(sys, got) && v.Skip["system_message"] == "" && (len(sys) > 0 || len(got) > 0) {
		problems = append(problems, fmt.Sprintf("system messages: hookexec %q, Claude Code showed %q", sys, got))
	}
	// asyncRewake: each wake-up hookexec's listener got reached the model.
	if l, ok := c.Setup.(*listened); ok && v.Skip["rewake"] == "" {
		for _, msg := range l.rewakeMessages() {
			if !strings.Contains(all, msg) {
				problems = append(problems, fmt.Sprintf("asyncRewake: hookexec wakes the model with %q, Claude Code never sent it", msg))
			}
		}
	}
	promptFires, promptBlocked := 0, false
	for i, f := range fires {
		r := results[i]
		switch {
		case v.Skip["ran"] != "":
		case v.Skip["ran_more"] != "":
			// hookexec may run more hooks (deliberate, safe), never fewer.
			for _, name := range f.Ran {
				if !slices.Contains(ran[i], name) {
					add(i, "hooks run: claude %v, hookexec %v (hookexec skipped %s)", f.Ran, ran[i], name)
				}
			}
		case !reflect.DeepEqual(f.Ran, ran[i]):
			add(i, "hooks run: claude %v, hookexec %v", f.Ran, ran[i])
		}
		var p struct {
			ToolName  string          `json:"tool_name"`
			ToolInput json.RawMessage `json:"tool_input"`
			ToolUseID string          `json:"tool_use_id"`
			Cwd       string          `json:"cwd"`
		}
		_ = json.Unmarshal([]byte(f.Payload), &p)
		// The tool ran where Claude Code's session was (a worktree, a directory cd'd to).
		cwd := p.Cwd
		if cwd == "" {
			cwd = tree.Project
		}
		switch f.Event {
		case "PreToolUse", "Stop", "SubagentStop", "SessionEnd":
		default:
			if !r.Continue && hasLaterTurn(fires[i+1:]) {
				add(i, "hookexec continue=false (%q), but Claude Code went on", r.StopReason)
			}
		}
		switch f.Event {
		case "PreToolUse":
			// The tool ran when Claude Code fired PostToolUse(Failure) for its call: any hook
			// of the log got that payload (the recorder can lose the race when another
			// PostToolUse hook ends the session).
			toolRan := postToolFired(run.Log, p.ToolUseID)
			// In print mode there is nobody to ask: the host treats "ask" as a refusal. A
			// "defer" hands the call to the caller: the tool does not run and the session
			// ends (stop_reason tool_deferred), to be resumed with the caller's answer.
			deferred := !r.Blocked && r.Decision == "defer"
			blocked := r.Blocked || r.Decision == "ask" || deferred
			// A PermissionRequest for the same call decides the tool's fate when this
			// fire lets it through (compared at that fire).
			askedPermission := permissionFire(fires, i) >= 0 && !blocked
			// Claude Code's own permission check denied the call (PermissionDenied fired for
			// it): hooks had nothing to do with it.
			if !blocked && firedFor(fires, "PermissionDenied", p.ToolUseID) {
				break
			}
			if blocked == toolRan && !askedPermission {
				add(i, "hookexec blocked=%v (%s %q) but Claude Code ran the tool=%v", blocked, r.Decision, r.Reason, toolRan)
			}
			stoppedLater := false
			for _, later := range results[i+1:] {
				stoppedLater = stoppedLater || !later.Continue || later.Interrupt
			}
			goesOn := r.Continue && !deferred
			if wentOn := hasLaterTurn(fires[i+1:]); goesOn != wentOn && !stoppedLater && v.Skip["continue"] == "" {
				add(i, "hookexec continue=%v (decision %s), but Claude Code went on=%v", r.Continue, r.Decision, wentOn)
			}
			tr, ok := toolResults[p.ToolUseID]
			if !ok {
				break
			}
			if blocked {
				if r.Reason != "" && !reasonShown(r.Reason, tr.Text, v.Deliberate != "") {
					add(i, "reason: hookexec %q, Claude Code told the model %q", r.Reason, tr.Text)
				}
				break
			}
			if p.ToolName != "Bash" || askedPermission && !toolRan || replacedOutput(fires, results, p.ToolUseID) {
				break
			}
			input := map[string]any{}
			_ = json.Unmarshal(p.ToolInput, &input)
			if len(r.UpdatedInput) > 0 && string(r.UpdatedInput) != "null" {
				upd := map[string]any{}
				_ = json.Unmarshal(r.UpdatedInput, &upd)
				input = upd
			}
			command, _ := input["command"].(string)
			want := suite.ShellOutput(cwd, command)
			if tr.IsError && strings.Contains(tr.Text, "hook") {
				add(i, "hookexec lets the tool run (decision %s) but Claude Code blocked it: %q", r.Decision, tr.Text)
			} else if !strings.Contains(tr.Text, want) && v.Skip["output"] == "" {
				add(i, "tool input: hookexec runs %q (prints %q), Claude Code's tool returned %q", command, want, tr.Text)
			}
		case "PermissionRequest":
			// The call this permission is for: the PreToolUse before it with the same input.
			for j := i - 1; j >= 0; j-- {
				if permissionFire(fires, j) != i {
					continue
				}
				var q struct {
					ToolUseID string `json:"tool_use_id"`
				}
				_ = json.Unmarshal([]byte(fires[j].Payload), &q)
				toolRan := postToolFired(run.Log, q.ToolUseID)
				// Only an allow runs the tool: print mode cannot ask anybody.
				if allowed := r.Decision == "allow"; allowed != toolRan {
					add(i, "permission: hookexec decision %s (%q), Claude Code ran the tool=%v", r.Decision, r.Reason, toolRan)
				}
				tr, ok := toolResults[q.ToolUseID]
				if ok && r.Decision == "deny" && r.Reason != "" && !strings.Contains(tr.Text, r.Reason) {
					add(i, "permission reason: hookexec %q, Claude Code told the model %q", r.Reason, tr.Text)
				}
				// An allow's updatedInput is what the tool ran.
				var upd struct {
					Command string `json:"command"`
				}
				if ok && toolRan && json.Unmarshal(r.UpdatedInput, &upd) == nil && upd.Command != "" {
					if want := suite.ShellOutput(cwd, upd.Command); !strings.Contains(tr.Text, want) {
						add(i, "permission updatedInput: hookexec runs %q (prints %q), Claude Code's tool returned %q", upd.Command, want, tr.Text)
					}
				}
				// A deny with interrupt stops the agent.
				if r.Interrupt && hasLaterTurn(fires[i+1:]) {
					add(i, "hookexec interrupts (deny with interrupt), but Claude Code went on")
				}
				break
			}
		case "Stop", "SubagentStop":
			continued := continuedAfter(fires, i)
			if r.Blocked != continued && v.Skip["stop"] == "" {
				add(i, "continuation: hookexec blocked=%v (%q), Claude Code continued=%v", r.Blocked, r.Reason, continued)
			}
			if r.Blocked && continued && r.Reason != "" && !strings.Contains(all, r.Reason) {
				add(i, "Stop reason %q never reached the model", r.Reason)
			}
		case "UserPromptSubmit", "UserPromptExpansion":
			// The prompt reaches the model unless one of these fires blocks it.
			promptFires++
			promptBlocked = promptBlocked || r.Blocked
			if asked := len(run.Model.MainRequests()) > 0; r.Blocked && asked {
				add(i, "prompt: hookexec blocks (%q), Claude Code sent it to the model", r.Reason)
			}
		case "ConfigChange":
			// A block keeps the change out of the session: the env the changed file sets
			// never reaches a later command, which echoes NAME=$NAME.
			var q struct {
				FilePath string `json:"file_path"`
			}
			_ = json.Unmarshal([]byte(f.Payload), &q)
			var settings struct {
				Env map[string]string `json:"env"`
			}
			data, _ := os.ReadFile(q.FilePath)
			_ = json.Unmarshal(data, &settings)
			for k, val := range settings.Env {
				// Only the calls that started after this fire count: the change is known by
				// then (a file watcher may report it late under load).
				applied, echoed := false, false
				for _, g := range fires[i+1:] {
					var q struct {
						ToolUseID string `json:"tool_use_id"`
					}
					_ = json.Unmarshal([]byte(g.Payload), &q)
					if tr, ok := toolResults[q.ToolUseID]; ok && g.Event == "PreToolUse" {
						applied = applied || strings.Contains(tr.Text, k+"="+val)
						echoed = echoed || strings.Contains(tr.Text, k+"=")
					}
				}
				if echoed && applied == r.Blocked {
					add(i, "config change: hookexec blocked=%v (%q), Claude Code applied %s=%s: %v", r.Blocked, r.Reason, k, val, applied)
				}
			}
		case "PreModelSwitch":
			// A block cancels the switch: the set_model control request fails with
			// blocked_by_hook and the hook's reason, and PostModelSwitch does not fire. An
			// ask is the host's to put to the user; print mode has no one to ask and refuses.
			switched := false
			for _, g := range fires[i+1:] {
				switched = switched || g.Event == "PostModelSwitch"
			}
			hookBlocked := bytes.Contains(run.Stdout, []byte(`"error_code":"blocked_by_hook"`))
			refused := r.Blocked || r.Decision == "ask"
			if refused && switched || refused != hookBlocked {
				add(i, "model switch: hookexec blocked=%v decision=%s (%q), Claude Code switched=%v, blocked by a hook=%v", r.Blocked, r.Decision, r.Reason, switched, hookBlocked)
			} else if refused && !strings.Contains(string(run.Stdout), "PreModelSwitch hook: "+r.Reason) &&
				!strings.Contains(string(run.Stdout), "]: "+r.Reason) {
				add(i, "model switch: hookexec's reason %q is not what Claude Code reported", r.Reason)
			}
		case "PreCompact":
			// A block stops the compaction (Claude Code says so in compact_error); a
			// compaction can also fail on its own (too few messages).
			compacted := false
			for _, g := range fires[i+1:] {
				compacted = compacted || g.Event == "PostCompact"
			}
			hookBlocked := bytes.Contains(run.Stdout, []byte("Compaction blocked by PreCompact hook"))
			if r.Blocked && compacted || r.Blocked != hookBlocked {
				add(i, "compaction: hookexec blocked=%v (%q), Claude Code compacted=%v, blocked by a hook=%v", r.Blocked, r.Reason, compacted, hookBlocked)
			} else if r.Blocked && !strings.Contains(string(run.Stdout), r.Reason) {
				add(i, "compaction: hookexec's reason %q is not what Claude Code reported", r.Reason)
			}
		case "WorktreeCreate":
			// The hook's path is the session's directory; a failed hook ends the session before
			// its first prompt.
			started := false
			for _, g := range fires[i+1:] {
				var q struct {
					Cwd string `json:"cwd"`
				}
				_ = json.Unmarshal([]byte(g.Payload), &q)
				if g.Event == "UserPromptSubmit" || g.Event == "PreToolUse" {
					started = true
					if !r.Blocked && q.Cwd != r.WorktreePath {
						add(i, "worktree: hookexec path %q, Claude Code's session ran in %q", r.WorktreePath, q.Cwd)
						break
					}
				}
			}
			if r.Blocked == started {
				add(i, "worktree: hookexec blocked=%v (%q), Claude Code started the session=%v", r.Blocked, r.Reason, started)
			}
		case "PostToolUse", "PostToolUseFailure":
			// updatedToolOutput replaces what the model gets.
			var out struct {
				Stdout string `json:"stdout"`
			}
			if len(r.UpdatedToolOutput) > 0 && json.Unmarshal(r.UpdatedToolOutput, &out) == nil && out.Stdout != "" {
				if tr, ok := toolResults[p.ToolUseID]; !ok || !strings.Contains(tr.Text, out.Stdout) {
					add(i, "updatedToolOutput: hookexec replaces the output with %q, Claude Code told the model %q", out.Stdout, tr.Text)
				}
			}
			if wentOn := hasLaterTurn(fires[i+1:]); !r.Continue && wentOn {
				add(i, "hookexec continue=false, but Claude Code went on")
			}
			if r.Blocked && r.Reason != "" && !strings.Contains(all, r.Reason) && v.Skip["reason"] == "" {
				add(i, "feedback %q never reached the model", r.Reason)
			}
		}
		// Claude Code adds each hook's context separately; hookexec joins them with "\n".
		for _, line := range strings.Split(r.AdditionalContext, "\n") {
			if line != "" && v.Skip["context"] == "" && !strings.Contains(all, line) {
				add(i, "additional context %q never reached the model", line)
			}
		}
		for k, val := range r.Env {
			found := false
			for _, tr := range toolResults {
				found = found || strings.Contains(tr.Text, val)
			}
			if !found {
				add(i, "env export %s=%q never reached a tool", k, val)
			}
		}
	}
	if asked := len(run.Model.MainRequests()) > 0; promptFires > 0 && !promptBlocked && !asked {
		problems = append(problems, "prompt: hookexec blocks no prompt hook, but Claude Code never sent the prompt to the model")
	}
	return append(problems, mcpclient.CompareCalls(tree.Root, "claude")...)
}

// streamEvent is one line of Claude Code's stream-json output that the comparison reads.
type streamEvent struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	HookEvent string `json:"hook_event"`
	Outcome   string `json:"outcome"`
	ExitCode  *int   `json:"exit_code"`
	Content   string `json:"content"`
	Stdout    string `json:"stdout"`
}

func stream(out []byte) []streamEvent {
	var evs []streamEvent
	for _, line := range bytes.Split(out, []byte("\n")) {
		var e streamEvent
		if json.Unmarshal(line, &e) == nil {
			evs = append(evs, e)
		}
	}
	return evs
}

// shown are the messages Claude Code showed the user ("<Event>[:<matcher>] says: <text>"),
// as "<Event>: <text>", sorted.
func shown(evs []streamEvent) []string {
	var out []string
	for _, e := range evs {
		if e.Type != "system" || e.Subtype != "informational" {
			continue
		}
		who, text, ok := strings.Cut(e.Content, " says: ")
		if !ok {
			continue
		}
		who, _, _ = strings.Cut(who, ":")
		out = append(out, who+": "+text)
	}
	sort.Strings(out)
	return out
}

// postToolFired says whether some hook of the log got a PostToolUse or PostToolUseFailure
// payload for the tool call id.
func postToolFired(log []livetest.Entry, id string) bool {
	for _, e := range log {
		var q struct {
			Event     string `json:"hook_event_name"`
			ToolUseID string `json:"tool_use_id"`
		}
		_ = json.Unmarshal([]byte(e.Stdin), &q)
		if (q.Event == "PostToolUse" || q.Event == "PostToolUseFailure") && q.ToolUseID == id {
			return true
		}
	}
	return false
}

// firedFor says whether an event fired for the tool call id.
func firedFor(fires []livetest.Fire, event, id string) bool {
	for _, f := range fires {
		var q struct {
			ToolUseID string `json:"tool_use_id"`
		}
		_ = json.Unmarshal([]byte(f.Payload), &q)
		if f.Event == event && q.ToolUseID == id {
			return true
		}
	}
	return false
}

// replacedOutput says whether hookexec's PostToolUse result for the call replaces the tool's
// output (updatedToolOutput, compared at that fire).
func replacedOutput(fires []livetest.Fire, results []*engine.Result, id string) bool {
	for i, f := range fires {
		var q struct {
			ToolUseID string `json:"tool_use_id"`
		}
		_ = json.Unmarshal([]byte(f.Payload), &q)
		if f.Event == "PostToolUse" && q.ToolUseID == id && len(results[i].UpdatedToolOutput) > 0 && string(results[i].UpdatedToolOutput) != "null" {
			return true
		}
	}
	return false
}

// permissionFire returns the index of the PermissionRequest fire that asks about the tool
// call of PreToolUse fire i (same tool name and input, before the next PreToolUse), or -1.
func permissionFire(fires []livetest.Fire, i int) int {
	var p struct {
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	_ = json.Unmarshal([]byte(fires[i].Payload), &p)
	for j := i + 1; j < len(fires); j++ {
		switch fires[j].Event {
		case "PreToolUse":
			return -1
		case "PermissionRequest":
			var q struct {
				ToolName  string          `json:"tool_name"`
				ToolInput json.RawMessage `json:"tool_input"`
			}
			_ = json.Unmarshal([]byte(fires[j].Payload), &q)
			if q.ToolName == p.ToolName && bytes.Equal(q.ToolInput, p.ToolInput) {
				return j
			}
		}
	}
	return -1
}

// continuedAfter says whether Claude Code went on after Stop (or SubagentStop) fire i: the
// next fire of the same event, for the same agent, says stop_hook_active, before any new
// prompt.
func continuedAfter(fires []livetest.Fire, i int) bool {
	var p struct {
		AgentID string `json:"agent_id"`
	}
	_ = json.Unmarshal([]byte(fires[i].Payload), &p)
	for _, g := range fires[i+1:] {
		if g.Event == "UserPromptSubmit" {
			return false
		}
		var q struct {
			AgentID        string `json:"agent_id"`
			StopHookActive bool   `json:"stop_hook_active"`
		}
		_ = json.Unmarshal([]byte(g.Payload), &q)
		if g.Event == fires[i].Event && q.AgentID == p.AgentID {
			return q.StopHookActive
		}
	}
	return false
}

// hasLaterTurn says whether the session went on after a fire: a later PreToolUse, Stop or
// PostToolBatch (SessionEnd and the PostToolUse of the same call do not count).
func hasLaterTurn(later []livetest.Fire) bool {
	for _, g := range later {
		switch g.Event {
		case "PreToolUse", "Stop", "PostToolBatch", "SubagentStop":
			return true
		}
	}
	return false
}

// reasonShown says whether hookexec's reason is what Claude Code told the model; with
// anyLine (a vector marked as a deliberate difference over several reasons), one of
// hookexec's reason lines suffices.
func reasonShown(reason, told string, anyLine bool) bool {
	if strings.Contains(told, reason) {
		return true
	}
	if anyLine {
		for _, line := range strings.Split(reason, "\n") {
			if line != "" && strings.Contains(told, line) {
				return true
			}
		}
	}
	return false
}
