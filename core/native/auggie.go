package native

import (
	"github.com/hookexec/hookexec/core/engine"
)

// auggieAnswer answers as auggie 0.36.0 reads one hook's answer (core/dialect/auggie.go,
// tests/live/auggie): Claude Code's JSON, of which auggie acts on PreToolUse's and
// PostToolUse's only. Two differences from Claude Code's reading shape the answer:
//   - auggie tells the model an exit-2 block as "[hook:PreToolUse]: <stderr>" and a JSON
//     deny in other words, so a block one of the hooks gave by exit 2 is answered by exit 2
//     with the reason on stderr, a JSON deny (or continue false) as JSON;
//   - a PostToolUse block's reason reaches the model only as exit 2's stderr (auggie drops
//     a decision "block" and its reason), so a PostToolUse block is exit 2.
//
// The answers of SessionStart, PromptSubmit, Stop, SessionEnd and Notification change
// nothing in auggie: they are Claude Code's, which auggie reads and drops.
func auggieAnswer(r *engine.Result) Answer {
	switch r.Event {
	case "PreToolUse":
		if r.Blocked && byExit2(r) {
			return Answer{ExitCode: 2, Stderr: []byte(orText(r.Reason, "blocked by hook") + "\n")}
		}
	case "PostToolUse":
		if r.Blocked || r.Reason != "" {
			c := *r
			c.Blocked, c.Reason, c.Decision = false, "", "none"
			a := claudeAnswer(&c)
			return Answer{ExitCode: 2, Stdout: a.Stdout, Stderr: []byte(orText(r.Reason, "blocked by hook") + "\n")}
		}
	}
	return claudeAnswer(r)
}

// byExit2 says whether a hook of the fire blocked by exiting 2.
func byExit2(r *engine.Result) bool {
	for _, h := range r.Hooks {
		if h.ExitCode == 2 {
			return true
		}
	}
	return false
}
