package rego

import (
	"context"
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/hookexec/hookexec/core/policy"
)

// facts are the builtins, each CEL's fact of the same name under hookexec. (CEL's git.branch
// is hookexec.git.branch()); docs/policy.md lists both.
var facts = []fact{
	{"event", nil, types.S, func(_ context.Context, in *policy.Input, _ []*ast.Term) (*ast.Term, error) {
		return ast.StringTerm(in.Event), nil
	}},
	{"matcher", nil, types.S, func(_ context.Context, in *policy.Input, _ []*ast.Term) (*ast.Term, error) {
		return ast.StringTerm(in.Matcher), nil
	}},
	{"project_root", nil, types.S, withFacts(func(_ context.Context, f *policy.Facts, _ []*ast.Term) (*ast.Term, error) {
		return str(f.ProjectRoot())
	})},
	{"resolve_path", []types.Type{types.S}, types.S, withPath(func(f *policy.Facts, p string) (*ast.Term, error) {
		return str(f.Resolve(p))
	})},
	{"inside_project", []types.Type{types.S}, types.B, withPath(func(f *policy.Facts, p string) (*ast.Term, error) {
		return boolean(f.InsideProject(p))
	})},
	{"is_symlink", []types.Type{types.S}, types.B, withPath(func(f *policy.Facts, p string) (*ast.Term, error) {
		return boolean(f.IsSymlink(p))
	})},
	{"git.branch", nil, types.S, withFacts(func(_ context.Context, f *policy.Facts, _ []*ast.Term) (*ast.Term, error) {
		return str(f.GitBranch())
	})},
	{"git.dirty", nil, types.B, withFacts(func(ctx context.Context, f *policy.Facts, _ []*ast.Term) (*ast.Term, error) {
		return boolean(f.GitDirty(ctx))
	})},
	{"commands", nil, types.NewArray(nil, types.NewArray(nil, types.S)), withFacts(func(_ context.Context, f *policy.Facts, _ []*ast.Term) (*ast.Term, error) {
		cmds := f.Commands()
		out := make([]*ast.Term, len(cmds))
		for i, words := range cmds {
			ws := make([]*ast.Term, len(words))
			for j, w := range words {
				ws[j] = ast.StringTerm(w)
			}
			out[i] = ast.ArrayTerm(ws...)
		}
		return ast.ArrayTerm(out...), nil
	})},
	{"command_known", nil, types.B, withFacts(func(_ context.Context, f *policy.Facts, _ []*ast.Term) (*ast.Term, error) {
		return ast.BooleanTerm(f.CommandKnown()), nil
	})},
}

// errNoFacts fails a fact asked for in an evaluation given none (an embedder's Input
// without Facts): failing keeps the guard closed.
var errNoFacts = errors.New("hookexec: policy: no facts for this evaluation")

func withFacts(f func(context.Context, *policy.Facts, []*ast.Term) (*ast.Term, error)) func(context.Context, *policy.Input, []*ast.Term) (*ast.Term, error) {
	return func(ctx context.Context, in *policy.Input, args []*ast.Term) (*ast.Term, error) {
		if in.Facts == nil {
			return nil, errNoFacts
		}
		return f(ctx, in.Facts, args)
	}
}

// withPath is a fact of one path argument.
func withPath(f func(*policy.Facts, string) (*ast.Term, error)) func(context.Context, *policy.Input, []*ast.Term) (*ast.Term, error) {
	return withFacts(func(_ context.Context, facts *policy.Facts, args []*ast.Term) (*ast.Term, error) {
		p, err := pathArg(args)
		if err != nil {
			return nil, err
		}
		return f(facts, p)
	})
}

// pathArg is the path argument: the declaration rejects what is known not to be a string
// at compile time, this what turns out not to be one (input.tool_input.file_path: 7).
func pathArg(args []*ast.Term) (string, error) {
	s, ok := args[0].Value.(ast.String)
	if !ok {
		return "", fmt.Errorf("hookexec: policy: a path is a string, not %s", ast.ValueName(args[0].Value))
	}
	return string(s), nil
}

func str(s string, err error) (*ast.Term, error) {
	if err != nil {
		return nil, err
	}
	return ast.StringTerm(s), nil
}

func boolean(b bool, err error) (*ast.Term, error) {
	if err != nil {
		return nil, err
	}
	return ast.BooleanTerm(b), nil
}
