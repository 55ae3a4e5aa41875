package config

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
)

// Dialect is the shape a configuration file is written in, and with it how its hooks are
// run: the unit of a bare timeout number, the default timeout, what a hook gets on stdin,
// how the event is spelt to it, and whether the hooks of one fire run one after another.
type Dialect uint8

const (
	DialectUnknown Dialect = iota
	// DialectClaude: {"hooks": {"Event": [{matcher, hooks: [...]}, or flat {matcher, type, command}]}}.
	// Claude Code and cli-agent write it. Timeouts in seconds.
	DialectClaude
	// DialectMycode: Claude's shape as mycode/GenCode reads it (seed 002): timeouts in ms,
	// a "blocking" flag, and $TOOL_NAME-style variables substituted into the command.
	DialectMycode
	// DialectAutohand: {"hooks": {"enabled": bool, "hooks": [{event, command, ...}]}} (seed 001).
	DialectAutohand
	// DialectAutoAgent: .autoagent/config.json, flat hooks keyed by Pre*/Post* event (seed 000).
	DialectAutoAgent
	// DialectIteratr: .iteratr.hooks.yml (seed 004).
	DialectIteratr
)

type dialectInfo struct {
	name string
	unit time.Duration // what a bare "timeout" number means
	// timeout is the default for hooks that set none; 0 means the profile's default.
	timeout  time.Duration
	envelope payload.Envelope
	// sequential: the hooks of one fire run one after another, in config order.
	sequential bool
	// stopOnBlock: once a hook blocks, the rest of the fire is not run.
	stopOnBlock bool
}

var dialects = [...]dialectInfo{
	DialectUnknown:   {name: "unknown", unit: time.Second},
	DialectClaude:    {name: "claude", unit: time.Second},
	DialectMycode:    {name: "mycode", unit: time.Millisecond, timeout: 60 * time.Second},
	DialectAutohand:  {name: "autohand", unit: time.Millisecond, timeout: 5 * time.Second},
	DialectAutoAgent: {name: "autoagent", unit: time.Millisecond, timeout: 60 * time.Second, envelope: payload.AutoAgent, sequential: true, stopOnBlock: true},
	DialectIteratr:   {name: "iteratr", unit: time.Second, timeout: 30 * time.Second, sequential: true},
}

func (d Dialect) info() dialectInfo {
	if int(d) < len(dialects) {
		return dialects[d]
	}
	return dialects[DialectUnknown]
}

func (d Dialect) String() string { return d.info().name }

// Envelope is the set of fields put around the payload on the stdin of the dialect's hooks.
func (d Dialect) Envelope() payload.Envelope { return d.info().envelope }

// autohandNames spells canonical events the way autohand's hooks see them (HOOK_EVENT,
// hook_event_name); iteratrNames likewise for iteratr.
var autohandNames = map[string]string{
	"PreToolUse": "pre-tool", "PostToolUse": "post-tool", "FileModified": "file-modified",
	"UserPromptSubmit": "pre-prompt", "Stop": "stop", "SessionStart": "session-start",
	"SessionEnd": "session-end", "SessionError": "session-error", "SubagentStop": "subagent-stop",
	"PermissionRequest": "permission-request", "Notification": "notification",
}

var iteratrNames = map[string]string{
	"SessionStart": "session_start", "PreIteration": "pre_iteration", "PostIteration": "post_iteration",
	"SessionEnd": "session_end", "TaskComplete": "on_task_complete", "SessionError": "on_error",
}

// EventName is how the dialect's hooks see the event the host fired as fired (canonical
// name canonical). Claude-shaped hooks see the host's spelling; autohand and iteratr hooks
// see their own even when the host uses Claude Code's names.
func (d Dialect) EventName(fired, canonical string) string {
	var names map[string]string
	switch d {
	case DialectAutohand:
		names = autohandNames
	case DialectIteratr:
		names = iteratrNames
	default:
		return fired
	}
	if d == DialectAutohand && fired == "post-response" {
		return fired // autohand's own alias of stop
	}
	if n, ok := names[canonical]; ok {
		return n
	}
	return fired
}

// detect recognises a file's dialect from its name and shape. v is nil when the file is
// not JSON.
func detect(path string, v *fastjson.Value) Dialect {
	base := filepath.Base(path)
	if v == nil {
		if strings.HasSuffix(base, ".yml") || strings.HasSuffix(base, ".yaml") {
			return DialectIteratr
		}
		return DialectUnknown
	}
	hooks := v.Get("hooks")
	if hooks != nil && hooks.Type() == fastjson.TypeObject {
		if inner := hooks.Get("hooks"); inner != nil && inner.Type() == fastjson.TypeArray {
			return DialectAutohand
		}
		if e := hooks.Get("enabled"); e != nil && (e.Type() == fastjson.TypeTrue || e.Type() == fastjson.TypeFalse) {
			return DialectAutohand
		}
	} else if hooks != nil {
		return DialectUnknown
	}
	if looksAutoAgent(path, v) {
		return DialectAutoAgent
	}
	if inDir(path, ".gen") || inDir(path, ".mycode") || hasHandlerKey(hooks, "blocking") {
		return DialectMycode
	}
	return DialectClaude
}

func inDir(path, dir string) bool { return filepath.Base(filepath.Dir(path)) == dir }

// autoAgentKeys are top-level settings only AutoAgent's config.json has.
var autoAgentKeys = []string{"providers", "failoverDelay", "retryAttempts", "rateLimitCooldown", "gitAutoCommit", "gitAutoPush"}

func looksAutoAgent(path string, v *fastjson.Value) bool {
	if inDir(path, ".autoagent") {
		return true
	}
	for _, k := range autoAgentKeys {
		if v.Exists(k) {
			return true
		}
	}
	return anyHandler(v.Get("hooks"), func(ev string, h *fastjson.Value, flat bool) bool {
		if t := string(h.GetStringBytes("type")); t == "git-commit" || t == "git-push" {
			return true
		}
		// A flat hook under an AutoAgent lifecycle name (PreExecutionStart, ...).
		return flat && !event.Lookup(ev).Known && event.LooksOpenEnded(ev)
	})
}

// hasHandlerKey reports whether any handler under hooks has key.
func hasHandlerKey(hooks *fastjson.Value, key string) bool {
	return anyHandler(hooks, func(_ string, h *fastjson.Value, _ bool) bool { return h.Exists(key) })
}

// anyHandler reports whether pred holds for a handler of a Claude-shaped hooks object:
// a flat entry under an event key, or one inside a matcher group's "hooks".
func anyHandler(hooks *fastjson.Value, pred func(event string, h *fastjson.Value, flat bool) bool) bool {
	if hooks == nil {
		return false
	}
	obj, err := hooks.Object()
	if err != nil {
		return false
	}
	found := false
	obj.Visit(func(k []byte, list *fastjson.Value) {
		arr, _ := list.Array()
		for _, entry := range arr {
			inner := entry.Get("hooks")
			if inner == nil {
				found = found || pred(string(k), entry, true)
				continue
			}
			handlers, _ := inner.Array()
			for _, h := range handlers {
				found = found || pred(string(k), h, false)
			}
		}
	})
	return found
}
