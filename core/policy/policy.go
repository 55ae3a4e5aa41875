// Package policy evaluates guards written as policies instead of programs: a hook of type
// "policy" holds a CEL expression or Rego modules that the engine evaluates in-process,
// with no process started. A policy sees the event's payload and, when it asks, facts about
// the project (facts.go); its answer is a JSON object read exactly like a command hook's
// JSON answer in the dialect of the file that declares it.
//
// Each language registers a Compiler (cel.go; Rego in core/policy/rego), so an embedder who
// never uses a language need not link it: building with -tags hookexec_nocel leaves CEL (and
// cel-go, about 9 MB of a stripped binary) out, and a CEL policy is then ErrNoLanguage.
package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
)

// Spec is a policy handler as its file writes it, paths already resolved.
type Spec struct {
	// CEL is the expression of {"type": "policy", "cel": ...}; "" when Rego is set.
	CEL string
	// Rego is a .rego file or a directory of them (absolute; the config loader resolves it
	// against the declaring file's directory) and Query the query whose result is the answer.
	Rego  string
	Query string
	// Decision is what a CEL expression evaluating to true means ("deny" when ""), and
	// Reason the reason it gives.
	Decision string
	Reason   string
}

// Language is the language of a spec: "cel" or "rego".
func (s Spec) Language() string {
	if s.Rego != "" {
		return "rego"
	}
	return "cel"
}

// Input is what one evaluation sees.
type Input struct {
	// Payload is the event's payload as the engine holds it (a JSON object, canonical field
	// names: tool_name, tool_input, prompt, cwd, ...).
	Payload []byte
	// Event is the canonical event name and Matcher the hook's matcher ("" for none).
	Event   string
	Matcher string
	// Facts answers what the payload does not say; computed lazily, at most once per fire.
	Facts *Facts
}

// Policy is a compiled policy. Eval returns the answer (a JSON object read like a command
// hook's JSON stdout) or nil for no answer; an error is a failure of the hook, handled as
// the hook's failure policy says. Eval is safe for concurrent use.
type Policy interface {
	Eval(ctx context.Context, in *Input) ([]byte, error)
}

// Result is what one evaluation decided: an answer in the declaring dialect's words, a
// decision of the policy's own, or neither (no answer).
type Result struct {
	// Answer is a JSON object read like a command hook's JSON stdout in the dialect of the
	// file that declares the policy (a CEL map, a Rego result); nil for none.
	Answer []byte
	// Decision is set when the policy decided by itself, in no dialect's words (a CEL
	// expression that evaluated to true): the spec's Decision, "deny", "block", "ask",
	// "allow" or "defer", with the spec's Reason (a default quoting the expression when it has none).
	// The engine applies it as it applies any hook's decision; Answer is then nil.
	Decision string
	Reason   string
}

// Canonical is a decision as hookexec's own JSON answer, {"decision": D, "reason": R}:
// decide.Read with the zero Vocabulary and ClaudeSchema false reads it as D with R on
// every event, whatever the declaring dialect (whose own reader may not: Claude Code's
// schema has no top-level "deny" or "ask"). nil when r has no Decision.
func (r Result) Canonical() []byte {
	if r.Decision == "" {
		return nil
	}
	b, _ := json.Marshal(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason,omitempty"`
	}{r.Decision, r.Reason})
	return b
}

// A Decider is a Policy that may decide by itself rather than answer in a dialect's words
// (CEL). Its Eval returns a decision as Result.Canonical.
type Decider interface {
	Policy
	Decide(ctx context.Context, in *Input) (Result, error)
}

// Evaluate evaluates p: through Decide when p is a Decider, else Eval's answer.
func Evaluate(ctx context.Context, p Policy, in *Input) (Result, error) {
	if d, ok := p.(Decider); ok {
		return d.Decide(ctx, in)
	}
	b, err := p.Eval(ctx, in)
	return Result{Answer: b}, err
}

// Compiler compiles a spec of one language.
type Compiler func(Spec) (Policy, error)

// ErrNoLanguage is returned by Compile for a language this build does not include.
var ErrNoLanguage = errors.New("policy language not available in this build")

var (
	mu        sync.RWMutex
	compilers = map[string]Compiler{}
)

// Register makes a language available to Compile. It panics on a second registration of
// the same language (a programming error).
func Register(language string, c Compiler) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := compilers[language]; dup {
		panic("policy: language registered twice: " + language)
	}
	compilers[language] = c
}

// Languages lists the registered languages, sorted.
func Languages() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(compilers))
	for l := range compilers {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// Compile compiles spec. Exactly one of CEL and Rego must be set.
func Compile(spec Spec) (Policy, error) {
	switch {
	case spec.CEL != "" && spec.Rego != "":
		return nil, errors.New(`a policy has "cel" or "rego", not both`)
	case spec.CEL == "" && spec.Rego == "":
		return nil, errors.New(`a policy needs "cel" (an expression) or "rego" (a file or directory)`)
	case spec.Rego != "" && spec.Query == "":
		return nil, errors.New(`a "rego" policy needs "query" (e.g. "data.guard.decision")`)
	}
	lang := spec.Language()
	mu.RLock()
	c := compilers[lang]
	mu.RUnlock()
	if c == nil {
		if lang == "rego" {
			// The only language a build leaves out on purpose (docs/architecture.md).
			return nil, fmt.Errorf("rego policies need a hookexec built with Rego; this one was built without it (the hookexec_norego build tag): %w", ErrNoLanguage)
		}
		return nil, fmt.Errorf("%s: %w", lang, ErrNoLanguage)
	}
	return c(spec)
}
