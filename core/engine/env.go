package engine

import (
	"fmt"
	"maps"
	"strings"

	"github.com/hookexec/hookexec/core/payload"
)

// envVar is an environment variable filled from the first payload path that is present.
type envVar struct {
	name  string
	paths []payload.Path
}

func vars(spec ...[]string) []envVar {
	out := make([]envVar, len(spec))
	for i, s := range spec {
		out[i].name = s[0]
		for _, x := range s[1:] {
			p, err := payload.Compile(x)
			if err != nil {
				panic("hookexec: bad built-in env path " + x) // a programming error, caught by tests
			}
			out[i].paths = append(out[i].paths, p)
		}
	}
	return out
}

// payloadEnv is seed 001's HOOK_* table and seed 002's short names (TOOL_NAME, FILE_PATH,
// EXIT_CODE: the tool's exit code), each set only when the
// payload has the field. HOOK_EVENT, HOOK_WORKSPACE, HOOK_SESSION_ID and CLAUDE_PROJECT_DIR
// are always set (see fireEnv).
var payloadEnv = vars(
	[]string{"HOOK_TOOL", "tool_name"},
	[]string{"HOOK_TOOL_CALL_ID", "tool_call_id", "tool_use_id"},
	[]string{"HOOK_ARGS", "tool_input"},
	[]string{"HOOK_SUCCESS", "success", "tool_success"},
	[]string{"HOOK_OUTPUT", "tool_response", "output"},
	[]string{"HOOK_DURATION", "duration_ms", "duration", "execution_time", "turn_duration"},
	[]string{"HOOK_PATH", "path", "file_path", "tool_input.file_path", "tool_input.path"},
	[]string{"HOOK_CHANGE_TYPE", "change_type"},
	[]string{"HOOK_INSTRUCTION", "instruction", "prompt"},
	[]string{"HOOK_MENTIONED_FILES", "mentioned_files"},
	[]string{"HOOK_TOKENS", "tokens", "tokens_used"},
	[]string{"HOOK_TOOL_CALLS_COUNT", "tool_calls_count"},
	[]string{"HOOK_TURN_TOOL_CALLS", "turn_tool_calls"},
	[]string{"HOOK_TURN_DURATION", "turn_duration"},
	[]string{"HOOK_ERROR", "error"},
	[]string{"HOOK_ERROR_CODE", "error_code"},
	[]string{"HOOK_SESSION_TYPE", "session_type", "source"},
	[]string{"HOOK_SESSION_END_REASON", "session_end_reason", "reason"},
	[]string{"HOOK_SUBAGENT_ID", "subagent_id"},
	[]string{"HOOK_SUBAGENT_NAME", "subagent_name"},
	[]string{"HOOK_SUBAGENT_TYPE", "subagent_type", "agent_type"},
	[]string{"HOOK_SUBAGENT_SUCCESS", "subagent_success"},
	[]string{"HOOK_SUBAGENT_ERROR", "subagent_error"},
	[]string{"HOOK_SUBAGENT_DURATION", "subagent_duration"},
	[]string{"HOOK_PERMISSION_TYPE", "permission_type"},
	[]string{"HOOK_NOTIFICATION_TYPE", "notification_type"},
	[]string{"HOOK_NOTIFICATION_MSG", "notification_message", "message"},
	[]string{"TOOL_NAME", "tool_name"},
	[]string{"FILE_PATH", "file_path", "tool_input.file_path", "tool_input.path", "path"},
	append([]string{"EXIT_CODE", "exit_code"}, exitCodeFallback...),
)

// exitCodeFallback is where a tool's exit code is when the payload has no exit_code; a
// mycode command's $EXIT_CODE reads the same places.
var exitCodeFallback = []string{"tool_response.exit_code", "tool_response.exitCode"}

