package dialect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/policy"
)

// MaxWorkers bounds a persistent hook's "workers": each is a process kept running.
const MaxWorkers = 64

// Hook is one handler after translation from its dialect. Zero values mean "not set".
type Hook struct {
	ID          string // Name if given, else a short hash of event+matcher+command; unique in a Set
	Name        string
	Description string
	Event       string // canonical event name
	// Spelling is the event as the hook's file names it (beforeShellExecution,
	// pre_run_command); "" when the file uses the canonical name or an alias of it.
	Spelling string
	Matcher  string // raw pattern; "" matches everything
	// RegexMatcher makes Matcher an ECMAScript regex whatever it looks like (autohand).
	RegexMatcher bool
	// FilterTools and FilterPaths are autohand's filter: tool names, and ** globs matched
	// against the payload's file path relative to the project. Both must pass when set.
	FilterTools []string
	FilterPaths []string
	// FileEvents are the kinds of FileChanged fire the hook runs for, as the payload's
	// "event" says them ("add", "change", "unlink"); nil runs for all (Kiro's fileCreated,
	// fileEdited and fileDeleted are one canonical event).
	FileEvents []string
	// Type is "command", "http", "prompt", "agent", "mcp_tool", "git-commit", "git-push" or
	// "policy".
	Type    string
	Command string // shell string for type command (may be "" when Args is set)
	Args    []string
	Prompt  string // types prompt and agent: text handed to the host's evaluator
	Model   string // types prompt and agent: the model the host should use; "" its default
	// Type http: the URL POSTed to, its extra headers in file order (values may hold $VAR
	// or ${VAR}, expanded from AllowedEnvVars only; any other variable becomes "").
	URL            string
	Headers        [][2]string
	AllowedEnvVars []string
	// Type mcp_tool: the host calls Tool on its MCP server Server with Input, a JSON object
	// whose string values may hold ${path} placeholders filled from the payload (nil: none).
	Server string
	Tool   string
	Input  []byte
	// Policy is a policy handler's expression or Rego modules (Rego still relative to the
	// declaring file until config resolves it); nil for other types. omitempty keeps the
	// trust digest of the other types as it was (core/trust settingsDigest).
	Policy *policy.Spec `json:",omitempty"`
	// PolicyError says why the policy cannot be evaluated (its fields, or compiling it);
	// the hook stays enabled and each fire of it fails with this. "" when it compiled.
	PolicyError string `json:",omitempty"`
	// Definition is the handler object as written in the file (compact JSON), handed to the
	// host's evaluator for the types it runs (prompt, agent, mcp_tool); nil for other types.
	Definition []byte
	// StatusMessage is the text a host shows while the hook runs (Claude Code's spinner).
	StatusMessage string
	// ContinueOnBlock: a prompt or agent hook's "no" lets the turn go on with the reason as
	// feedback, on the events where it would otherwise end the turn.
	ContinueOnBlock bool
	// OnFailureBlock is Claude Code's onFailure "block" (any value but "continue"): a
	// failure, a timeout or a non-zero exit other than 2 blocks what the event guards
	// instead of being a non-blocking error (core/engine/onfailure.go says where not).
	OnFailureBlock bool
	// AsyncRewake runs the hook in the background (Async is set too); its exit 2 wakes the
	// agent through the host's listener.
	AsyncRewake bool
	// TimeoutSet: the file gave the timeout (it raises SessionEnd's shared budget).
	TimeoutSet bool
	// If is a permission rule ("Bash(git *)") the tool call must satisfy; only tool events
	// evaluate it, and on any other event the hook never runs.
	If string
	// Once: the hook runs at most once per session.
	Once bool
	// Plugin names the plugin whose hooks/hooks.json declared the hook ("" for settings
	// files); PluginRoot and PluginData are its ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA}.
	Plugin     string
	PluginRoot string
	PluginData string
	// Managed: the hook comes from managed policy settings.
	Managed bool
	// Shell is the handler's "shell" field: "" and "bash" both run the command with /bin/sh,
	// as Claude Code 2.1.330 does (live vector once_and_shell); "powershell" cannot run off
	// Windows: a non-blocking error.
	Shell string
	// Git built-ins (AutoAgent): git-commit's message template and --no-verify; git-push's
	// remote and branch ("current" is the checked-out branch).
	Message  string
	NoVerify bool
	Remote   string
	Branch   string
	// CommandWindows is Codex's commandWindows: the command run on Windows instead.
	CommandWindows string
	// ContextLimit is Codex's additionalContextLimit: the hook's additional context is cut
	// to about this many tokens (0: Codex's default, 2500).
	ContextLimit int
	Timeout      time.Duration // resolved: the profile default when the file sets none
	Cwd          string        // working directory, "~" expanded; "" means the project dir
	Env          []string      // the hook's own KEY=VALUE pairs, in file order
	Async        bool          // started and not awaited
	// FailClosed makes a timeout, spawn failure, crash or unparseable output block.
	FailClosed bool
	// Blocking makes any non-zero exit block, as failures do with FailClosed (mycode, AutoAgent).
	Blocking   bool
	PipeOutput bool // output handed to the agent (iteratr)
	Sequential bool // run after the previous hook of the fire finished, not in parallel
	// Persistent keeps one process of the command running across fires, speaking the
	// one-line JSON protocol on its stdin and stdout (see core/persist).
	Persistent bool
	// PerSession (with Persistent; "persistent": "session") keeps the process to the
	// callers of one environment: through the daemon, an engine holding such a hook is
	// not shared by sessions whose environments differ. false: one process serves every
	// caller of the engine.
	PerSession bool
	// Workers (with Persistent) declares the hook stateless and runs that many processes
	// of it, so as many fires are served in parallel; 0 means one process, one queue.
	Workers int
	// StopOnBlock: once this hook blocks, the later hooks of the fire are not run (AutoAgent).
	StopOnBlock bool
	Source      string
	Dialect     *Dialect
	// Disabled is the reason the hook does not run ("" when it runs).
	Disabled string
	// DuplicateOf is the id of an identical handler of higher precedence that runs instead.
	DuplicateOf string
	// Path is where the handler is written in its file ("hooks.Stop[0].hooks[1]"), Group
	// the path of the matcher group holding it ("" for a flat entry), and Line the handler's
	// line (0 when unknown).
	Path  string
	Group string
	Line  int
}

