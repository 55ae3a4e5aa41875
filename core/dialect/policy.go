package dialect

import (
	"fmt"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/policy"
)

// A policy handler ({"type": "policy", "cel": EXPR} or {"type": "policy", "rego": PATH,
// "query": QUERY}) is hookexec's own: no agent runs it, so every dialect whose handlers are
// objects reads it with the same fields, and hookexec evaluates it in-process (package
// policy). The dialect still decides how its answer is read (Answer, Output).

// policyKeys are the fields of a policy handler, beside the common ones (name, timeout,
// matcher, if, onFailure, fail_closed, ...).
var policyKeys = []string{"cel", "rego", "query", "decision", "reason"}

// policyDecisions are what a policy's true may mean.
var policyDecisions = []string{"deny", "ask", "block", "allow", "defer"}

// policyFields reads a policy handler's fields into h.Policy; for a handler of another
// type it warns that they are ignored. A policy that is wrong is an error of the load, and
// the hook is not disabled: a guard must not vanish because it is broken, so each fire it
// matches fails saying why (brokenPolicy), as its failure policy says (onFailure "block",
// fail_closed).
func (p *Reader) policyFields(where, label string, v *fastjson.Value, h *Hook) {
	bad := func(format string, args ...any) { p.brokenPolicy(h, label, format, args...) }
	if h.Type != "policy" {
		for _, k := range policyKeys {
			if v.Exists(k) {
				p.warn(where, "%s applies to type policy only; ignored", k)
			}
		}
		return
	}
	s := &policy.Spec{
		CEL:      p.optStr(where, "cel", v),
		Rego:     p.optStr(where, "rego", v),
		Query:    p.optStr(where, "query", v),
		Decision: p.optStr(where, "decision", v),
		Reason:   p.optStr(where, "reason", v),
	}
	h.Policy = s
	for _, k := range []string{"command", "args", "bash", "powershell", "url", "prompt"} {
		if v.Exists(k) {
			bad("type policy evaluates its \"cel\" or \"rego\"; it takes no %q", k)
		}
	}
	switch {
	case strings.TrimSpace(s.CEL) == "" && strings.TrimSpace(s.Rego) == "":
		bad(`type policy needs "cel" (an expression) or "rego" (a .rego file or a directory of them)`)
	case s.CEL != "" && s.Rego != "":
		bad(`a policy has "cel" or "rego", not both`)
	case s.Rego != "" && strings.TrimSpace(s.Query) == "":
		bad(`a "rego" policy needs "query" (e.g. "data.guard.decision")`)
	case s.CEL != "" && s.Query != "":
		bad(`"query" applies to "rego" policies; a "cel" policy is its expression`)
	}
	if s.Decision != "" && !contains(policyDecisions, s.Decision) {
		bad("decision %q is not one of %s", s.Decision, strings.Join(policyDecisions, ", "))
	}
}

// brokenPolicy records what is wrong with h's policy, as an error of the load and as the
// failure of every fire of the hook (Hook.PolicyError).
func (p *Reader) brokenPolicy(h *Hook, label, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if h.PolicyError == "" {
		h.PolicyError = msg
	}
	p.f.Warnings = append(p.f.Warnings, Warning{Source: p.source, Path: p.at, Hook: label, Message: msg + "; each fire of the hook fails", Error: true})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
