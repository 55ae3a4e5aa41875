package dialect

import (
	"regexp"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
)

// Mycode is Claude Code's shape as mycode/GenCode reads it (seed 002): timeouts in ms
// (default 60 s), a "blocking" flag, and $TOOL_NAME-style variables substituted into the
// command. Recognised by a .gen or .mycode directory or a "blocking" field on a handler.
var Mycode = &Dialect{
	Name:             "mycode",
	Unit:             time.Millisecond,
	Timeout:          60 * time.Second,
	Envelope:         payload.Claude,
	CanonicalOnStdin: true,
	Templates:        true,
	Vars:             mycodeVarsToPlaceholders,
	Detect: func(path string, v *fastjson.Value) bool {
		return claudeShaped(v) && (inDir(path, ".gen") || inDir(path, ".mycode") || hasHandlerKey(v.Get("hooks"), "blocking"))
	},
	Load: loadClaudeShape,
}

// mycodeVars are the variables mycode substitutes into a command before running it
// (seed 002's expandVariables), with the payload field each one reads.
var mycodeVars = map[string]string{
	"TOOL_NAME":  "tool_name",
	"FILE_PATH":  "tool_input.file_path",
	"SESSION_ID": "session_id",
	"CWD":        "cwd",
	"EXIT_CODE":  "exit_code",
}

var mycodeVarRE = regexp.MustCompile(`\$(?:\{(TOOL_NAME|FILE_PATH|SESSION_ID|CWD|EXIT_CODE)\}|(TOOL_NAME|FILE_PATH|SESSION_ID|CWD|EXIT_CODE)\b)`)

// mycodeVarsToPlaceholders turns $FILE_PATH and ${FILE_PATH} (and the other four names)
// into <<tool_input.file_path>> and so on, so that the value is substituted and quoted for
// its context, as mycode does, even inside '...'.
func mycodeVarsToPlaceholders(command string) string {
	return mycodeVarRE.ReplaceAllStringFunc(command, func(m string) string {
		sub := mycodeVarRE.FindStringSubmatch(m)
		return "<<" + mycodeVars[sub[1]+sub[2]] + ">>"
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
