package config

import (
	"fmt"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/valyala/fastjson"
)

// autohandKeys are the fields of one entry of autohand's hooks.hooks list (seed 001), plus
// the handler fields every dialect shares.
var autohandKeys = func() map[string]bool {
	m := keySet("event", "filter")
	for k := range flatKeys {
		m[k] = true
	}
	return m
}()

// autohand reads {"hooks": {"enabled": bool, "hooks": [{event, command, matcher, filter, ...}]}}.
// hooks.enabled false keeps every hook of the file, disabled.
func (p *parser) autohand(v *fastjson.Value) {
	hooks := v.Get("hooks")
	if hooks == nil {
		return
	}
	enabled := true
	if e := hooks.Get("enabled"); e != nil {
		enabled = p.boolean("hooks", "enabled", e)
	}
	p.unknownKeys("hooks", hooks, keySet("enabled", "hooks"))
	list := hooks.Get("hooks")
	if list == nil {
		return
	}
	items, err := list.Array()
	if err != nil {
		p.skip("hooks.hooks is %s, want an array", list.Type())
		return
	}
	for i, item := range items {
		where := fmt.Sprintf("hooks.hooks[%d]", i)
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
}

// filter reads {"tool": [names], "path": [globs]}.
func (p *parser) filter(where string, f *fastjson.Value, h *Hook) {
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
