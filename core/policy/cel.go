//go:build !hookexec_nocel

package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
	"github.com/valyala/fastjson"
)

// A CEL policy: {"type": "policy", "cel": EXPR}. The expression sees the payload's fields
// as top-level variables, the hook's event and matcher, and the facts (facts.go); it
// evaluates to
//   - true: the spec's Decision ("deny" when "") with its Reason (Result.Decision);
//   - false, null or an empty map: no answer;
//   - a map: a JSON object read like a command hook's JSON answer in the declaring dialect
//     (Result.Answer);
//
// and anything else is an error. It is compiled once; an evaluation stops with an error
// past celCostLimit, after celTimeout, or when its context ends.

func init() { Register("cel", compileCEL) }

// payloadFields are the payload fields hookexec knows (every field Claude Code 2.1.330
// sends on any event, tests/live/claude/payload_fields.json, and the Notification
// event's), each a top-level variable of type dyn. A field the payload does not have is an
// error where the expression reads it ("no such attribute"); has(payload.x) tests for it,
// and payload.x reads any other field. FileChanged's "event" field is payload.event: event
// is the hook's event.
var payloadFields = []string{
	"agent_id", "agent_transcript_path", "agent_type", "background_tasks", "cache_ttl",
	"command_args", "command_name", "command_source", "compact_summary", "context_tokens",
	"custom_instructions", "cwd", "delta", "duration_ms", "effort", "error",
	"estimated_cache_write_usd", "expansion_type", "file_path", "final", "from_model",
	"hook_event_name", "index", "is_interrupt", "last_assistant_message", "load_reason",
	"mcp_server", "memory_type", "message", "message_id", "model", "name", "new_cwd",
	"notification_type", "old_cwd", "permission_mode", "permission_suggestions", "pricing",
	"prompt", "prompt_cache_warm", "prompt_id", "reason", "requested_model", "session_crons",
	"session_id", "source", "stop_hook_active", "title", "to_model", "tool_calls",
	"tool_input", "tool_name", "tool_response", "tool_use_id", "transcript_path", "trigger",
	"turn_id", "worktree_path",
}

const (
	// celCostLimit bounds one evaluation's work in CEL's cost units (about one per
	// operation, one per ten bytes a string function scans): a scan of 10 MB of tool
	// input, far beyond a rule's needs.
	celCostLimit = 1_000_000
	// celTimeout bounds one evaluation's time: comprehensions (exists, all, map) are
	// interpreted at about a microsecond a step, and nested ones reach the cost limit only
	// after seconds; the context is checked every celInterruptEvery steps.
	celTimeout        = 100 * time.Millisecond
	celInterruptEvery = 100
	// celMaxSize bounds the expression's length, in code points.
	celMaxSize = 64 << 10
	// factsVar is the hidden variable the fact functions read (see factCall).
	factsVar = "__hookexec_facts"
	// reasonFromExpr is how much of the expression the default reason quotes.
	reasonFromExpr = 120
)

// factFunctions are the fact functions a policy calls with a path; factCall rewrites each
// call to pass the fire's facts.
var factFunctions = []string{"inside_project", "is_symlink", "resolve_path"}

var (
	factsType = types.NewOpaqueType("hookexec.facts")
	celEnv    = mustEnv()
)

