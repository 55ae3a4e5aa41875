package qwen

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/tests/live/suite"
)

// askRefusal is the reason Qwen Code gives the model for a PreToolUse "ask" it cannot put
// to anyone, when the hook gave none (firePreToolUseHook).
const askRefusal = "User confirmation required"

// compare is the runner's comparison, knowing two things of Qwen Code's:
//
//   - the suite runs it headless (a prompt argument), where a PreToolUse "ask" falls back to
//     a refusal (its hooks reference; coreToolScheduler canPromptForAskBounce): hookexec
//     answers "ask" and leaves the asking to the host, so the host this suite checks
//     refuses the call and tells the model the hook's reason;
//   - a vector marked deliberate (hookexec stricter than Qwen Code: it obeys an exit 2
//     without stderr, or a Stop hook's continue:false, which Qwen Code 0.24.4 does not) must
//     show its difference as hookexec blocking a call Qwen Code ran, or hookexec stopping
//     where Qwen Code went on with the stop reason as its next prompt; nothing else may
//     differ, and a difference that no longer shows is one too (Qwen Code changed).
func compare(c *suite.Comparison) []string {
	headless := *c
	headless.Results = make([]*engine.Result, len(c.Results))
	for i, r := range c.Results {
		headless.Results[i] = r
		if event.Canonical(c.Fires[i].Event) == "PreToolUse" && !r.Blocked && r.Decision == "ask" {
			refused := *r
			refused.Blocked, refused.Decision = true, "deny"
			if refused.Reason == "" {
				refused.Reason = askRefusal
			}
			headless.Results[i] = &refused
		}
	}
	problems := append(suite.Compare(&headless), todos(c)...)
	// A vector none of whose hooks ran agrees vacuously (a tool Qwen Code has off).
	problems = append(problems, suite.Vacuous(c)...)
	if c.V.Deliberate == "" {
		return problems
	}
	var rest []string
	shown := false
	all := suite.Texts(c.Run.Model)
	for _, p := range problems {
		switch {
		case strings.Contains(p, ": hookexec blocks ("):
			shown = true
		case strings.Contains(p, ": continuation: hookexec blocked=false"):
			// Qwen Code went on where hookexec stops: with the stop reason as the prompt.
			i := fireIndex(p)
			if i < 0 || i >= len(c.Results) || c.Results[i].Continue || !strings.Contains(all, c.Results[i].StopReason) {
				rest = append(rest, p+" (and the stop reason never reached the model)")
				continue
			}
			shown = true
		default:
			rest = append(rest, p)
		}
	}
	if !shown {
		rest = append(rest, "the deliberate difference no longer shows: "+c.V.Deliberate)
	}
	return rest
}

// todoRefused is what todo_write tells the model when a TodoCreated or TodoCompleted hook
// refused the list (0.24.4 todoWrite createBlockedTodoResult).
const todoRefused = "Todo list was not modified because a"

// todos compares TodoCreated and TodoCompleted, which only Qwen Code fires: todo_write asks
// them in its validation phase, and refuses the whole list (telling the model the reason)
// when they block; what they answer in the postWrite phase, after the list is written,
// changes nothing.
func todos(c *suite.Comparison) []string {
	var problems []string
	all := suite.Texts(c.Run.Model)
	for i, f := range c.Fires {
		if f.Event != "TodoCreated" && f.Event != "TodoCompleted" {
			continue
		}
		var p struct {
			Phase string `json:"phase"`
		}
		_ = json.Unmarshal([]byte(f.Payload), &p)
		if p.Phase != "validation" {
			continue
		}
		switch r := c.Results[i]; {
		case r.Blocked && !strings.Contains(all, todoRefused):
			problems = append(problems, fmt.Sprintf("%s #%d: hookexec blocks (%q) but Qwen Code wrote the todo list", f.Event, i, r.Reason))
		case r.Blocked && r.Reason != "" && !strings.Contains(all, r.Reason):
			problems = append(problems, fmt.Sprintf("%s #%d: reason: hookexec %q never reached the model", f.Event, i, r.Reason))
		case !r.Blocked && strings.Contains(all, todoRefused):
			problems = append(problems, fmt.Sprintf("%s #%d: hookexec lets the list through but Qwen Code refused it", f.Event, i))
		}
	}
	return problems
}

// fireIndex is the fire a problem of suite.Compare names ("Stop #3: ..."), -1 if none.
func fireIndex(problem string) int {
	var ev string
	var i int
	if _, err := fmt.Sscanf(strings.Replace(problem, " #", " ", 1), "%s %d:", &ev, &i); err != nil {
		return -1
	}
	return i
}
