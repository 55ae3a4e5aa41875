package suite

import (
	"encoding/json"
	"flag"
	"fmt"
	"os/exec"
	"reflect"
	"sort"
	"strings"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
)

// Comparison is one vector's two runs: the agent's, and hookexec's results for each of the
// agent's fires (Results[i] and Ran[i] for Fires[i]).
type Comparison struct {
	V       Vector
	Tree    livetest.Tree
	Run     Run
	Fires   []livetest.Fire
	Results []*engine.Result
	Ran     [][]string
	// Setup is what the Agent's Setup returned for the vector (nil without one).
	Setup any
}

// Texts is every string of the main conversation's requests (messages and system, not the
// tool definitions).
func Texts(m Model) string {
	var b strings.Builder
	var walk func(x any)
	walk = func(x any) {
		switch y := x.(type) {
		case string:
			b.WriteString(y)
			b.WriteByte('\n')
		case []any:
			for _, z := range y {
				walk(z)
			}
		case map[string]any:
			keys := make([]string, 0, len(y))
			for k := range y {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k != "tools" {
					walk(y[k])
				}
			}
		}
	}
	for _, r := range m.MainRequests() {
		var body any
		_ = json.Unmarshal(r.Body, &body)
		walk(body)
	}
	return b.String()
}

// ShellOutput is what `sh -c cmd` prints in dir: what the agent's shell tool should have
// returned.
func ShellOutput(dir, cmd string) string {
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Dir = dir
	out, _ := c.CombinedOutput()
	return strings.TrimSpace(string(out))
}

// scriptedCalls are the ids of the script's tool calls, in order.
func scriptedCalls(script []fakeapi.Turn) []string {
	var out []string
	for n, turn := range script {
		for i, c := range turn.Tools {
			out = append(out, fakeapi.CallID(n, i, c))
		}
	}
	return out
}

// CrashedHooks reports fire i's hooks whose own script crashed (a Python traceback): such
// a vector would agree vacuously, both sides failing open.
func (c *Comparison) CrashedHooks(i int) []string {
	var out []string
	for _, h := range c.Results[i].Hooks {
		if strings.Contains(h.Stderr, "Traceback (most recent call last)") || strings.Contains(h.Stderr, "SyntaxError") {
			out = append(out, fmt.Sprintf("the vector's hook %s crashed: %s", h.ID, h.Stderr))
		}
	}
	return out
}

// Vacuous reports a vector none of whose own hooks ran under the agent (only the
// recorder did): both sides then agree that nothing ran, which shows nothing of the hooks
// the vector is about (an event the agent never fired, a tool it has off, a hooks file it
// did not read). A vector whose hooks run where the recorder cannot see them (http hooks,
// converted hooks run through hookexec adapt) says so with "skip": {"ran": why}; one whose
// point is that a hook does not run keeps another beside it that does. Suites call it from
// their Compare (Qwen Code's, Gemini CLI's).
func Vacuous(c *Comparison) []string {
	if c.V.Skip["ran"] != "" {
		return nil
	}
	for _, f := range c.Fires {
		if len(f.Ran) > 0 {
			return nil
		}
	}
	return []string{"none of the vector's hooks ran under " + state.a.Title + ": the agreement would be vacuous"}
}

