package engine

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/policy"
	"github.com/hookexec/hookexec/core/vocab"
)

// A policy hook ({"type": "policy", "cel": ...} or {"type": "policy", "rego": ...}) runs no
// process: its compiled policy (config.Hook.Guard) is evaluated in-process under the hook's
// timeout, and its answer is read exactly like a command hook's JSON stdout with exit 0 in
// the dialect of the file that declares it (readCommand). An error, a timeout or a policy
// that did not compile is the hook's failure, which blocks only as its failure policy says
// (fail_closed, onFailure "block", blocking).
//
// A policy may decide in hookexec's own words rather than its dialect's: a CEL expression's
// true (policy.Result.Decision) and a Rego query's bare true apply the hook's "decision"
// (default "deny") with its "reason", false is no answer (decisionAnswer). "defer" (PreToolUse only) hands the call to the host's own
// permission flow.

// policyPayload is what policies see of the fire: the payload in Claude Code's envelope
// (session_id, cwd, hook_event_name with the canonical event, tool_name as the canonical
// vocabulary names the tool), built once per fire.
func (f *fire) policyPayload() []byte {
	if f.policyIn != nil {
		return f.policyIn
	}
	frame := f.frame
	frame.Event = f.ev.Name
	if t := f.doc.String("tool_name"); t != "" {
		if c := vocab.Tool(t); c != "" && c != t {
			frame.ToolName = c
		}
	}
	f.policyIn = bytes.TrimSuffix(f.doc.Stdin(payload.Claude, frame), []byte("\n"))
	return f.policyIn
}

// policyFacts are the fire's facts, shared by its policy hooks: each computed lazily, at
// most once per fire, and only when a policy asks (package policy).
func (f *fire) policyFacts() *policy.Facts {
	if f.facts == nil {
		command := ""
		if v := f.doc.Get(commandPath); v != nil && v.Type() == fastjson.TypeString {
			command = string(v.GetStringBytes())
		}
		f.facts = policy.NewFacts(f.e.opts.ProjectDir, f.doc.String("cwd"), command)
	}
	return f.facts
}

var commandPath = mustPath("tool_input.command")

// preparePolicy renders what a policy hook needs while the payload is live.
func (f *fire) preparePolicy(j *job) {
	j.policy = &policy.Input{Payload: f.policyPayload(), Event: f.ev.Name, Matcher: j.h.cfg.Matcher, Facts: f.policyFacts()}
}

// evalPolicy evaluates a policy hook and reads its answer.
func (j *job) evalPolicy(parent context.Context) (HookResult, decide.Verdict) {
	cfg := j.h.cfg
	hr := j.h.base()
	hr.ExitCode = -1
	start := time.Now()
	var res policy.Result
	failure := ""
	switch {
	case cfg.PolicyError != "":
		failure = cfg.PolicyError
	case cfg.Guard == nil:
		failure = "policy not compiled" // config compiles every enabled policy hook
	default:
		var timedOut bool
		res, failure, timedOut = evalGuard(parent, cfg.Guard, j.policy, cfg.Timeout)
		hr.TimedOut = timedOut
	}
	hr.DurationMs = ms(time.Since(start))
	if failure != "" {
		v := readCommand(cfg, j.ev, j.spelling(), -1, nil, nil, failure)
		j.finish(&hr, &v)
		return hr, v
	}
	hr.ExitCode = 0
	var v decide.Verdict
	decision, reason, decided := res.Decision, res.Reason, res.Decision != ""
	if b, ok := policyBool(res.Answer); ok && !decided {
		// A Rego query's bare true or false: the hook's decision and reason, or nothing.
		decision, reason, decided = specDecision(cfg.Policy, b)
	}
	if decided {
		// hookexec's own words: read as Claude Code's JSON, whatever the dialect.
		answer := decisionAnswer(decision, reason, j.ev.Name)
		hr.Stdout = string(answer)
		v = decide.Read(decide.Input{Event: j.ev, Stdout: answer, DecisionObjects: true, ContinueAfterTool: cfg.Dialect.ContinueAfterTool})
	} else {
		stdout, unread := stdoutOf(&hr, res.Answer, len(res.Answer) > MaxDecisionBytes, j.spec.OutputCap)
		if unread != "" {
			v = readCommand(cfg, j.ev, j.spelling(), -1, nil, nil, unread)
		} else {
			v = readCommand(cfg, j.ev, j.spelling(), 0, stdout, nil, "")
		}
	}
	j.finish(&hr, &v)
	return hr, v
}

