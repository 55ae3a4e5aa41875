package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/payload"
)

// Hooks the host evaluates: Claude Code's prompt and agent hooks ask a model, mcp_tool
// hooks call a tool of an MCP server the host is connected to. hookexec cannot do either,
// so it hands such a hook to the one Evaluator the host registered and reads the answer
// exactly as it reads a command's exit code, stdout and stderr.

// Outcome is how a host-evaluated hook ended, in a command's terms: exit 0 with stdout that
// may be JSON output, exit 2 with the reason on stderr to block, any other exit a
// non-blocking error.
type Outcome struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
}

// Verdict is the outcome of a yes/no evaluation, the {"ok", "reason"} answer of prompt and
// agent hooks: ok is exit 0, not ok is exit 2 with reason on stderr, which blocks where the
// event can block. The answer itself is kept as stdout for the result.
func Verdict(ok bool, reason string) Outcome {
	out, _ := json.Marshal(map[string]any{"ok": ok, "reason": reason})
	if ok {
		return Outcome{ExitCode: 0, Stdout: out}
	}
	if reason == "" {
		reason = "the evaluator said no"
	}
	return Outcome{ExitCode: 2, Stdout: out, Stderr: []byte(reason)}
}

// Evaluator runs a hook of type "prompt", "agent" or "mcp_tool". hook is the hook's
// definition as JSON: the handler object as written (prompt, model, server, tool, input,
// ...), with "prompt" rendered ($ARGUMENTS replaced by the payload for Claude Code's hooks)
// and "input" filled from the payload, plus "id", "event" and "timeout_ms". payload is what
// the hook would get on stdin. An error is a non-blocking hook error carrying its text. It
// must honour ctx, which ends at the hook's timeout; a late answer is ignored.
type Evaluator func(ctx context.Context, hookType string, hook, payload []byte) (Outcome, error)

// PromptEvaluator decides a prompt hook: it receives the hook's prompt and the fire's payload
// and returns whether the action may proceed and why. It must honour ctx (the hook's timeout).
// It is the first form of Evaluator, for prompt hooks only.
type PromptEvaluator func(ctx context.Context, prompt string, payload []byte) (ok bool, reason string, err error)

// SetEvaluator registers the evaluator of prompt, agent and mcp_tool hooks (nil removes it).
// Without one, such a hook is a non-blocking error naming its type.
func (e *Engine) SetEvaluator(fn Evaluator) error {
	if !e.gate.enter() {
		return ErrClosed
	}
	defer e.gate.leave()
	e.mu.Lock()
	e.eval = fn
	e.mu.Unlock()
	return nil
}

// SetPromptEvaluator registers fn as the evaluator of prompt hooks only (nil removes it);
// agent and mcp_tool hooks then fail saying that it answers prompt hooks only.
func (e *Engine) SetPromptEvaluator(fn PromptEvaluator) error {
	if fn == nil {
		return e.SetEvaluator(nil)
	}
	return e.SetEvaluator(func(ctx context.Context, hookType string, hook, payload []byte) (Outcome, error) {
		if hookType != "prompt" {
			return Outcome{}, fmt.Errorf("the host's evaluator answers prompt hooks only, not %s", hookType)
		}
		var def struct {
			Prompt string `json:"prompt"`
		}
		_ = json.Unmarshal(hook, &def) // built by definition(): always valid
		ok, reason, err := fn(ctx, def.Prompt, payload)
		if err != nil {
			return Outcome{}, err
		}
		return Verdict(ok, reason), nil
	})
}

// evaluated reports whether hooks of the type are handed to the host's evaluator.
func evaluated(hookType string) bool {
	return hookType == "prompt" || hookType == "agent" || hookType == "mcp_tool"
}

// definition is the hook as the evaluator sees it, rendered while the payload is live.
// failure is why the hook fails without being evaluated ("" when it does not): a Codex
// mcp_tool hook's input naming a payload field the fire lacks.
func (f *fire) definition(h *hook, prompt string, stdin []byte) (out []byte, failure string) {
	def := map[string]any{}
	if len(h.cfg.Definition) > 0 {
		_ = json.Unmarshal(h.cfg.Definition, &def) // compact JSON from the parser
	}
	def["type"] = h.cfg.Type
	def["id"] = h.cfg.ID
	def["event"] = f.ev.Name
	def["timeout_ms"] = h.cfg.Timeout.Milliseconds()
	if h.cfg.Type != "mcp_tool" {
		if h.cfg.Dialect == dialect.Claude {
			prompt = claudeArguments(prompt, stdin)
		}
		def["prompt"] = prompt
	}
	if len(h.cfg.Input) > 0 {
		var in any
		if json.Unmarshal(h.cfg.Input, &in) == nil {
			fill := inputFill{f: f, codex: h.cfg.Dialect == dialect.Codex}
			def["input"] = fill.value(in)
			if len(fill.missing) > 0 {
				failure = "hook input placeholder ${" + fill.missing[0] + "} was not found"
			}
		}
	}
	out, _ = marshal(def)
	return out, failure
}