// Compare is the default comparison: fire by fire, where hookexec and the agent disagree
// on what the host must do; none means they agree. The k-th PreToolUse fire is the k-th
// scripted tool call.
func Compare(c *Comparison) []string {
	v, tree, run, fires, results, ran := c.V, c.Tree, c.Run, c.Fires, c.Results, c.Ran
	name := state.a.Name
	var problems []string
	add := func(i int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s #%d: ", fires[i].Event, i)+fmt.Sprintf(format, args...))
	}
	all := Texts(run.Model)
	toolResults := run.Model.ToolResults()
	calls := scriptedCalls(v.Script)
	if len(fires) == 0 {
		problems = append(problems, name+" fired no event (stderr: "+strings.TrimSpace(string(run.Stderr))+")")
	}
	pre := 0
	for i, f := range fires {
		r := results[i]
		for _, crash := range c.CrashedHooks(i) {
			add(i, "%s", crash)
		}
		if !reflect.DeepEqual(f.Ran, ran[i]) && v.Skip["ran"] == "" {
			add(i, "hooks run: %s %v, hookexec %v", name, f.Ran, ran[i])
		}
		var p struct {
			ToolName  string         `json:"tool_name"`
			ToolInput map[string]any `json:"tool_input"`
		}
		_ = json.Unmarshal([]byte(f.Payload), &p)
		if state.a.ToolCall != nil {
			p.ToolName, p.ToolInput = state.a.ToolCall([]byte(f.Payload))
		}
		switch event.Canonical(f.Event) {
		case "PreToolUse":
			if pre >= len(calls) {
				add(i, "more tool calls than the script has")
				break
			}
			id := calls[pre]
			pre++
			tr, ok := toolResults[id]
			if !ok {
				if r.Continue && v.Skip["stop"] == "" {
					add(i, "%s sent no tool result for %s; hookexec says continue", name, id)
				}
				break
			}
			command := state.a.ShellCommand(p.ToolName, p.ToolInput)
			if len(r.UpdatedInput) > 0 && string(r.UpdatedInput) != "null" {
				upd := map[string]any{}
				_ = json.Unmarshal(r.UpdatedInput, &upd)
				command = state.a.ShellCommand(p.ToolName, upd)
			}
			want := ""
			if command != "" {
				want = ShellOutput(tree.Project, command)
			}
			ranTool := want != "" && (strings.Contains(tr.Text, want) || replacedAfter(c, i, want, tr.Text))
			if perm := permissionAfter(c, i); perm != nil && !r.Blocked {
				// The agent asked for permission and a PermissionRequest hook answered.
				switch {
				case perm.Blocked && ranTool:
					add(i, "hookexec's PermissionRequest denies (%q) but the tool ran: %q", perm.Reason, tr.Text)
				case perm.Blocked && perm.Reason != "" && !strings.Contains(tr.Text, perm.Reason) && v.Skip["reason"] == "":
					add(i, "permission reason: hookexec %q, %s told the model %q", perm.Reason, name, tr.Text)
				case perm.Decision == "allow" && want != "" && !ranTool:
					add(i, "hookexec's PermissionRequest allows %q but %s's tool returned %q", command, name, tr.Text)
				}
				break
			}
			switch {
			case r.Blocked && ranTool:
				add(i, "hookexec blocks (%q) but the tool ran: %q", r.Reason, tr.Text)
			case r.Blocked && r.Reason != "" && !strings.Contains(tr.Text, r.Reason) && v.Skip["reason"] == "":
				add(i, "reason: hookexec %q, %s told the model %q", r.Reason, name, tr.Text)
			case !r.Blocked && r.Decision == "ask" && ranTool && v.Skip["ask"] == "":
				add(i, "hookexec asks the host to confirm (%q) but %s ran the tool without asking", r.Reason, name)
			case !r.Blocked && want != "" && !ranTool:
				add(i, "hookexec lets %q run (prints %q, decision %s) but %s's tool returned %q", command, want, r.Decision, name, tr.Text)
			}
		case "Stop":
			continued := false
			for _, g := range fires[i+1:] {
				continued = continued || g.Event == f.Event
			}
			if r.Blocked != continued && v.Skip["stop"] == "" {
				add(i, "continuation: hookexec blocked=%v (%q), %s continued=%v", r.Blocked, r.Reason, name, continued)
			}
			if r.Blocked && continued && r.Reason != "" && !strings.Contains(all, r.Reason) {
				add(i, "Stop reason %q never reached the model", r.Reason)
			}
		case "UserPromptSubmit":
			asked := len(run.Model.MainRequests()) > 0
			// continue:false stops before the model as a block does (Codex, Claude Code).
			if (r.Blocked || !r.Continue) == asked {
				add(i, "prompt: hookexec blocked=%v, %s sent it to the model=%v", r.Blocked, name, asked)
			}
		case "PostToolUse", "PostToolUseFailure":
			if r.Blocked && r.Reason != "" && !strings.Contains(all, r.Reason) && v.Skip["reason"] == "" {
				add(i, "feedback %q never reached the model", r.Reason)
			}
		}
		if ctx := r.AdditionalContext; ctx != "" && v.Skip["context"] == "" && !strings.Contains(all, ctx) {
			add(i, "additional context %q never reached the model", ctx)
		}
	}
	return problems
}

// permissionAfter is hookexec's result for the PermissionRequest fire that followed
// PreToolUse fire i (before the next PreToolUse), nil when the agent asked no permission or
// hookexec's hooks there decided nothing.
func permissionAfter(c *Comparison, i int) *engine.Result {
	for j := i + 1; j < len(c.Fires); j++ {
		switch event.Canonical(c.Fires[j].Event) {
		case "PreToolUse":
			return nil
		case "PermissionRequest":
			if r := c.Results[j]; r.Blocked || r.Decision == "allow" {
				return r
			}
			return nil
		}
	}
	return nil
}

// replacedAfter reports whether fire i's tool ran although the model saw other text in its
// result: a later PostToolUse fire of the same call recorded the output (tool_response has
// want) and hookexec's answer to it was feedback (a reason) the agent put in the output's place
// (Codex's PostToolUse block and exit 2 replace the tool's output with the reason).
func replacedAfter(c *Comparison, i int, want, text string) bool {
	var pre struct {
		ID string `json:"tool_use_id"`
	}
	if json.Unmarshal([]byte(c.Fires[i].Payload), &pre) != nil || pre.ID == "" {
		return false
	}
	for j := i + 1; j < len(c.Fires); j++ {
		var post struct {
			ID       string          `json:"tool_use_id"`
			Response json.RawMessage `json:"tool_response"`
		}
		if event.Canonical(c.Fires[j].Event) != "PostToolUse" || json.Unmarshal([]byte(c.Fires[j].Payload), &post) != nil || post.ID != pre.ID {
			continue
		}
		var out string
		if json.Unmarshal(post.Response, &out) != nil {
			out = string(post.Response)
		}
		r := c.Results[j]
		return strings.Contains(out, want) && r.Reason != "" && strings.Contains(text, r.Reason)
	}
	return false
}

// flagValue is the value of a registered command-line flag ("" when there is none).
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}
