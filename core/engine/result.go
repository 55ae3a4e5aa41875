package engine

import (
	"bytes"
	"encoding/json"
)

// Result is the outcome of one fire (SPEC §7). Field order is the JSON order.
type Result struct {
	Event             string          `json:"event"`
	Matched           int             `json:"matched"`
	Blocked           bool            `json:"blocked"`
	Decision          string          `json:"decision"` // "none", "allow", "ask", "deny"
	Reason            string          `json:"reason"`
	Continue          bool            `json:"continue"`
	StopReason        string          `json:"stop_reason"`
	UpdatedInput      json.RawMessage `json:"updated_input"` // null when no hook changed the input
	AdditionalContext string          `json:"additional_context"`
	SystemMessage     string          `json:"system_message"`
	AgentOutput       []string        `json:"agent_output"` // piped output for the agent now; see agentOutput
	// Env holds the exports hooks wrote to CLAUDE_ENV_FILE (SessionStart, Setup, CwdChanged,
	// FileChanged), for the host to apply to the commands it runs later; empty otherwise.
	Env map[string]string `json:"env"`
	// WorktreePath is the directory a WorktreeCreate hook created; "" otherwise.
	WorktreePath string       `json:"worktree_path"`
	DurationMs   float64      `json:"duration_ms"`
	Warnings     []string     `json:"warnings"`
	Hooks        []HookResult `json:"hooks"`
	// Claude Code's output fields, for the host to act on; folded in config order.
	UpdatedToolOutput  json.RawMessage `json:"updated_tool_output"` // PostToolUse: replaces the tool's output; null for none
	UpdatedPermissions json.RawMessage `json:"updated_permissions"` // PermissionRequest allow: update entries; null for none
	Interrupt          bool            `json:"interrupt"`           // PermissionRequest deny: stop the agent
	Retry              bool            `json:"retry"`               // PermissionDenied: the model may retry
	SessionTitle       string          `json:"session_title"`       // SessionStart, UserPromptSubmit
	InitialUserMessage string          `json:"initial_user_message"`
	WatchPaths         []string        `json:"watch_paths"` // SessionStart, FileChanged: paths to watch
	ReloadSkills       bool            `json:"reload_skills"`
	TerminalSequence   string          `json:"terminal_sequence"` // allowlisted OSC/BEL bytes to write to the terminal
	// ClassifierContext is PostToolUse's classifierContext, one entry per hook in config
	// order, sharing a budget of 2,000 UTF-16 code units: for an auto-mode classifier.
	ClassifierContext []string `json:"classifier_context"`
	// AwaitingApproval lists the project-level hooks the fire selected but did not run
	// (trust "project"), in config order; they neither block nor allow.
	AwaitingApproval []Awaiting `json:"awaiting_approval"`
}

// HookResult is what one hook of a fire did, in config order.
type HookResult struct {
	ID      string `json:"id"`
	Source  string `json:"source"`
	Matcher string `json:"matcher"`
	Command string `json:"command"`
	// Exec is how the hook ran: "direct", "shell", "args", "builtin", "http", or the type the
	// host evaluated ("prompt", "agent", "mcp_tool").
	Exec            string          `json:"exec"`
	ExitCode        int             `json:"exit_code"`
	Signal          string          `json:"signal"`
	TimedOut        bool            `json:"timed_out"`
	DurationMs      float64         `json:"duration_ms"`
	Stdout          string          `json:"stdout"`
	Stderr          string          `json:"stderr"`
	StdoutTruncated bool            `json:"stdout_truncated"`
	StderrTruncated bool            `json:"stderr_truncated"`
	Output          json.RawMessage `json:"output"` // stdout parsed as JSON, else null (null too when a value-fed hook's answer was cut: valuefed.go)
	Decision        string          `json:"decision"`
	Error           string          `json:"error"`
	Async           bool            `json:"async"`
	HTTPStatus      int             `json:"http_status"`    // an http hook's response status; 0 for none
	StatusMessage   string          `json:"status_message"` // the hook's statusMessage

	failClosed bool // it failed and blocks anyway (execute.go finish); for observers
}

// JSON encodes the result. Slices are never null so hosts can iterate without checks.
func (r *Result) JSON() []byte {
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	if r.AgentOutput == nil {
		r.AgentOutput = []string{}
	}
	if r.Env == nil {
		r.Env = map[string]string{}
	}
	if r.Hooks == nil {
		r.Hooks = []HookResult{}
	}
	if r.WatchPaths == nil {
		r.WatchPaths = []string{}
	}
	if r.ClassifierContext == nil {
		r.ClassifierContext = []string{}
	}
	if r.AwaitingApproval == nil {
		r.AwaitingApproval = []Awaiting{}
	}
	b, err := marshal(r)
	if err != nil {
		// Every field is a plain value or validated raw JSON; this cannot happen.
		return []byte(`{"error":"hookexec: result encoding failed"}`)
	}
	return b
}

// marshal is json.Marshal without HTML escaping: hosts read "<inline>", not "\u003cinline\u003e".
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func emptyResult(event string) *Result {
	return &Result{Event: event, Decision: "none", Continue: true}
}