// claudeArguments replaces Claude Code's $ARGUMENTS with the hook input JSON; a backslash
// keeps a dollar literal ("\$1.00" is "$1.00").
func claudeArguments(prompt string, stdin []byte) string {
	if !strings.Contains(prompt, "$") {
		return prompt
	}
	var b strings.Builder
	for i := 0; i < len(prompt); i++ {
		switch {
		case prompt[i] == '\\' && i+1 < len(prompt) && prompt[i+1] == '$':
			b.WriteByte('$')
			i++
		case strings.HasPrefix(prompt[i:], "$ARGUMENTS"):
			b.Write(stdin)
			i += len("$ARGUMENTS") - 1
		default:
			b.WriteByte(prompt[i])
		}
	}
	return b.String()
}

// inputFill replaces ${path} in the string values of an mcp_tool hook's input with the
// payload's values (Claude Code: "${tool_input.file_path}"; a path the payload lacks is "").
// Codex (codex-rs/hooks mcp_runner, seen live in 0.169.0) differs twice: a value that is
// one whole placeholder keeps the field's JSON type ("${tool_input}" is an object), and a
// path the payload lacks fails the hook, before the server is called (missing).
type inputFill struct {
	f       *fire
	codex   bool
	missing []string
}

func (in *inputFill) value(v any) any {
	switch x := v.(type) {
	case string:
		if in.codex && strings.HasPrefix(x, "${") && strings.IndexByte(x, '}') == len(x)-1 {
			if p, err := payload.Compile(x[2 : len(x)-1]); err == nil {
				if val := in.f.doc.Get(p); val != nil {
					var typed any
					if json.Unmarshal(val.MarshalTo(nil), &typed) == nil {
						return typed
					}
				}
			}
		}
		var b strings.Builder
		for {
			i := strings.Index(x, "${")
			if i < 0 {
				break
			}
			end := strings.IndexByte(x[i:], '}')
			if end < 0 {
				break
			}
			b.WriteString(x[:i])
			if p, err := payload.Compile(x[i+2 : i+end]); err == nil {
				s := in.f.render(p)
				if in.codex && s == "" && in.f.doc.Get(p) == nil {
					in.missing = append(in.missing, x[i+2:i+end])
				}
				b.WriteString(s)
			} else {
				b.WriteString(x[i : i+end+1])
			}
			x = x[i+end+1:]
		}
		b.WriteString(x)
		return b.String()
	case map[string]any:
		for k, e := range x {
			x[k] = in.value(e)
		}
	case []any:
		for i, e := range x {
			x[i] = in.value(e)
		}
	}
	return v
}

