package config

import (
	"path/filepath"

	"github.com/hookexec/hookexec/core/dialect"
	policies "github.com/hookexec/hookexec/core/policy"
)

// resolvePolicy makes a Rego policy's path absolute: relative to the directory of the file
// that declares it (the project directory for inline configuration), "~" the home.
func (l *loader) resolvePolicy(h *dialect.Hook) {
	if h.Policy == nil || h.Policy.Rego == "" {
		return
	}
	s := *h.Policy
	switch {
	case s.Rego == "~" || len(s.Rego) > 1 && s.Rego[:2] == "~/":
		s.Rego = l.expand(s.Rego)
	case !filepath.IsAbs(s.Rego) && h.Source != InlineSource:
		s.Rego = filepath.Join(filepath.Dir(h.Source), s.Rego)
	default:
		s.Rego = l.expand(s.Rego)
	}
	h.Policy = &s
}

// compilePolicy compiles a policy hook's policy once per load. A policy that does not
// compile is an error of the load at the line of its "cel" or "rego" field (a Rego error
// names its module's file:line too), and the hook stays enabled: each fire it matches
// fails with the error, blocking as its failure policy says (onFailure "block",
// fail_closed), so a broken guard never vanishes.
func (l *loader) compilePolicy(h *Hook) {
	if h.Type != "policy" || h.Policy == nil || h.PolicyError != "" || h.DuplicateOf != "" {
		return
	}
	spec := *h.Policy
	if spec.Decision == "block" {
		// The same as deny wherever a policy decides (a block is a deny spelt for the
		// events that are not tool calls); the languages know deny.
		spec.Decision = "deny"
	}
	p, err := policies.Compile(spec)
	if err != nil {
		field := "cel"
		if h.Policy.Rego != "" {
			field = "rego"
		}
		h.PolicyError = "policy does not compile: " + err.Error()
		l.set.Warnings = append(l.set.Warnings, Warning{Source: h.Source, Path: h.field(field), Hook: h.ID,
			Message: h.PolicyError + "; each fire of the hook fails", Error: true})
		return
	}
	h.Guard = p
}