func mustEnv() *cel.Env {
	opts := []cel.EnvOption{
		cel.Variable("payload", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("event", cel.StringType),
		cel.Variable("matcher", cel.StringType),
		cel.Variable("project_root", cel.StringType),
		cel.Variable("git", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("commands", cel.ListType(cel.ListType(cel.StringType))),
		cel.Variable("command_known", cel.BoolType),
		cel.Variable(factsVar, factsType),
		cel.CrossTypeNumericComparisons(true),
		ext.Strings(), // split, replace, lowerAscii, trim, indexOf, join, ...
		ext.Lists(),   // flatten, slice, distinct, ...
		cel.ParserExpressionSizeLimit(celMaxSize),
		cel.Function("__inside_project", cel.Overload("__inside_project_facts_string",
			[]*cel.Type{factsType, cel.StringType}, cel.BoolType,
			cel.BinaryBinding(pathFact(func(f *celFacts, p string) (any, error) { return f.InsideProject(p) })))),
		cel.Function("__is_symlink", cel.Overload("__is_symlink_facts_string",
			[]*cel.Type{factsType, cel.StringType}, cel.BoolType,
			cel.BinaryBinding(pathFact(func(f *celFacts, p string) (any, error) { return f.IsSymlink(p) })))),
		cel.Function("__resolve_path", cel.Overload("__resolve_path_facts_string",
			[]*cel.Type{factsType, cel.StringType}, cel.StringType,
			cel.BinaryBinding(pathFact(func(f *celFacts, p string) (any, error) { return f.Resolve(p) })))),
	}
	for _, name := range payloadFields {
		opts = append(opts, cel.Variable(name, cel.DynType))
	}
	for _, name := range factFunctions {
		opts = append(opts, cel.Macros(cel.GlobalMacro(name, 1, factCall(name))))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		panic("policy: the CEL environment: " + err.Error()) // a programming error
	}
	return env
}

// factCall rewrites name(path) to __name(facts, path): a function's binding is fixed when
// the program is made, and the facts are the fire's.
func factCall(name string) cel.MacroFactory {
	return func(eh cel.MacroExprFactory, _ ast.Expr, args []ast.Expr) (ast.Expr, *common.Error) {
		return eh.NewCall("__"+name, eh.NewIdent(factsVar), args[0]), nil
	}
}

// pathFact binds a fact about a path; its error is the evaluation's.
func pathFact(fact func(*celFacts, string) (any, error)) func(ref.Val, ref.Val) ref.Val {
	return func(fv, pv ref.Val) ref.Val {
		f, ok := fv.(*celFacts)
		p, ok2 := pv.(types.String)
		if !ok || !ok2 {
			return types.NewErr("no such overload")
		}
		v, err := fact(f, string(p))
		if err != nil {
			return types.WrapErr(err)
		}
		return types.DefaultTypeAdapter.NativeToValue(v)
	}
}

// celPolicy is a compiled CEL policy.
type celPolicy struct {
	prg      cel.Program
	decision string
	reason   string
}

func compileCEL(spec Spec) (Policy, error) {
	decision := spec.Decision
	switch decision {
	case "":
		decision = "deny"
	case "deny", "block", "ask", "allow", "defer":
	default:
		return nil, fmt.Errorf("hookexec: policy: decision %q: want deny, block, ask, allow or defer", spec.Decision)
	}
	checked, iss := celEnv.Compile(spec.CEL)
	if iss.Err() != nil {
		return nil, fmt.Errorf("hookexec: policy: cel: %s", compileError(iss.Err().Error()))
	}
	switch t := checked.OutputType(); {
	case t.IsExactType(cel.BoolType), t.IsExactType(cel.NullType), t.IsExactType(cel.DynType),
		t.Kind() == types.MapKind:
	default:
		return nil, fmt.Errorf("hookexec: policy: cel: the expression is a %s; want a bool (true: %s), a map (the answer) or null", t, decision)
	}
	// A constant matches() pattern is compiled once here, not at every evaluation (most of a
	// fire's time otherwise, measured with pprof). Constant folding (OptOptimize) is not
	// used: it would turn an error an expression meets only on some payloads (int("x")
	// behind a condition) into a compile error that fails every fire.
	prg, err := celEnv.Program(checked, cel.CostLimit(celCostLimit), cel.InterruptCheckFrequency(celInterruptEvery),
		cel.OptimizeRegex(interpreter.MatchesRegexOptimization))
	if err != nil {
		return nil, fmt.Errorf("hookexec: policy: cel: %w", err)
	}
	reason := spec.Reason
	if reason == "" {
		reason = "policy: " + truncate(strings.Join(strings.Fields(spec.CEL), " "), reasonFromExpr)
	}
	return &celPolicy{prg: prg, decision: decision, reason: reason}, nil
}

// compileError is cel-go's message with the positions as line:col of the expression and
// the fact functions under their own names.
func compileError(msg string) string {
	msg = strings.ReplaceAll(strings.ReplaceAll(msg, "ERROR: ", ""), "<input>:", "")
	for _, name := range factFunctions {
		msg = strings.ReplaceAll(msg, "'__"+name+"' applied to '(hookexec.facts, ", "'"+name+"' applied to '(")
	}
	return msg
}

// Decide evaluates the expression.
func (p *celPolicy) Decide(ctx context.Context, in *Input) (Result, error) {
	parser := parsers.Get()
	defer parsers.Put(parser) // the variables are Go copies, made during the evaluation
	act, err := newActivation(ctx, in, parser)
	if err != nil {
		return Result{}, err
	}
	bounded, cancel := context.WithTimeout(ctx, celTimeout)
	defer cancel()
	out, _, err := p.prg.ContextEval(bounded, act)
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return Result{}, fmt.Errorf("hookexec: policy: cel: the evaluation took longer than %v: %w", celTimeout, err)
		}
		return Result{}, fmt.Errorf("hookexec: policy: cel: %w", err)
	}
	switch v := out.(type) {
	case types.Bool:
		if v {
			return Result{Decision: p.decision, Reason: p.reason}, nil
		}
		return Result{}, nil
	case types.Null:
		return Result{}, nil
	case traits.Mapper:
		if v.Size() == types.Int(0) {
			return Result{}, nil // cond ? {...} : {}: CEL's ternary wants one type on both sides
		}
		native, err := jsonValue(v, 0)
		if err != nil {
			return Result{}, fmt.Errorf("hookexec: policy: cel: the answer: %w", err)
		}
		b, err := json.Marshal(native)
		if err != nil {
			return Result{}, fmt.Errorf("hookexec: policy: cel: the answer: %w", err)
		}
		return Result{Answer: b}, nil
	}
	return Result{}, fmt.Errorf("hookexec: policy: cel: the expression gave a %s; want a bool, a map or null", out.Type().TypeName())
}