// evaluate hands the hook to the host's evaluator under the hook's timeout and reads the
// outcome like a command's.
func (j *job) evaluate(parent context.Context) (HookResult, decide.Verdict) {
	hr := j.h.base()
	hr.ExitCode = -1
	start := time.Now()
	typ := j.h.cfg.Type
	failure := ""
	var out Outcome
	if j.inputFailure != "" {
		failure = j.inputFailure
	} else if j.evaluator == nil {
		failure = fmt.Sprintf("%s hook needs the host's evaluator, and no %s evaluator is registered", typ, typ)
	} else {
		ctx, cancel := context.WithTimeout(parent, j.h.cfg.Timeout)
		defer cancel()
		type answer struct {
			out Outcome
			err error
		}
		ch := make(chan answer, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					ch <- answer{err: fmt.Errorf("evaluator panicked: %v", p)}
				}
			}()
			o, err := j.evaluator(ctx, typ, j.definition, j.payload)
			ch <- answer{o, err}
		}()
		select {
		case a := <-ch:
			out = a.out
			if a.err != nil {
				failure = typ + " evaluator: " + a.err.Error()
			}
		case <-ctx.Done():
			if parent.Err() != nil {
				failure, hr.TimedOut = ended(parent)
			} else {
				hr.TimedOut = true
				failure = fmt.Sprintf("%s evaluator did not answer within %s", typ, j.h.cfg.Timeout)
			}
		}
	}
	hr.DurationMs = ms(time.Since(start))
	var dropped string
	if failure == "" && typ == "mcp_tool" && j.h.cfg.Dialect == dialect.Claude {
		failure, dropped = mcpAnswer(j.ev.Name, j.h.cfg.OnFailureBlock, &out)
	}
	in := decide.Input{Event: j.ev, Failure: failure, FailClosed: j.h.cfg.FailClosed, Blocking: j.h.cfg.Blocking,
		NestedContext: j.h.cfg.Dialect == dialect.Claude, ClaudeSchema: j.h.cfg.Dialect == dialect.Claude}
	if failure == "" {
		whole, over := capped(out.Stdout, MaxDecisionBytes)
		stdout, unread := stdoutOf(&hr, whole, over, j.spec.OutputCap)
		out.Stderr, hr.StderrTruncated = capped(out.Stderr, j.spec.OutputCap)
		hr.ExitCode, hr.Stderr = out.ExitCode, string(out.Stderr)
		in.ExitCode, in.Stdout, in.Stderr, in.Failure = out.ExitCode, stdout, out.Stderr, unread
	}
	v := decide.Read(in)
	if dropped != "" {
		v.Warnings = append(v.Warnings, dropped)
	}
	if in.Failure == "" && j.h.cfg.Dialect == dialect.Claude && (typ == "prompt" || typ == "agent") {
		// Claude Code 2.1.330 lets the turn go on after an agent hook's "no", as
		// continueOnBlock does (live: agent_hook_block).
		modelAnswer(j.ev.Name, j.h.cfg.ContinueOnBlock || typ == "agent", out, &v)
	}
	j.finish(&hr, &v)
	return hr, v
}

// modelAnswer applies what Claude Code does with a prompt or agent hook's answer on each
// event (reference, "Response schema"), beyond what a command's exit 2 would do: "no"
// ends the turn on PreToolUse, PostToolUse and TeammateIdle unless continueOnBlock, and on
// PostToolBatch, UserPromptSubmit and UserPromptExpansion always; it has no effect on
// PermissionRequest; on PermissionDenied the answer is discarded. On Stop, "no" with
// "impossible": true (the condition can never hold) does not block (2.1.330, live:
// prompt_hook_stop_impossible).
func modelAnswer(event string, continueOnBlock bool, out Outcome, v *decide.Verdict) {
	var ans struct {
		OK         *bool  `json:"ok"`
		Reason     string `json:"reason"`
		Impossible bool   `json:"impossible"`
	}
	if json.Unmarshal(out.Stdout, &ans) != nil || ans.OK == nil {
		return // an answer in a command's terms: read as one
	}
	switch {
	case !*ans.OK && ans.Impossible && event == "Stop":
		*v = decide.Verdict{Continue: true, Output: v.Output}
		v.Warnings = append(v.Warnings, "the condition was judged impossible; the Stop is not blocked: "+ans.Reason)
	case event == "PermissionDenied" || event == "PermissionRequest" && !*ans.OK:
		*v = decide.Verdict{Continue: true}
	case *ans.OK:
	case event == "PostToolBatch" || event == "UserPromptSubmit" || event == "UserPromptExpansion",
		!continueOnBlock && (event == "PreToolUse" || event == "PostToolUse" || event == "TeammateIdle"):
		v.Continue, v.StopReason = false, ans.Reason
	}
}

// mcpAnswer reads an mcp_tool hook's answer as Claude Code 2.1.330 does: only JSON output
// (or nothing) is a hook's answer, except on PreCompact and WorktreeCreate, where plain text
// is. Other text is dropped (a warning says so), or, with onFailure "block", is a failure.
func mcpAnswer(event string, block bool, out *Outcome) (failure, dropped string) {
	text := bytes.TrimSpace(out.Stdout)
	if len(text) == 0 || text[0] == '{' || event == "PreCompact" || event == "WorktreeCreate" {
		return "", ""
	}
	if block {
		return "the MCP tool's answer is not a hook's JSON output, {} or empty", ""
	}
	out.Stdout = nil
	return "", "the MCP tool's answer is plain text, which is not a hook's answer on " + event + "; ignored"
}

// capped keeps at most n bytes of b, as the runner keeps a child's output.
func capped(b []byte, n int) ([]byte, bool) {
	if n > 0 && len(b) > n {
		return b[:n], true
	}
	return b, false
}
