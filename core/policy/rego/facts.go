package rego

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/hookexec/hookexec/core/policy"
)

// facts are the builtins, named as CEL names the same facts (docs/policy.md, ## Facts).
var facts = []fact{
	{"event", nil, types.S, func(in *policy.Input, _ []*ast.Term) (*ast.Term, error) {
		return ast.StringTerm(in.Event), nil
	}},
	{"matcher", nil, types.S, func(in *policy.Input, _ []*ast.Term) (*ast.Term, error) {
		return ast.StringTerm(in.Matcher), nil
	}},
}
