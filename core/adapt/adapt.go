// Package adapt runs one hook command written for one agent as a hook of another: the
// command gets its own agent's payload (event, tool names, envelope as its dialect spells
// them) and its answer is read in its own agent's words, and the result is answered in the
// running agent's native words (core/native). It is what a converted configuration runs
// (core/convert writes "hookexec adapt --from A --to B 'COMMAND'") where the two agents
// read answers differently, so that a block stays a block.
//
// What the running agent cannot do is never a silent allow: a new tool input it cannot
// apply (Qwen Code ignores one; no agent applies one outside PreToolUse), an "ask" it
// cannot put to the user (Codex fails such a hook open) and a continue:false it cannot say
// (Codex on PreToolUse) become a block with a reason.
//
// It builds a one-hook engine (core/engine) and does not read stdin or write anything.
package adapt

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/hookexec/hookexec/core/convert"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/telemetry"
	"github.com/hookexec/hookexec/core/vocab"
)

// Request is one hook call of agent To for a command written for agent From.
type Request struct {
	From, To string
	Command  string // the command line as From's configuration wrote it
	Payload  []byte // To's hook payload (its stdin)
	// Event is the event as To spells it, for payloads that do not name it (Copilot CLI's
	// camelCase ones); "" reads it from the payload.
	Event   string
	Project string // "" means the payload's cwd
	Home    string
	Env     map[string]string
	LogFile string
	// Stop, when closed, ends the run at once: the command is killed (the agent's own
	// timeout ended the hook that runs adapt) and Run returns ErrStopped.
	Stop <-chan struct{}
}

// ErrStopped is returned when Request.Stop ended the run.
var ErrStopped = errors.New("hookexec: adapt: stopped")

// Sources lists the agents whose commands Run can adapt: those convert writes.
func Sources() []string { return slices.Clone(convert.Targets) }

// Targets lists the agents Run answers for: those hookexec answers natively.
func Targets() []string { return slices.Clone(convert.Adapted) }

// Run runs the command once and returns the native answer for To.
func Run(r Request) (native.Answer, error) {
	if !slices.Contains(Sources(), r.From) {
		return native.Answer{}, fmt.Errorf("hookexec: adapt: cannot run %q hooks (known: %v)", r.From, Sources())
	}
	if !slices.Contains(Targets(), r.To) {
		return native.Answer{}, fmt.Errorf("hookexec: adapt: cannot answer %q (known: %v)", r.To, Targets())
	}
	if r.Command == "" {
		return native.Answer{}, errors.New("hookexec: adapt: no command")
	}
	c, err := read(r.To, r.Event, r.Payload)
	if err != nil {
		return native.Answer{}, err
	}
	ev := event.Lookup(c.event)
	cfg, err := config(r.From, ev.Name, c.tool, r.Command)
	if err != nil {
		return native.Answer{}, err
	}
	project := r.Project
	if project == "" {
		project = c.cwd
	}
	// One sync hook and nothing after it: Close need not wait before killing. Its telemetry
	// (HOOKEXEC_TELEMETRY in the agent's environment) still gets the flush a one-shot
	// hookexec gets, at most telemetry.FlushBound.
	eng, err := engine.Open(engine.Options{Profile: "cli-agent", ProjectDir: project, Home: r.Home,
		Sources: []string{}, Config: cfg, ConfigDialect: r.From, Trust: "all", Env: r.Env, LogFile: r.LogFile,
		CloseTimeoutMs: 1, SinkCloseTimeout: telemetry.FlushBound})
	if err != nil {
		return native.Answer{}, err
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	defer func() {
		close(done)
		<-stopped
		_ = eng.Close() // ErrClosed after a stop
	}()
	go func() {
		defer close(stopped)
		select {
		case <-r.Stop:
			_ = eng.Close() // kills the running command; Fire returns
		case <-done:
		}
	}()
	rep, err := eng.Config()
	if err != nil {
		return native.Answer{}, err
	}
	if len(rep.Hooks) != 1 || rep.Hooks[0].Disabled != "" {
		return native.Answer{}, fmt.Errorf("hookexec: adapt: the %s hook does not run: %v", r.From, rep.Warnings)
	}
	res, err := eng.Fire(ev.Name, c.payload)
	select {
	case <-r.Stop:
		return native.Answer{}, ErrStopped
	default:
	}
	if err != nil {
		return native.Answer{}, err
	}
	fallback(r.To, c.spelled, c.tool, res)
	return native.AnswerAs(r.To, c.spelled, res)
}

// config is the one-hook configuration of the command in from's dialect.
func config(from, ev, tool, command string) ([]byte, error) {
	group := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command}}}
	if tool != "" && event.Lookup(ev).TakesMatcher() {
		group["matcher"] = tool
	}
	cfg, err := json.Marshal(map[string]any{"hooks": map[string]any{ev: []any{group}}})
	if err != nil || from == vocab.Claude {
		return cfg, err
	}
	res, err := convert.With(convert.Options{}, vocab.Claude, from, "adapt.json", cfg)
	if err != nil {
		return nil, err
	}
	if res.Dropped() {
		return nil, fmt.Errorf("hookexec: adapt: %s has no hook for %s%s", from, ev, map[bool]string{true: " on " + tool}[tool != ""])
	}
	return res.Output, nil
}