// Eval is Decide's answer as JSON: a decision in hookexec's own words (Result.Canonical).
func (p *celPolicy) Eval(ctx context.Context, in *Input) ([]byte, error) {
	r, err := p.Decide(ctx, in)
	if err != nil || r.Decision == "" {
		return r.Answer, err
	}
	return r.Canonical(), nil
}

// maxAnswerDepth bounds the nesting of an answer (a map built by a comprehension).
const maxAnswerDepth = 64

// jsonValue converts a CEL value to what encoding/json writes.
func jsonValue(v ref.Val, depth int) (any, error) {
	if depth > maxAnswerDepth {
		return nil, errors.New("nested too deep")
	}
	switch x := v.(type) {
	case types.Null:
		return nil, nil
	case types.Bool:
		return bool(x), nil
	case types.Int:
		return int64(x), nil
	case types.Uint:
		return uint64(x), nil
	case types.Double:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("%v is not a JSON number", float64(x))
		}
		return float64(x), nil
	case types.String:
		return string(x), nil
	case traits.Mapper:
		out := map[string]any{}
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("a map key is a %s; JSON keys are strings", k.Type().TypeName())
			}
			val, _ := x.Find(k)
			jv, err := jsonValue(val, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", string(ks), err)
			}
			out[string(ks)] = jv
		}
		return out, nil
	case traits.Lister:
		n, _ := x.Size().(types.Int)
		out := make([]any, 0, int(n))
		for it := x.Iterator(); it.HasNext() == types.True; {
			jv, err := jsonValue(it.Next(), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, jv)
		}
		return out, nil
	case *types.Err:
		return nil, x
	}
	return nil, fmt.Errorf("a %s is not JSON", v.Type().TypeName())
}

// activation is what one evaluation reads: the payload's fields, converted only when the
// expression reads them, and the facts, computed only when it asks.
type activation struct {
	root   *fastjson.Value
	in     *Input
	facts  *celFacts
	values map[string]any
}

// celFacts are the fire's facts and its context, the value of factsVar.
type celFacts struct {
	*Facts
	ctx context.Context
}

func (f *celFacts) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("the facts are not a value")
}
func (f *celFacts) ConvertToType(ref.Type) ref.Val { return types.NewErr("the facts are not a value") }
func (f *celFacts) Equal(o ref.Val) ref.Val        { return types.Bool(o == ref.Val(f)) }
func (f *celFacts) Type() ref.Type                 { return factsType }
func (f *celFacts) Value() any                     { return f.Facts }

