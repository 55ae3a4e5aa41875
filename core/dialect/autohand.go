package dialect

import (
	"fmt"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
)

// Autohand is ~/.autohand/config.json (seed 001): {"hooks": {"enabled": bool, "hooks":
// [{event, command, matcher, filter, ...}]}}. Matchers are always regexes, timeouts in ms
// (default 5 s), events spelt pre-tool/stop/..., the Claude envelope with the event spelt its way, and every
// fire announced to the listener as a JSON-RPC notification.
var Autohand = &Dialect{
	Name:       "autohand",
	Unit:       time.Millisecond,
	Timeout:    5 * time.Second,
	Envelope:   payload.Claude,
	Names:      autohandNames,
	OwnAliases: map[string]bool{"post-response": true}, // autohand's own alias of stop
	Templates:  true,
	Notifies:   true,
	Detect:     func(_ string, v *fastjson.Value) bool { return autohandShaped(v) },
	Load:       loadAutohand,
}

// autohandNames spells canonical events the way autohand's hooks see them (HOOK_EVENT,
// hook_event_name).
var autohandNames = map[string]string{
	"PreToolUse": "pre-tool", "PostToolUse": "post-tool", "FileModified": "file-modified",
	"UserPromptSubmit": "pre-prompt", "Stop": "stop", "SessionStart": "session-start",
	"SessionEnd": "session-end", "SessionError": "session-error", "SubagentStop": "subagent-stop",
	"PermissionRequest": "permission-request", "Notification": "notification",
}

// autohandShaped: "hooks" is an object holding a "hooks" list or an "enabled" flag.
func autohandShaped(v *fastjson.Value) bool {
	if v == nil {
		return false
	}
	hooks := v.Get("hooks")
	if hooks == nil || hooks.Type() != fastjson.TypeObject {
		return false
	}
	if inner := hooks.Get("hooks"); inner != nil && inner.Type() == fastjson.TypeArray {
		return true
	}
	e := hooks.Get("enabled")
	return e != nil && (e.Type() == fastjson.TypeTrue || e.Type() == fastjson.TypeFalse)
}

// autohandKeys are the fields of one entry of autohand's hooks.hooks list (seed 001), plus
// the handler fields every dialect shares.
var autohandKeys = func() map[string]bool {
	m := keySet("event", "filter")
	for k := range flatKeys {
		m[k] = true
	}
	return m
}()

// loadAutohand reads {"hooks": {"enabled": bool, "hooks": [{event, command, matcher, filter, ...}]}}.
// hooks.enabled false keeps every hook of the file, disabled.
func loadAutohand(p *Reader, _ []byte, v *fastjson.Value) error {
	hooks := v.Get("hooks")
	if hooks == nil {
		return nil
	}
	enabled := true
	if e := hooks.Get("enabled"); e != nil {
		enabled = p.boolean("hooks", "enabled", e)
	}
	p.unknownKeys("hooks", hooks, keySet("enabled", "hooks"))
	list := hooks.Get("hooks")
	if list == nil {
		return nil
	}
	items, err := list.Array()
	if err != nil {
		p.skip("hooks.hooks is %s, want an array", list.Type())
		return nil
	}
	defer func() { p.at = "" }()
	for i, item := range items {
		where := fmt.Sprintf("hooks.hooks[%d]", i)
		p.at = where
		if item.Type() != fastjson.TypeObject {
			p.skip("%s is %s, want an object", where, item.Type())
			continue
		}
		name := p.optStr(where, "event", item)
		if name == "" {
			p.skip("%s has no \"event\"", where)
			continue
		}
		ev, problem := checkEvent(name)
		h := p.hook(where, item, Hook{Event: ev.Name, RegexMatcher: true}, autohandKeys)
		if f := item.Get("filter"); f != nil {
			p.filter(where, f, &h)
		}
		if !enabled && h.Disabled == "" {
			h.Disabled = "hooks.enabled is false"
		}
		p.add(&h, where, ev, problem)
	}
	return nil
}

// filter reads {"tool": [names], "path": [globs]}.
func (p *Reader) filter(where string, f *fastjson.Value, h *Hook) {
	if f.Type() != fastjson.TypeObject {
		p.disable(h, where, "filter is %s, want an object with \"tool\" and/or \"path\"", f.Type())
		return
	}
	p.unknownKeys(where+".filter", f, keySet("tool", "path"))
	if t := f.Get("tool"); t != nil {
		h.FilterTools = p.strings(where+".filter", "tool", t)
	}
	if x := f.Get("path"); x != nil {
		h.FilterPaths = p.strings(where+".filter", "path", x)
		for _, g := range h.FilterPaths {
			if !doublestar.ValidatePattern(g) {
				p.disable(h, where, "filter.path %q is not a valid glob", g)
			}
		}
	}
}