// MatcherPath is the path of the "matcher" field that applies to the hook.
func (h *Hook) MatcherPath() string {
	if h.Group != "" {
		return h.Group + ".matcher"
	}
	if h.Path == "" {
		return ""
	}
	return h.Path + ".matcher"
}

// Enabled reports whether the hook runs.
func (h Hook) Enabled() bool { return h.Disabled == "" }

// CommandTemplate is the command with the dialect's own variable syntax turned into
// placeholders (Dialect.Vars); other dialects return Command unchanged.
func (h *Hook) CommandTemplate() string {
	if h.Dialect == nil || h.Dialect.Vars == nil {
		return h.Command
	}
	return h.Dialect.Vars(h.Command)
}

// Warning is one problem found while loading; Hook is "" for file-level problems.
type Warning struct {
	Source string `json:"source"`
	// Line (1-based) and Path ("hooks.PreToolUse[0].matcher") say where in Source; 0 and ""
	// when the problem is about the whole file or the position is unknown.
	Line    int    `json:"line,omitempty"`
	Path    string `json:"path,omitempty"`
	Hook    string `json:"hook,omitempty"`
	Message string `json:"message"`
	// Error marks problems that disabled a hook or a file, as opposed to advice.
	Error bool `json:"error"`
}

// Severity is "error" or "warning": Error in words.
func (w Warning) Severity() string {
	if w.Error {
		return "error"
	}
	return "warning"
}

// MarshalJSON adds "severity" to the fields, for readers of the JSON.
func (w Warning) MarshalJSON() ([]byte, error) {
	type plain Warning
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // sources like "<inline>" stay readable
	err := enc.Encode(struct {
		plain
		Severity string `json:"severity"`
	}{plain(w), w.Severity()})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// String renders "file:line path: message" (editors jump to file:line).
func (w Warning) String() string {
	s := w.Source
	if w.Line > 0 {
		s += ":" + strconv.Itoa(w.Line)
	}
	switch {
	case w.Path != "":
		s += " " + w.Path
	case w.Hook != "":
		s += ": hook " + w.Hook
	}
	return s + ": " + w.Message
}

// File is one configuration file read in its dialect, before merging.
type File struct {
	Dialect     *Dialect
	Hooks       []Hook
	Warnings    []Warning
	DisableAll  *bool    // disableAllHooks, when the file sets it
	DisabledIDs []string // disabledHooks
	// AllowManagedHooksOnly and AllowedHTTPHookURLs are Claude Code's policy settings, when
	// the file sets them (nil: not set; an empty list allows no URL).
	AllowManagedHooksOnly *bool
	AllowedHTTPHookURLs   []string
	// HTTPHookEnvVars is httpHookAllowedEnvVars: when the file defines it (non-nil, maybe
	// empty), only these variables may be interpolated into http hooks' headers.
	HTTPHookEnvVars []string
}

// Read translates one file: data in dialect d, detected from source's name and shape when
// d is nil. Its error means nothing of the file could be read.
func Read(source string, data []byte, d *Dialect) (*File, error) {
	v, d, err := parse(source, data, d)
	if err != nil {
		return nil, err
	}
	r := &Reader{source: source, unit: d.Unit, dialect: d, f: File{Dialect: d}}
	if err := d.Load(r, data, v); err != nil {
		return nil, err
	}
	return &r.f, nil
}

// parse reads data as JSON unless the dialect is YAML, and detects the dialect when unknown.
func parse(source string, data []byte, d *Dialect) (*fastjson.Value, *Dialect, error) {
	if d != nil && (d.YAML || d.Script) || (d == nil || d == Codex) && isTOML(source) {
		if d == nil {
			d = Detect(source, nil)
		}
		if d == nil {
			return nil, nil, fmt.Errorf("unrecognised configuration: a .toml file is read only as Codex's config.toml, in a .codex directory")
		}
		return nil, d, nil
	}
	v, err := fastjson.ParseBytes(data)
	switch {
	case err != nil && d == nil:
		if det := Detect(source, nil); det != nil && (det.YAML || det.Script) {
			return nil, det, nil
		}
		return nil, nil, fmt.Errorf("invalid JSON: %v", err)
	case err != nil:
		return nil, nil, fmt.Errorf("invalid JSON: %v", err)
	case v.Type() != fastjson.TypeObject:
		return nil, nil, fmt.Errorf("top level is %s, want an object", v.Type())
	}
	if d == nil {
		d = Detect(source, v)
	}
	if d == nil {
		return nil, nil, fmt.Errorf("unrecognised configuration shape (want a \"hooks\" object keyed by event name, autohand's {\"hooks\": {\"hooks\": [...]}}, or an .iteratr.hooks.yml)")
	}
	return v, d, nil
}
