package native

import (
	"maps"
	"time"

	"github.com/hookexec/hookexec/core/engine"
)

// Qwen Code reads one hook's answer as Claude Code does (exit 0 with JSON on stdout, exit 2
// with the reason on stderr), with its own names for two events, except that on Stop and
// SubagentStop it reads continue:false as a block: the agent goes on, with the stop reason
// as its next prompt (0.24.4: `isBlockingDecision() || shouldStopExecution()`, checked live
// by tests/live/qwen stop_continue_false_goes_on). Its own default there is to stop, so a fire
// that says stop is answered with no continue at all (qwenAnswer).

// qwenDecisionBlock are the events on which Qwen Code reads a block only as a top-level
// {"decision": "block"}: Claude Code's, and TodoCreated and TodoCompleted, where todo_write
// refuses the list on decision "block" alone (0.24.4), so an exit 2 (read as decision
// "deny") would let the item through (live: todo_completed_exit2_deliberate).
var qwenDecisionBlock = func() map[string]bool {
	m := maps.Clone(decisionBlock)
	m["TodoCreated"], m["TodoCompleted"] = true, true
	return m
}()

// qwenNames are Qwen Code's names of the events hookexec names as Claude Code does.
var qwenNames = map[string]string{"TaskCreated": "TodoCreated", "TaskCompleted": "TodoCompleted"}

func qwenAnswer(r *engine.Result) Answer {
	if n, ok := qwenNames[r.Event]; ok {
		c := *r
		c.Event = n
		r = &c
	}
	if !r.Continue && (r.Event == "Stop" || r.Event == "SubagentStop") {
		// continue:false outranks a block (the agent must stop); Qwen Code would go on for
		// either, so neither is said, and the stop reason reaches the user as the system
		// message, as Claude Code shows it.
		c := *r
		c.Continue, c.StopReason, c.Blocked, c.Decision, c.Reason = true, "", false, "none", ""
		c.SystemMessage = joinLines(r.SystemMessage, r.StopReason)
		r = &c
	}
	return claudeShaped(r, qwenDecisionBlock)
}

// joinLines joins the non-empty texts, one a line.
func joinLines(texts ...string) string {
	out := ""
	for _, s := range texts {
		switch {
		case s == "":
		case out == "":
			out = s
		default:
			out += "\n" + s
		}
	}
	return out
}

// qwenTimeout reads a timeout as Qwen Code does (hook-timeout.ts): seconds, but 1000 or
// more is the milliseconds older versions took.
func qwenTimeout(n float64) time.Duration {
	if n >= 1000 {
		return time.Duration(n * float64(time.Millisecond))
	}
	return time.Duration(n * float64(time.Second))
}