// maxEnvValue bounds a payload value copied into the environment. Linux refuses to exec
// with a single string over 128 KiB (E2BIG), which would stop every hook of the fire —
// guards included — so a larger value is left out with a warning: stdin has it whole.
const maxEnvValue = 32 << 10

// hostEnv is the host's environment as it is now, then Options.Env, in a slice of its own.
func (e *Engine) hostEnv() []string {
	host := e.environ()
	env := make([]string, 0, len(host)+len(e.env)+len(payloadEnv)+8)
	return append(append(env, host...), e.env...)
}

// getenv reads a variable of the host's environment as hooks get it (hostEnv: Env over
// Environ), as it is now. What the engine reads of its host (where Gemini CLI and Qwen
// Code keep their system settings, the trust mode, PATH) comes from there, not from this
// process: the daemon, which clears its own environment, then reads the calling agent's
// values as an in-process engine does. Every name it is asked for is recorded with the
// value it gave (EnvRead): what the engine's behaviour depends on.
func (e *Engine) getenv() func(string) string {
	env := e.hostEnv()
	return func(key string) string {
		v, _ := lookup(env, key)
		e.readMu.Lock()
		if e.read == nil {
			e.read = map[string]string{}
		}
		e.read[key] = v
		e.readMu.Unlock()
		return v
	}
}

// EnvRead is every environment variable the engine read of its host while loading (at
// Open and every Reload since), with the value it got: "" for one unset or empty, which
// it does not tell apart. Two callers whose environments agree on these names load the
// same engine; the rest of their environments only reaches hooks (FireAs). The map is
// the caller's own.
func (e *Engine) EnvRead() map[string]string {
	e.readMu.Lock()
	defer e.readMu.Unlock()
	return maps.Clone(e.read)
}

// PerSession says whether an enabled hook of the configuration is declared
// "persistent": "session": its process must serve callers of one environment only, so
// the engine is not to be shared by callers whose environments differ anywhere.
func (e *Engine) PerSession() bool {
	for _, h := range e.plan.Load().hooks {
		if h.cfg.PerSession && h.cfg.Enabled() {
			return true
		}
	}
	return false
}

// fireEnv is the environment shared by every hook of one fire: the host's as it is at the
// fire (with FireAs's own in place of Options.Env when own), then the event's variables, starting at index eventAt (HOOK_EVENT). Each hook's own
// env is appended after it (later entries win). Values that cannot go into an environment
// (too large, or holding a NUL byte) are left out, and each omission is returned as a warning.
func (e *Engine) fireEnv(name string, doc *payload.Doc, session string, extra []string, own bool) (env []string, eventAt int, warnings []string) {
	if own { // FireAs: the caller's environment in place of Options.Env
		host := e.environ()
		env = make([]string, 0, len(host)+len(extra)+len(payloadEnv)+8)
		env = append(append(env, host...), extra...)
	} else {
		env = append(e.hostEnv(), extra...)
	}
	eventAt = len(env)
	env = append(env,
		"HOOK_EVENT="+name,
		"HOOK_WORKSPACE="+e.opts.ProjectDir,
		"HOOK_SESSION_ID="+session,
		"SESSION_ID="+session,
		"CWD="+e.opts.ProjectDir,
		"CLAUDE_PROJECT_DIR="+e.opts.ProjectDir,
	)
	for _, v := range payloadEnv {
		for _, p := range v.paths {
			x := doc.Get(p)
			if x == nil {
				continue
			}
			val := payload.Render(x)
			switch {
			case len(val) > maxEnvValue:
				warnings = append(warnings, fmt.Sprintf("%s left out of the environment: %d bytes is over %d (the payload on stdin has it)", v.name, len(val), maxEnvValue))
			case strings.IndexByte(val, 0) >= 0:
				warnings = append(warnings, v.name+" left out of the environment: it contains a NUL byte (the payload on stdin has it)")
			default:
				env = append(env, v.name+"="+val)
			}
			break
		}
	}
	return env, eventAt, warnings
}
