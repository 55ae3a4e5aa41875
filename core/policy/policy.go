// Package policy evaluates guards written as policies instead of programs: a hook of type
// "policy" holds a CEL expression or Rego modules that the engine evaluates in-process,
// with no process started. A policy sees the event's payload and, when it asks, facts about
// the project (facts.go); its answer is a JSON object read exactly like a command hook's
// JSON answer in the dialect of the file that declares it.
//
// Each language registers a Compiler (cel.go; Rego in core/policy/rego), so an embedder who
// never uses a language need not link it.
package policy

import (
	"context"
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
		return nil, fmt.Errorf("%s: %w", lang, ErrNoLanguage)
	}
	return c(spec)
}
