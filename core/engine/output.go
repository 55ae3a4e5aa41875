package engine

import (
	"fmt"
	"strings"

	"github.com/hookexec/hookexec/core/event"
)

// pipedOutput is what the pipe_output hooks of a fire hand to the agent, in config order:
// each hook's raw stdout then stderr, and why it failed if it did (iteratr shows the agent
// a failing command's output so that it can fix the cause).
func pipedOutput(hs []*hook, results []HookResult) []string {
	var out []string
	for i, h := range hs {
		r := &results[i]
		if !h.cfg.PipeOutput || h.cfg.Async {
			continue
		}
		text := r.Stdout + r.Stderr
		failure := ""
		switch {
		case r.TimedOut || r.Signal != "":
			failure = r.Error
		case r.ExitCode > 0:
			failure = fmt.Sprintf("exit status %d", r.ExitCode)
		}
		if failure != "" {
			if text != "" && !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			text += failure
		}
		if text != "" {
			out = append(out, text)
		}
	}
	return out
}

// agentOutput files a fire's piped output the way iteratr does (seed 004) and returns what
// the fire hands the agent now. A pre_iteration fire starts an iteration: it takes the
// pending buffer (FIFO), then adds its own output. on_error's output is the recovery prompt,
// sent at once; the buffer waits. Any other event's output joins the buffer, which only the
// next pre_iteration or Drain (final delivery) empties.
func (e *Engine) agentOutput(ev event.Info, piped []string) []string {
	switch {
	case ev.Name == "PreIteration":
		e.mu.Lock()
		out := append(e.pending, piped...)
		e.pending = nil
		e.mu.Unlock()
		return out
	case ev.Name == "SessionError":
		return piped
	case len(piped) > 0:
		e.mu.Lock()
		e.pending = append(e.pending, piped...)
		e.mu.Unlock()
	}
	return nil
}
