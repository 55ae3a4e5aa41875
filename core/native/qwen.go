package native

import (
	"time"

	"github.com/hookexec/hookexec/core/engine"
)

// Qwen Code reads one hook's answer as Claude Code does (exit 0 with JSON on stdout, exit 2
// with the reason on stderr), with its own names for two events.

// qwenNames are Qwen Code's names of the events hookexec names as Claude Code does.
var qwenNames = map[string]string{"TaskCreated": "TodoCreated", "TaskCompleted": "TodoCompleted"}

func qwenAnswer(r *engine.Result) Answer {
	if n, ok := qwenNames[r.Event]; ok {
		c := *r
		c.Event = n
		r = &c
	}
	return claudeAnswer(r)
}

// qwenTimeout reads a timeout as Qwen Code does (hook-timeout.ts): seconds, but 1000 or
// more is the milliseconds older versions took.
func qwenTimeout(n float64) time.Duration {
	if n >= 1000 {
		return time.Duration(n * float64(time.Millisecond))
	}
	return time.Duration(n * float64(time.Second))
}