// evalGuard runs p.Eval under the hook's timeout. A policy that ignores ctx is left to
// finish on its own and its late answer is dropped; a panic is the hook's failure.
func evalGuard(parent context.Context, p policy.Policy, in *policy.Input, timeout time.Duration) (res policy.Result, failure string, timedOut bool) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	type result struct {
		out policy.Result
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- result{err: fmt.Errorf("panicked: %v", r)}
			}
		}()
		out, err := policy.Evaluate(ctx, p, in)
		ch <- result{out, err}
	}()
	select {
	case r := <-ch:
		switch {
		case r.err != nil && parent.Err() != nil:
			failure, timedOut = ended(parent)
			return res, failure, timedOut
		case r.err != nil && ctx.Err() != nil:
			return res, fmt.Sprintf("policy timed out after %s", timeout), true
		case r.err != nil:
			return res, "policy: " + strings.TrimPrefix(r.err.Error(), "hookexec: policy: "), false
		}
		return r.out, "", false
	case <-ctx.Done():
		if parent.Err() != nil {
			failure, timedOut = ended(parent)
			return res, failure, timedOut
		}
		return res, fmt.Sprintf("policy timed out after %s", timeout), true
	}
}

// policyBool reports whether a policy's answer is a bare JSON true or false.
func policyBool(answer []byte) (value, ok bool) {
	switch string(bytes.TrimSpace(answer)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// specDecision is a bare true or false as the hook's decision ("deny" when unset) and
// reason; false decides nothing.
func specDecision(spec *policy.Spec, b bool) (decision, reason string, decided bool) {
	if !b {
		return "", "", false
	}
	decision = "deny"
	if spec != nil {
		if spec.Decision != "" {
			decision = spec.Decision
		}
		reason = spec.Reason
	}
	if reason == "" && (decision == "deny" || decision == "block") {
		reason = "denied by policy"
	}
	return decision, reason, true
}

// decisionAnswer is a policy's own decision as Claude Code's JSON answer on event, spelt
// the way the event is decided (PermissionRequest's decision object, PreToolUse's
// permissionDecision, the top-level decision elsewhere); nil for none.
func decisionAnswer(decision, reason, event string) []byte {
	var out map[string]any
	switch {
	case decision == "defer" && event != "PreToolUse":
		return nil // only PreToolUse defers to the host's own permission flow
	case event == "PermissionRequest" && decision != "ask":
		behavior := "allow"
		if decision == "deny" || decision == "block" {
			behavior = "deny"
		}
		d := map[string]any{"behavior": behavior}
		if reason != "" && behavior == "deny" {
			d["message"] = reason
		}
		out = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "decision": d}}
	case event == "PreToolUse" || decision == "ask":
		d := decision
		if d == "block" {
			d = "deny"
		}
		hs := map[string]any{"hookEventName": event, "permissionDecision": d}
		if reason != "" {
			hs["permissionDecisionReason"] = reason
		}
		out = map[string]any{"hookSpecificOutput": hs}
	case decision == "allow":
		out = map[string]any{"decision": "approve"}
		if reason != "" {
			out["reason"] = reason
		}
	default:
		out = map[string]any{"decision": "block", "reason": reason}
	}
	b, _ := marshal(out)
	return b
}

// spelling is the event as the hook saw it.
func (j *job) spelling() string {
	if s := j.h.cfg.Spelling; s != "" {
		return s
	}
	return j.eventName
}

// policyCommand shows a policy as results, explain and trust name it: its expression, or
// its Rego path and query.
func policyCommand(s *policy.Spec) string {
	switch {
	case s == nil:
		return ""
	case s.Rego != "":
		return s.Rego + " " + s.Query
	}
	return s.CEL
}

// policyLine is a policy as explain shows it: its language and source, what true means,
// and why it fails when it does not compile.
func policyLine(s *policy.Spec, broken string) string {
	if s == nil {
		return ""
	}
	var line string
	if s.Rego != "" {
		line = "rego " + s.Rego + " query " + s.Query
	} else {
		line = "cel " + s.CEL
	}
	d := s.Decision
	if d == "" {
		d = "deny"
	}
	line += " (true: " + d
	if s.Reason != "" {
		line += " " + strconv.Quote(s.Reason)
	}
	line += ")"
	if broken != "" {
		line += "; fails: " + broken
	}
	return line
}
