// Package rego evaluates policy handlers written in Rego with OPA's Go SDK
// (github.com/open-policy-agent/opa/v1/rego). Importing it registers the "rego" language with
// core/policy; a build that does not import it has no Rego and no OPA (docs/architecture.md
// gives the weight, and which builds link it).
//
// A spec's Rego path is a module file or a directory of modules (modules.go); they are parsed,
// compiled and prepared once, when the configuration loads, with the facts as builtins
// (builtins.go). Each fire evaluates the prepared query with the payload as input. The
// package does not load data documents (.json, .yaml) beside the modules, does not run
// *_test.rego modules, and discards print() output.
package rego

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/hookexec/hookexec/core/policy"
)

func init() {
	policy.Register("rego", Compile)
}

// Policy is a prepared Rego query. Eval is safe for concurrent use: OPA's prepared queries
// are, and the per-fire facts travel in the evaluation's context, not in the Policy.
type Policy struct {
	spec  policy.Spec
	query rego.PreparedEvalQuery
	// decision and reason are what a result of true decides, as for a CEL policy.
	decision, reason string
}

// Compile loads the modules of spec.Rego and prepares spec.Query over them. Errors in a
// module are `file:line: message (code)`, one line each.
func Compile(spec policy.Spec) (policy.Policy, error) {
	decision := spec.Decision
	switch decision {
	case "":
		decision = "deny"
	case "deny", "ask", "allow", "defer":
	default:
		return nil, fmt.Errorf("rego: decision %q: want deny, ask, allow or defer", spec.Decision)
	}
	reason := spec.Reason
	if reason == "" {
		reason = "policy: " + spec.Query
	}
	modules, err := loadModules(spec.Rego)
	if err != nil {
		return nil, fmt.Errorf("rego: %w", err)
	}
	opts := []func(*rego.Rego){
		rego.Query(spec.Query),
		rego.SetRegoVersion(ast.RegoV1),
		// A builtin's error fails the evaluation, so the hook's failure policy applies;
		// OPA's default makes the expression undefined, which would let a guard fail open.
		rego.StrictBuiltinErrors(true),
	}
	for _, m := range modules {
		opts = append(opts, rego.ParsedModule(m))
	}
	opts = append(opts, builtins()...)
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		return nil, fmt.Errorf("rego: %w", located(err))
	}
	return &Policy{spec: spec, query: pq, decision: decision, reason: reason}, nil
}

// Decide evaluates the query with in.Payload as input. A result that is an object is the
// answer; true is the spec's decision with its reason (as a CEL policy's true); false or
// an undefined result is no answer. A runtime error (a conflict, a builtin's error, ctx
// done), several results or a result of another type is an error.
func (p *Policy) Decide(ctx context.Context, in *policy.Input) (policy.Result, error) {
	input, err := parseInput(in.Payload)
	if err != nil {
		return policy.Result{}, fmt.Errorf("rego: the payload is not JSON: %w", err)
	}
	rs, err := p.query.Eval(withInput(ctx, in), rego.EvalParsedInput(input))
	if err != nil {
		return policy.Result{}, fmt.Errorf("rego: %s: %w", p.spec.Query, evalError(ctx, err))
	}
	switch len(rs) {
	case 0:
		return policy.Result{}, nil
	case 1:
	default:
		return policy.Result{}, fmt.Errorf("rego: %s has %d results; a guard's query has one", p.spec.Query, len(rs))
	}
	if len(rs[0].Expressions) != 1 {
		return policy.Result{}, fmt.Errorf("rego: %s has %d expressions; a guard's query has one", p.spec.Query, len(rs[0].Expressions))
	}
	switch v := rs[0].Expressions[0].Value.(type) {
	case map[string]any:
		out, err := json.Marshal(v)
		if err != nil {
			return policy.Result{}, fmt.Errorf("rego: %s: %w", p.spec.Query, err)
		}
		return policy.Result{Answer: out}, nil
	case bool:
		if v {
			return policy.Result{Decision: p.decision, Reason: p.reason}, nil
		}
		return policy.Result{}, nil
	default:
		return policy.Result{}, fmt.Errorf("rego: %s is %s; a guard's query yields an object (the answer) or a bool", p.spec.Query, typeName(v))
	}
}

// Eval is Decide's answer as JSON, a decision in hookexec's own words (Result.Canonical).
func (p *Policy) Eval(ctx context.Context, in *policy.Input) ([]byte, error) {
	r, err := p.Decide(ctx, in)
	if err != nil || r.Decision == "" {
		return r.Answer, err
	}
	return r.Canonical(), nil
}

// evalError names a cancelled evaluation by its cause (the fire's deadline), which OPA
// reports only as "caller cancelled query execution".
func evalError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	return err
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64, int, int64:
		return "a number"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
}