// newActivation parses the payload with parser, which must outlive the evaluation.
func newActivation(ctx context.Context, in *Input, parser *fastjson.Parser) (*activation, error) {
	if in == nil {
		return nil, errors.New("hookexec: policy: no input")
	}
	var root *fastjson.Value
	if len(in.Payload) > 0 {
		v, err := parser.ParseBytes(in.Payload)
		if err != nil {
			return nil, fmt.Errorf("hookexec: policy: the payload: %w", err)
		}
		if v.Type() != fastjson.TypeObject {
			return nil, fmt.Errorf("hookexec: policy: the payload is a JSON %s, not an object", v.Type())
		}
		root = v
	}
	facts := in.Facts
	if facts == nil {
		facts = FactsFor("", in.Payload)
	}
	return &activation{root: root, in: in, facts: &celFacts{facts, ctx}}, nil
}

// ResolveName gives a variable's value; false for a payload field the payload lacks.
func (a *activation) ResolveName(name string) (any, bool) {
	if v, ok := a.values[name]; ok {
		return v, true
	}
	v, ok := a.resolve(name)
	if ok {
		if a.values == nil {
			a.values = make(map[string]any, 4)
		}
		a.values[name] = v
	}
	return v, ok
}

func (a *activation) resolve(name string) (any, bool) {
	switch name {
	case "payload":
		if a.root == nil {
			return map[string]any{}, true
		}
		return native(a.root), true
	case "event":
		return a.in.Event, true
	case "matcher":
		return a.in.Matcher, true
	case factsVar:
		return a.facts, true
	case "project_root":
		r, err := a.facts.ProjectRoot()
		if err != nil {
			return types.WrapErr(err), true
		}
		return r, true
	case "git":
		return &gitValue{f: a.facts}, true
	case "commands":
		return a.facts.Commands(), true
	case "command_known":
		return a.facts.CommandKnown(), true
	}
	if a.root == nil {
		return nil, false
	}
	v := a.root.Get(name)
	if v == nil {
		return nil, false
	}
	return native(v), true
}

func (a *activation) Parent() interpreter.Activation { return nil }

// native converts a JSON value to Go: an integer that fits int64 is an int, any other
// number a double.
func native(v *fastjson.Value) any {
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		out := make(map[string]any, o.Len())
		o.Visit(func(k []byte, x *fastjson.Value) { out[string(k)] = native(x) })
		return out
	case fastjson.TypeArray:
		arr, _ := v.Array()
		out := make([]any, len(arr))
		for i, x := range arr {
			out[i] = native(x)
		}
		return out
	case fastjson.TypeString:
		return string(v.GetStringBytes())
	case fastjson.TypeNumber:
		if i, err := v.Int64(); err == nil && !strings.ContainsAny(v.String(), ".eE") {
			return i
		}
		f, _ := v.Float64()
		return f
	case fastjson.TypeTrue:
		return true
	case fastjson.TypeFalse:
		return false
	}
	return nil
}

// gitValue is the git variable: git.branch and git.dirty, each found only when read.
type gitValue struct{ f *celFacts }

var gitKeys = []string{"branch", "dirty"}

func (g *gitValue) Get(key ref.Val) ref.Val {
	v, found := g.Find(key)
	if !found {
		return types.NewErr("no such key: %v", key)
	}
	return v
}

func (g *gitValue) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return nil, false
	}
	switch k {
	case "branch":
		b, err := g.f.GitBranch()
		if err != nil {
			return types.WrapErr(err), true
		}
		return types.String(b), true
	case "dirty":
		d, err := g.f.GitDirty(g.f.ctx)
		if err != nil {
			return types.WrapErr(err), true
		}
		return types.Bool(d), true
	}
	return nil, false
}

func (g *gitValue) Contains(key ref.Val) ref.Val {
	_, found := g.Find(key)
	return types.Bool(found)
}
func (g *gitValue) Size() ref.Val { return types.Int(len(gitKeys)) }
func (g *gitValue) Iterator() traits.Iterator {
	return types.NewStringList(types.DefaultTypeAdapter, gitKeys).Iterator()
}
func (g *gitValue) IsZeroValue() bool { return false }
func (g *gitValue) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("git is read by key: git.branch, git.dirty")
}
func (g *gitValue) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return types.MapType
	}
	return types.NewErr("git is read by key: git.branch, git.dirty")
}
func (g *gitValue) Equal(o ref.Val) ref.Val { return types.Bool(o == ref.Val(g)) }
func (g *gitValue) Type() ref.Type          { return types.MapType }
func (g *gitValue) Value() any              { return g }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
