package gemini

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/suite"
)

// compare is the runner's comparison plus Gemini CLI's model events, which it does not
// know:
//   - every BeforeModel fire hookexec neither blocks nor stops is one request to the model,
//     and a blocked or stopped one is none;
//   - after a BeforeModel or AfterModel fire hookexec blocks or stops, the run ends: no
//     tool of the withheld response runs, the model is not asked again;
//   - a tool result an AfterTool fire hookexec blocks withholds is replaced, for the model,
//     by hookexec's replacement (withheld);
//   - what hookexec leaves to the agent on those events (hookSpecificOutput.llm_request,
//     llm_response, toolConfig; hookexec answers them through, core/native) does what
//     Gemini CLI's reference says: the request's text, the run's answer, the request's
//     functionCallingConfig.
//
// A vector none of whose own hooks ran under Gemini CLI differs (suite.Vacuous): it would
// agree vacuously.
//
// A vector marked deliberate (hookexec stricter than Gemini CLI) must show its difference
// as a model call Gemini CLI made and hookexec keeps back, as Gemini CLI going on (a tool
// call, a model call) after an AfterModel fire hookexec blocks, or as hookexec blocking a
// tool call Gemini CLI ran (an exit 2 without text), and nothing else may differ; a
// difference that no longer shows is one too (Gemini CLI changed).
func compare(c *suite.Comparison) []string {
	problems, more := withheld(c, suite.Compare(c))
	problems = append(problems, more...)
	problems = append(problems, suite.Vacuous(c)...)
	deliberateShown := false
	if c.V.Deliberate != "" {
		kept := problems[:0]
		for _, p := range problems {
			if strings.HasPrefix(p, "BeforeTool #") && strings.Contains(p, ": hookexec blocks (") {
				// The marked difference: hookexec blocks a call Gemini CLI ran.
				deliberateShown = true
				continue
			}
			kept = append(kept, p)
		}
		problems = kept
	}
	add := func(i int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s #%d: ", c.Fires[i].Event, i)+fmt.Sprintf(format, args...))
	}
	requests := c.Run.Model.MainRequests()
	asked, ended, stopped := 0, -1, false
	var response string
	for i, f := range c.Fires {
		r := c.Results[i]
		halted := r.Blocked || !r.Continue
		if ended >= 0 && (f.Event == "BeforeTool" || f.Event == "BeforeModel") {
			e := c.Results[ended]
			if c.V.Deliberate != "" && c.Fires[ended].Event == "AfterModel" && e.Blocked {
				// The marked difference: Gemini CLI went on with a response hookexec blocks.
				deliberateShown = true
			} else {
				add(i, "fired after %s #%d, which hookexec blocks or stops (%q): the run should have ended", c.Fires[ended].Event, ended, e.Reason+e.StopReason)
			}
		}
		switch f.Event {
		case "BeforeModel":
			if halted {
				ended, stopped = i, true
				if s := field(r.Hooks, "llm_response"); s != nil && r.Blocked {
					response = responseText(s)
				}
				continue
			}
			asked++
			if s := field(r.Hooks, "llm_request"); s != nil {
				var req struct {
					Messages []struct {
						Content string `json:"content"`
					} `json:"messages"`
				}
				_ = json.Unmarshal(s, &req)
				texts := suite.Texts(c.Run.Model)
				for _, m := range req.Messages {
					if !strings.Contains(texts, m.Content) {
						add(i, "the hook's llm_request text %q never reached the model", m.Content)
					}
				}
			}
		case "AfterModel":
			if halted {
				ended = i
				continue
			}
			if s := field(r.Hooks, "llm_response"); s != nil {
				response = responseText(s)
			}
		case "BeforeToolSelection":
			if want := toolSelection(r.Hooks); want != nil && asked > 0 && asked <= len(requests) {
				var body struct {
					ToolConfig struct {
						Config map[string]any `json:"functionCallingConfig"`
					} `json:"toolConfig"`
				}
				_ = json.Unmarshal(requests[asked-1].Body, &body)
				if !reflect.DeepEqual(body.ToolConfig.Config, want) {
					add(i, "the model got functionCallingConfig %v, the hooks asked for %v", body.ToolConfig.Config, want)
				}
			}
		}
	}
	if stopped && len(requests) == asked {
		// The runner's prompt check takes a prompt hookexec does not block to reach the
		// model; a BeforeModel fire hookexec blocks or stops keeps it back, as the count
		// above checks.
		kept := problems[:0]
		for _, p := range problems {
			if !strings.HasPrefix(p, "BeforeAgent #") || !strings.Contains(p, ": prompt: hookexec blocked=false") {
				kept = append(kept, p)
			}
		}
		problems = kept
	}
	if len(requests) != asked {
		if c.V.Deliberate != "" && len(requests) > asked {
			// The marked difference: hookexec keeps back a model call Gemini CLI made.
			deliberateShown = true
		} else {
			problems = append(problems, fmt.Sprintf("model requests: Gemini CLI sent %d, hookexec lets %d BeforeModel fires through", len(requests), asked))
		}
	}
	if c.V.Deliberate != "" && !deliberateShown {
		problems = append(problems, "the deliberate difference no longer shows: "+c.V.Deliberate)
	}
	if response != "" {
		var out struct {
			Response string `json:"response"`
		}
		_ = json.Unmarshal(c.Run.Stdout, &out)
		if !strings.Contains(out.Response, response) {
			problems = append(problems, fmt.Sprintf("the hook's llm_response %q is not the run's answer %q", response, out.Response))
		}
	}
	return problems
}

