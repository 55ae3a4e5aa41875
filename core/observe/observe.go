// Package observe is what a fire hands, after its decision, to whatever watches the engine:
// OpenTelemetry (core/telemetry) and the audit log (core/audit). It is the last step of the
// one-way flow config → match → template → run → decide → result → observe, and holds only
// data: an observer sees a finished fire and can change nothing of it.
//
// The engine builds a Fire only when at least one Sink is configured, so an engine without
// observers pays nothing for this package.
package observe

import "time"

// Sink receives every fire of an engine once it is decided. Observe is called on the
// firing goroutine, after the result is final and before Fire returns, from many goroutines
// at once: it must not block (queue the work, drop and count when the queue is full) and
// must not panic. The Fire and everything it points to are never modified afterwards, so a
// sink may keep them.
type Sink interface {
	Observe(f *Fire)
	// Close flushes what is queued, waiting at most until the deadline, and stops the sink.
	// The engine calls it once, from its own Close.
	Close(deadline time.Time) error
}

// Fire is one decided fire.
type Fire struct {
	Start    time.Time
	Duration time.Duration
	// Event is the canonical event name; FiredAs the host's spelling when it differs.
	Event   string
	FiredAs string
	// Profile is the engine's profile (the agent it runs for: "claude", "codex", ...).
	Profile   string
	SessionID string
	// Subject is what the event's matcher is matched against (the tool name for tool
	// events), and SubjectField the payload field it comes from ("tool_name").
	Subject      string
	SubjectField string
	// Payload is the fire's input as the host gave it (a JSON object). UpdatedInput is the
	// rewritten tool input when a hook changed it, else nil.
	Payload      []byte
	UpdatedInput []byte
	Matched      int
	Blocked      bool
	Decision     string // "none", "allow", "ask", "deny"
	Reason       string
	Continue     bool
	StopReason   string
	Warnings     []string
	Hooks        []Hook // the hooks that were selected, in config order
	// TraceParent and TraceState are the W3C trace context of the caller when its
	// environment (the one hooks get) holds TRACEPARENT / TRACESTATE, else "".
	TraceParent string
	TraceState  string
}

// Hook is what one selected hook did in a fire.
type Hook struct {
	ID      string
	Source  string // the file that defines it ("<inline>" for the inline config)
	Line    int    // its line in Source; 0 when unknown
	Type    string // "command", "http", "prompt", "agent", "mcp_tool", "policy", ...
	Exec    string // how it ran: "direct", "shell", "args", "builtin", "http", the evaluated type
	Matcher string
	Command string // the command line, URL, prompt or tool as configured
	// Start is when it started; zero for a hook that did not run (Ran false).
	Start      time.Time
	Duration   time.Duration
	Ran        bool
	Async      bool // started in the background; its outcome is not part of the fire
	ExitCode   int  // -1 when it did not exit (timeout, signal, not run)
	Signal     string
	TimedOut   bool
	Truncated  bool // stdout or stderr was cut at the output cap
	Decision   string
	Error      string
	Persistent bool
	// Warm: a persistent hook's process was already running when the fire reached it.
	Warm bool
}
