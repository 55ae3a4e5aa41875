package rego

import (
	"context"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/hookexec/hookexec/core/policy"
)

// The facts reach a policy as builtins in the hookexec namespace, so they are computed only
// when a rule calls one (policy.Facts computes each at most once per fire). They are
// declared once, at prepare time; the fire's Input travels in the evaluation's context, so
// concurrent fires never share one.

type inputKey struct{}

func withInput(ctx context.Context, in *policy.Input) context.Context {
	return context.WithValue(ctx, inputKey{}, in)
}

func inputOf(bctx rego.BuiltinContext) *policy.Input {
	in, _ := bctx.Context.Value(inputKey{}).(*policy.Input)
	if in == nil {
		return &policy.Input{}
	}
	return in
}

// fact is one builtin: its name under hookexec., its argument types, its result type and
// its value for a fire.
type fact struct {
	name   string
	args   []types.Type
	result types.Type
	eval   func(ctx context.Context, in *policy.Input, args []*ast.Term) (*ast.Term, error)
}

func builtins() []func(*rego.Rego) {
	out := make([]func(*rego.Rego), 0, len(facts))
	for _, f := range facts {
		decl := &rego.Function{
			Name: "hookexec." + f.name,
			Decl: types.NewFunction(f.args, f.result),
			// Memoized within one evaluation; nondeterministic so nothing is folded at
			// prepare time (a git branch changes between fires).
			Memoize:          true,
			Nondeterministic: true,
		}
		eval := f.eval
		out = append(out, rego.FunctionDyn(decl, func(bctx rego.BuiltinContext, args []*ast.Term) (*ast.Term, error) {
			return eval(bctx.Context, inputOf(bctx), args)
		}))
	}
	return out
}