// withheld checks the tool calls whose result an AfterTool fire hookexec blocks withholds
// (decide.Gemini: the result is replaced by {"error": reason}, as Gemini CLI's
// executeToolWithHooks does): the AfterTool hook saw the tool's real output, so the tool
// ran, and the model must have got exactly hookexec's replacement. It drops the runner's
// "hookexec lets it run but the tool returned something else" for those calls (the runner
// matches a result to its PostToolUse fire by tool_use_id, which Gemini CLI does not send)
// and returns the problems it found instead.
func withheld(c *suite.Comparison, problems []string) (kept, found []string) {
	var calls []string
	for n, turn := range c.V.Script {
		for i, tc := range turn.Tools {
			calls = append(calls, fakeapi.CallID(n, i, tc))
		}
	}
	results := c.Run.Model.ToolResults()
	drop := map[string]bool{}
	k := -1
	for i, f := range c.Fires {
		if f.Event != "BeforeTool" {
			continue
		}
		k++
		j := i + 1
		for j < len(c.Fires) && c.Fires[j].Event != "AfterTool" && c.Fires[j].Event != "BeforeTool" {
			j++
		}
		if j == len(c.Fires) || c.Fires[j].Event != "AfterTool" || k >= len(calls) {
			continue
		}
		replaced := c.Results[j].UpdatedToolOutput
		if len(replaced) == 0 || string(replaced) == "null" {
			continue
		}
		var pre struct {
			Input map[string]any `json:"tool_input"`
		}
		var post struct {
			Response json.RawMessage `json:"tool_response"`
		}
		_ = json.Unmarshal([]byte(f.Payload), &pre)
		_ = json.Unmarshal([]byte(c.Fires[j].Payload), &post)
		cmd, _ := pre.Input["command"].(string)
		if want := suite.ShellOutput(c.Tree.Project, cmd); cmd == "" || !strings.Contains(string(post.Response), strings.ReplaceAll(want, `"`, `\"`)) {
			found = append(found, fmt.Sprintf("AfterTool #%d: the hook did not see the tool's output %q: %s", j, want, post.Response))
			continue
		}
		drop[fmt.Sprintf("BeforeTool #%d: hookexec lets ", i)] = true
		var got, want any
		if tr, ok := results[calls[k]]; !ok || json.Unmarshal([]byte(tr.Text), &got) != nil ||
			json.Unmarshal(replaced, &want) != nil || !reflect.DeepEqual(got, want) {
			found = append(found, fmt.Sprintf("AfterTool #%d: hookexec withholds the result as %s, the model got %q", j, replaced, tr.Text))
		}
	}
	for _, p := range problems {
		if i := strings.Index(p, "hookexec lets "); i < 0 || !drop[p[:i+len("hookexec lets ")]] {
			kept = append(kept, p)
		}
	}
	return kept, found
}

// field is hookSpecificOutput[key] of the last hook that answered one (BeforeModel and
// AfterModel merge by field replacement: the later hook wins).
func field(hooks []engine.HookResult, key string) json.RawMessage {
	var last json.RawMessage
	for _, h := range hooks {
		var out struct {
			Specific map[string]json.RawMessage `json:"hookSpecificOutput"`
		}
		if json.Unmarshal(h.Output, &out) == nil && out.Specific[key] != nil && string(out.Specific[key]) != "null" {
			last = out.Specific[key]
		}
	}
	return last
}

// responseText is the text of a hook's llm_response (candidates[].content.parts are strings).
func responseText(raw json.RawMessage) string {
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []string `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	_ = json.Unmarshal(raw, &resp)
	var b strings.Builder
	for _, c := range resp.Candidates {
		for _, p := range c.Content.Parts {
			b.WriteString(p)
		}
	}
	return b.String()
}

// toolSelection is the functionCallingConfig Gemini CLI's reference gives for the hooks'
// toolConfigs (hookAggregator mergeToolSelectionOutputs): NONE if any says NONE, else ANY
// if any says ANY, else AUTO; the allowed names the sorted union (none for NONE). nil when
// no hook answered a toolConfig.
func toolSelection(hooks []engine.HookResult) map[string]any {
	mode, names, seen := "AUTO", map[string]bool{}, false
	for _, h := range hooks {
		var out struct {
			Specific struct {
				ToolConfig *struct {
					Mode  string   `json:"mode"`
					Names []string `json:"allowedFunctionNames"`
				} `json:"toolConfig"`
			} `json:"hookSpecificOutput"`
		}
		if json.Unmarshal(h.Output, &out) != nil || out.Specific.ToolConfig == nil {
			continue
		}
		seen = true
		switch tc := out.Specific.ToolConfig; {
		case tc.Mode == "NONE":
			mode = "NONE"
		case tc.Mode == "ANY" && mode != "NONE":
			mode = "ANY"
		}
		for _, n := range out.Specific.ToolConfig.Names {
			names[n] = true
		}
	}
	if !seen {
		return nil
	}
	list := []any{}
	if mode != "NONE" {
		var sorted []string
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, n := range sorted {
			list = append(list, n)
		}
	}
	return map[string]any{"mode": mode, "allowedFunctionNames": list}
}
