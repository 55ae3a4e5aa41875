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
}

// Compile loads the modules of spec.Rego and prepares spec.Query over them. Errors in a
// module are `file:line: message (code)`, one line each.
func Compile(spec policy.Spec) (policy.Policy, error) {
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
	return &Policy{spec: spec, query: pq}, nil
}

// Eval evaluates the query with in.Payload as input. It returns the result object as JSON,
// a bool result as JSON true or false, nil for an undefined result, and an
// error for a runtime error (a conflict, a builtin's error, ctx done), several results, or
// a result of another type.
func (p *Policy) Eval(ctx context.Context, in *policy.Input) ([]byte, error) {
	input, err := parseInput(in.Payload)
	if err != nil {
		return nil, fmt.Errorf("rego: the payload is not JSON: %w", err)
	}
	rs, err := p.query.Eval(withInput(ctx, in), rego.EvalParsedInput(input))
	if err != nil {
		return nil, fmt.Errorf("rego: %s: %w", p.spec.Query, evalError(ctx, err))
	}
	switch len(rs) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, fmt.Errorf("rego: %s has %d results; a guard's query has one", p.spec.Query, len(rs))
	}
	if len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("rego: %s has %d expressions; a guard's query has one", p.spec.Query, len(rs[0].Expressions))
	}
	switch v := rs[0].Expressions[0].Value.(type) {
	case map[string]any:
		out, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("rego: %s: %w", p.spec.Query, err)
		}
		return out, nil
	case bool:
		// A bare true or false, as a CEL policy's bool: the engine applies the hook's
		// decision and reason for true (core/engine boolAnswer); false is no answer.
		if v {
			return []byte("true"), nil
		}
		return []byte("false"), nil
	default:
		return nil, fmt.Errorf("rego: %s is %s; a guard's query yields an object (the answer) or a bool", p.spec.Query, typeName(v))
	}
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