// fallback turns what the running agent cannot do into a block: a new input it cannot
// apply, an "ask" it cannot put to the user.
func fallback(to, spelled, tool string, res *engine.Result) {
	if res.Blocked {
		return
	}
	display := native.Display(to)
	rewrite := len(res.UpdatedInput) > 0 && string(res.UpdatedInput) != "null"
	switch {
	case rewrite && !rewrites(to, spelled, res.Event, tool):
		block(res, "the hook rewrites the tool input, which "+display+" cannot apply here: blocked instead")
	case res.Decision == "ask" && res.Event == "PreToolUse" && !asks(to, spelled):
		block(res, "the hook asks for confirmation, which "+display+" cannot ask for here: blocked instead"+orEmpty(res.Reason))
	case !res.Continue && !stops(to, res.Event):
		block(res, "the hook stops the agent (continue: false), which "+display+" cannot do here: blocked instead"+orEmpty(res.StopReason))
	}
}

// stops reports whether the agent's answer on the event can say continue:false: Codex's
// parser rejects it on PreToolUse and PermissionRequest (core/native drops it there, and a
// bare continue:false would have failed the hook open); every other agent has it on every
// event, Windsurf as exit 2 on pre_ events, Crush as halt; Antigravity nowhere.
func stops(to, ev string) bool {
	if to == vocab.Antigravity {
		return ev == "Stop" // its answers have no continue: false (core/native)
	}
	return to != vocab.Codex || ev != "PreToolUse" && ev != "PermissionRequest"
}

// rewrites reports whether the agent applies a new tool input on the event: Claude Code,
// Codex and Gemini CLI on PreToolUse, Qwen Code nowhere, Cursor on preToolUse
// (updated_input; its beforeShellExecution, beforeMCPExecution and beforeReadFile take a
// permission only), Copilot CLI on preToolUse (modifiedArgs), Windsurf nowhere (it reads
// the exit status only), Crush on PreToolUse (updated_input), Antigravity on PreToolUse of
// a shell command (overwrite: the only tool whose arguments' names hookexec knows).
func rewrites(to, spelled, ev, tool string) bool {
	switch to {
	case vocab.Antigravity:
		return ev == "PreToolUse" && tool == vocab.Bash
	case vocab.Qwen, vocab.Windsurf:
		return false
	case vocab.Cursor:
		return spelled == "preToolUse"
	case vocab.Copilot:
		return spelled == "preToolUse" || spelled == "PreToolUse"
	}
	return ev == "PreToolUse"
}

// asks reports whether the agent can ask the user about a tool call on the event: Codex
// fails such a hook open, and Crush has no ask (silence would let a call run wherever its
// permission prompt is off); Cursor's permission "ask" exists on beforeShellExecution,
// beforeMCPExecution and preToolUse (not beforeReadFile); Windsurf has no answer but the
// exit status.
func asks(to, spelled string) bool {
	switch to {
	case vocab.Codex, vocab.Windsurf, vocab.Crush, vocab.Auggie: // auggie 0.36.0 runs a call its hook asks about
		return false
	case vocab.Cursor:
		return spelled == "beforeShellExecution" || spelled == "beforeMCPExecution" || spelled == "preToolUse"
	}
	return true
}

func block(res *engine.Result, reason string) {
	res.Blocked, res.Decision, res.UpdatedInput = true, "deny", nil
	res.Reason = "hookexec adapt: " + reason
}

func orEmpty(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
