// Package dialect is the one home of every configuration dialect hookexec reads: Claude
// Code's settings, cli-agent's, mycode's, autohand's, AutoAgent's and iteratr's. A dialect
// is one value of Dialect, declared in its own file: how a file in it is recognised and read,
// how its hooks see an event (spelling, stdin envelope), the unit and default of its
// timeouts, whether its hooks run one after another, and whether its commands take
// <<placeholders>>. Supporting the next agent's format is one new file here.
//
// It translates files into the canonical Hook and does not merge, compile or run anything:
// config merges and validates, the engine runs.
package dialect

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Dialect describes one configuration format and how its hooks run. Zero values mean "no"
// or "none" as documented per field.
type Dialect struct {
	Name string
	// Unit is what a bare "timeout" number means.
	Unit time.Duration
	// Timeout is the default for hooks that set none; 0 means the profile's default.
	Timeout time.Duration
	// Timeouts, when set, is the default per handler type and event instead (Claude Code's).
	Timeouts func(typ, event string) time.Duration
	// Envelope is the set of fields put around the payload on the hooks' stdin.
	Envelope payload.Envelope
	// CanonicalOnStdin: the envelope's event field holds the canonical name (Claude Code's
	// hook_event_name), or its Names spelling; otherwise it holds the event as the dialect
	// spells it (EventName).
	CanonicalOnStdin bool
	// Names spells canonical events the dialect's own way for HOOK_EVENT and stdin; nil or
	// a missing entry means "as the host fired it".
	Names map[string]string
	// OwnAliases are fired names the dialect uses itself; its hooks see them unchanged.
	OwnAliases map[string]bool
	// Sequential: the hooks of one fire run one after another, in config order.
	Sequential bool
	// StopOnBlock: once a hook blocks, the rest of the fire is not run.
	StopOnBlock bool
	// Templates: <<expr>> and {{expr}} in commands are replaced by payload values. Dialects
	// without it (Claude Code) pass commands to the shell literally.
	Templates bool
	// Vars rewrites the dialect's own variable syntax in a command into placeholders (mycode's
	// $FILE_PATH); nil leaves commands as written.
	Vars func(command string) string
	// StrayMatcherIgnored: a matcher on an event without matcher support is ignored with a
	// warning, as Claude Code ignores it; otherwise it disables the hook as a likely mistake.
	StrayMatcherIgnored bool
	// DecisionObjects: hooks' JSON decides PermissionRequest only through
	// hookSpecificOutput.decision, as in Claude Code; other dialects' hooks may use the
	// top-level decision there as on any event.
	DecisionObjects bool
	// ContinueAfterTool: a PreToolUse hook's continue:false does not block the tool; the
	// tool runs and then the agent stops, as Claude Code does. Otherwise continue:false
	// blocks the tool.
	ContinueAfterTool bool
	// Notifies: fires are announced to the listener as JSON-RPC notifications (autohand).
	Notifies bool
	// Types lists the handler types the dialect accepts besides command and prompt.
	Types []string
	// TypeOnEvent says why a handler type does not run on an event ("" when it does); nil
	// means every type runs on every event.
	TypeOnEvent func(typ, event string) string
	// Output is the vocabulary its hooks answer in (zero: Claude Code's).
	Output decide.Vocabulary
	// TimeoutOf turns a "timeout" number into a duration; nil means number × Unit.
	TimeoutOf func(n float64) time.Duration
	// SequentialSpreads: one sequential matcher group among a fire's hooks of the dialect
	// makes all of them run one after another (Gemini CLI plans a fire that way).
	SequentialSpreads bool
	// RegexToolMatchers: matchers of tool events are always ECMAScript regexes, unanchored
	// (Gemini CLI's new RegExp(matcher).test(tool_name)).
	RegexToolMatchers bool
	// SpellsTools: its hooks see tool_name as its agent spells the tool (package vocab),
	// whatever spelling the host fired.
	SpellsTools bool
	// HandlerKeys are handler fields only this dialect has; Handler reads them into h.
	HandlerKeys []string
	Handler     func(p *Reader, where string, v *fastjson.Value, h *Hook)
	// YAML: files are YAML, not JSON.
	YAML bool
	// Detect recognises a file of the dialect from its path and parsed JSON (nil when the
	// file is not JSON); nil means the dialect is never detected from shape alone.
	Detect func(path string, v *fastjson.Value) bool
	// Load reads one file (data, and v when it is JSON) into r.
	Load func(r *Reader, data []byte, v *fastjson.Value) error
	// Script: a file of the dialect is the hook itself (Cline's executables), not JSON.
	Script bool
	// Stdin, when set, builds the hooks' stdin in the agent's own payload shape (field
	// names, tool names, event as the hook's file spells it) instead of Envelope around
	// the host's payload.
	Stdin func(f Fire) []byte
	// OwnEvent, when set, names the event as the dialect spells it from the host's payload
	// (get reads a top-level string field); the fire then runs only the dialect's hooks
	// whose file spells the event so (Cline's TaskStart and TaskResume are both
	// SessionStart; its payload's hookName says which). "" means the payload does not say:
	// every hook of the canonical event runs.
	OwnEvent func(get func(key string) string) string
	// Answer, when set, reads a hook's exit code and stdout in the agent's own vocabulary
	// and returns them in the canonical one (Claude Code's exit codes and JSON fields),
	// which package decide reads. Nil stdout means "no answer".
	Answer func(event string, exit int, stdout []byte) (int, []byte)
	// ProjectEnv names extra variables set to the project directory ($FACTORY_PROJECT_DIR).
	ProjectEnv []string
	// PayloadEnv sets extra variables from payload fields when present ({"USER_PROMPT",
	// "prompt"}: Kiro's shell commands read the prompt there); a dotted name is a path
	// ("tool_input.command": Crush's CRUSH_TOOL_INPUT_COMMAND).
	PayloadEnv [][2]string
	// Env are variables every hook of the dialect sees ("CRUSH=1", "AGENT=crush").
	Env []string
	// ToolEnv names a variable set to the fire's tool as the dialect spells it
	// (CRUSH_TOOL_NAME=bash for Claude Code's Bash); "" sets none.
	ToolEnv string
	// ErrorBlocks gives, for an event as the dialect spells it, the reason a command hook
	// that cannot run there (a powershell-only hook off Windows) blocks with; "" (or nil)
	// means such a hook is a non-blocking error. Failing exits are the Answer's to read.
	ErrorBlocks func(spelled string) string
	// HaltExit is an exit status that stops the agent's turn (continue: false) with stderr
	// as the reason (Crush's 49); 0 means none.
	HaltExit int
}

// Fire is what a dialect's Stdin sees of one fire.
type Fire struct {
	Event     string // as the hook's file spells it
	Canonical string // the canonical event
	Payload   *fastjson.Value
	Frame     payload.Frame
}

func (d *Dialect) String() string {
	if d == nil {
		return "unknown"
	}
	return d.Name
}

// EventName is how the dialect's hooks see the event the host fired as fired (canonical
// name canonical).
func (d *Dialect) EventName(fired, canonical string) string {
	if d == nil || d.OwnAliases[fired] {
		return fired
	}
	if n, ok := d.Names[canonical]; ok {
		return n
	}
	return fired
}

// ToolName is how the dialect's hooks see the tool the host named: its agent's spelling of
// the same tool when the dialect SpellsTools and the canonical vocabulary knows the tool,
// else "" (the payload's name stands).
func (d *Dialect) ToolName(name string) string {
	if d == nil || !d.SpellsTools || name == "" {
		return ""
	}
	if s := vocab.Spell(d.Name, vocab.Tool(name)); s != "" && s != name {
		return s
	}
	return ""
}

// StdinEvent is the event name put in the stdin envelope.
func (d *Dialect) StdinEvent(fired, canonical string) string {
	if d.CanonicalOnStdin {
		if n, ok := d.Names[canonical]; ok {
			return n
		}
		return canonical
	}
	return d.EventName(fired, canonical)
}

// Accepts reports whether the dialect has handler type t. Every dialect has "policy":
// hookexec evaluates it, whatever the agent.
func (d *Dialect) Accepts(t string) bool {
	switch t {
	case "command", "prompt", "policy":
		return true
	}
	for _, x := range d.Types {
		if x == t {
			return true
		}
	}
	return false
}

// detectOrder is the order in which shapes are tried: the most specific first, Claude
// Code's (the shape the others extend) last.
var detectOrder = []*Dialect{Iteratr, Cline, Kiro, Cursor, Copilot, Windsurf, Crush, Antigravity, Auggie, Opencode, Factory, Autohand, AutoAgent, Mycode, Gemini, Codex, Qwen, Claude}

// All lists every dialect, in detection order, then those never detected from shape.
func All() []*Dialect { return append(append([]*Dialect{}, detectOrder...), CliAgent) }

// ByName returns the named dialect, or nil.
func ByName(name string) *Dialect {
	for _, d := range All() {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Detect recognises a file's dialect from its name and shape; v is nil when the file is not
// JSON. It returns nil for a shape no dialect has.
func Detect(path string, v *fastjson.Value) *Dialect {
	for _, d := range detectOrder {
		if d.Detect != nil && d.Detect(path, v) {
			return d
		}
	}
	return nil
}

func inDir(path, dir string) bool { return filepath.Base(filepath.Dir(path)) == dir }

func hasSuffix(path string, suffixes ...string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(filepath.Base(path), s) {
			return true
		}
	}
	return false
}

// claudeShaped: a JSON object whose "hooks", if present, is an object keyed by event
// name, the shape Claude Code, cli-agent, mycode and AutoAgent share.
func claudeShaped(v *fastjson.Value) bool {
	if v == nil {
		return false
	}
	hooks := v.Get("hooks")
	return hooks == nil || (hooks.Type() == fastjson.TypeObject && !autohandShaped(v))
}
