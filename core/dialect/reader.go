package dialect

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
)

// Reader translates one file; its warnings all name that file. Loaders of the dialects
// share its helpers for the shapes they have in common.
type Reader struct {
	source  string
	unit    time.Duration
	dialect *Dialect
	f       File
	at      string // path of the entry being read; warnings made meanwhile point at it
}

func (p *Reader) warn(hook, format string, args ...any) {
	p.f.Warnings = append(p.f.Warnings, Warning{Source: p.source, Path: p.at, Hook: hook, Message: fmt.Sprintf(format, args...)})
}

// disable keeps the hook, marks it as not running and records why as an error.
func (p *Reader) disable(h *Hook, label, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if h.Disabled == "" {
		h.Disabled = msg
	}
	p.f.Warnings = append(p.f.Warnings, Warning{Source: p.source, Path: p.at, Hook: label, Message: msg, Error: true})
}

// claudeShape reads Claude Code's settings shape (also cli-agent's, mycode's and AutoAgent's).
func loadClaudeShape(p *Reader, _ []byte, v *fastjson.Value) error {
	if b := v.Get("disableAllHooks"); b != nil {
		if b.Type() == fastjson.TypeTrue || b.Type() == fastjson.TypeFalse {
			val := b.Type() == fastjson.TypeTrue
			p.f.DisableAll = &val
		} else {
			p.warn("", "disableAllHooks is %s, want true or false; ignored", b.Type())
		}
	}
	if ids := v.Get("disabledHooks"); ids != nil {
		p.f.DisabledIDs = p.strings("", "disabledHooks", ids)
	}
	if b := v.Get("allowManagedHooksOnly"); b != nil {
		val := p.boolean("", "allowManagedHooksOnly", b)
		p.f.AllowManagedHooksOnly = &val
	}
	if u := v.Get("allowedHttpHookUrls"); u != nil {
		p.f.AllowedHTTPHookURLs = append([]string{}, p.strings("", "allowedHttpHookUrls", u)...)
	}
	if vars := v.Get("httpHookAllowedEnvVars"); vars != nil {
		p.f.HTTPHookEnvVars = append([]string{}, p.strings("", "httpHookAllowedEnvVars", vars)...)
	}
	obj := p.hooksObject(v)
	if obj == nil {
		return nil
	}
	obj.Visit(func(k []byte, list *fastjson.Value) {
		p.eventList(string(k), list)
	})
	return nil
}

// skip records an entry that is not read at all because of its shape.
func (p *Reader) skip(format string, args ...any) {
	p.f.Warnings = append(p.f.Warnings, Warning{Source: p.source, Path: p.at, Message: fmt.Sprintf(format, args...) + "; ignored", Error: true})
}

// eventList reads the array under one event key: matcher groups or flat hooks.
func (p *Reader) eventList(name string, list *fastjson.Value) {
	if name == "" {
		p.skip("hooks has an empty event name")
		return
	}
	ev, problem := checkEvent(name)
	p.at = "hooks." + name
	defer func() { p.at = "" }()
	items, err := list.Array()
	if err != nil {
		p.skip("hooks.%s is %s, want an array", name, list.Type())
		return
	}
	for i, item := range items {
		where := fmt.Sprintf("hooks.%s[%d]", name, i)
		p.at = where
		if item.Type() != fastjson.TypeObject {
			p.skip("%s is %s, want an object", where, item.Type())
			continue
		}
		group := Hook{Event: ev.Name, Group: where}
		inner := item.Get("hooks")
		if inner == nil {
			// Flat form: the entry is itself the handler.
			group.Group = ""
			h := p.hook(where, item, group, flatKeys)
			p.add(&h, where, ev, problem)
			continue
		}
		p.matcherField(where, item, &group)
		if s := item.Get("sequential"); s != nil {
			group.Sequential = p.boolean(where, "sequential", s)
		}
		p.unknownKeys(where, item, groupKeys)
		handlers, err := inner.Array()
		if err != nil {
			p.skip("%s.hooks is %s, want an array", where, inner.Type())
			continue
		}
		for j, hv := range handlers {
			hw := fmt.Sprintf("%s.hooks[%d]", where, j)
			p.at = hw
			if hv.Type() != fastjson.TypeObject {
				p.skip("%s is %s, want an object", hw, hv.Type())
				continue
			}
			h := p.hook(hw, hv, group, p.handlerKeys())
			p.add(&h, hw, ev, problem)
		}
	}
}

// checkEvent resolves an event key and says what is wrong with it, if anything.
func checkEvent(name string) (event.Info, string) {
	ev := event.Lookup(name)
	if ev.Known {
		return ev, ""
	}
	if s := event.Suggest(name); s != "" {
		return ev, fmt.Sprintf("unknown event %q (did you mean %q?)", name, s)
	}
	if !event.LooksOpenEnded(name) {
		return ev, fmt.Sprintf("unknown event %q (known: %s)", name, strings.Join(knownEvents(), ", "))
	}
	return ev, ""
}

func knownEvents() []string {
	var out []string
	for _, n := range event.Names() {
		if event.Canonical(n) == n {
			out = append(out, n)
		}
	}
	return out
}

// add validates what depends on the event and appends the hook.
func (p *Reader) add(h *Hook, where string, ev event.Info, problem string) {
	h.Path = where
	label := h.Name
	if label == "" {
		label = where
	}
	if problem != "" {
		p.disable(h, label, "%s", problem)
	}
	if m := strings.TrimSpace(h.Matcher); m != "" && m != "*" && !ev.TakesMatcher() {
		if p.dialect.StrayMatcherIgnored {
			p.warn(label, "matcher %q is ignored: %s has no matcher support and fires on every occurrence", h.Matcher, ev.Name)
		} else {
			p.disable(h, label, "matcher %q on %s, which takes no matcher (use \"*\" or leave it out)", h.Matcher, ev.Name)
		}
	}
	if p.dialect.TypeOnEvent != nil {
		if why := p.dialect.TypeOnEvent(h.Type, ev.Name); why != "" {
			p.disable(h, label, "%s", why)
		}
	}
	p.f.Hooks = append(p.f.Hooks, *h)
}

var groupKeys = keySet("matcher", "hooks", "sequential")

var hookKeys = keySet("type", "command", "args", "timeout", "working_directory", "cwd", "env",
	"async", "fail_closed", "name", "id", "pipe_output", "prompt", "sequential", "description",
	"enabled", "statusMessage", "model", "once", "blocking", "persistent", "workers", "if", "shell",
	"url", "headers", "allowedEnvVars", "server", "tool", "input", "asyncRewake", "continueOnBlock", "onFailure", // Claude Code's handler types
	"message", "noVerify", "remote", "branch", // AutoAgent's git built-ins
	"cel", "rego", "query", "decision", "reason") // type policy (policy.go)

func keySet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// hook reads one handler object; group carries the event, matcher and sequential flag.
// known lists the keys the object may have; with "matcher" among them it is read here.
func (p *Reader) hook(where string, v *fastjson.Value, group Hook, known map[string]bool) Hook {
	h := group
	h.Type = "command"
	if n := v.Get("name"); n != nil {
		h.Name = p.str(where, "name", n)
	} else if n := v.Get("id"); n != nil {
		h.Name = p.str(where, "id", n)
	}
	label := where
	if h.Name != "" {
		label = h.Name
	}
	bad := func(format string, args ...any) { p.disable(&h, label, format, args...) }
	if known["matcher"] {
		p.matcherField(where, v, &h)
	}
	p.unknownKeys(where, v, known)
	if t := v.Get("type"); t != nil {
		if t.Type() != fastjson.TypeString {
			bad("type is %s, want a string", t.Type())
		} else {
			h.Type = string(t.GetStringBytes())
		}
	}
	if !p.dialect.Accepts(h.Type) {
		bad("unknown type %q (want %s)", h.Type, strings.Join(append([]string{"command", "prompt", "policy"}, p.dialect.Types...), ", "))
	}
	if c := v.Get("command"); c != nil {
		if c.Type() != fastjson.TypeString {
			bad("command is %s, want a string", c.Type())
		} else {
			h.Command = string(c.GetStringBytes())
		}
	}
	if a := v.Get("args"); a != nil {
		arr, err := a.Array()
		if err != nil {
			bad("args is %s, want an array of strings", a.Type())
		}
		for i, e := range arr {
			if e.Type() != fastjson.TypeString {
				bad("args[%d] is %s, want a string", i, e.Type())
				break
			}
			h.Args = append(h.Args, string(e.GetStringBytes()))
		}
		if h.Command != "" && err == nil {
			// Claude Code's exec form: command is the program, args its arguments (even []).
			h.Args = append([]string{h.Command}, h.Args...)
			h.Command = ""
		}
	}
	h.If = p.optStr(where, "if", v)
	if x := v.Get("if"); x != nil && x.Type() == fastjson.TypeString && strings.TrimSpace(h.If) == "" {
		bad("if is empty; leave it out to run on every matching call")
	}
	h.Shell = p.optStr(where, "shell", v)
	switch h.Shell {
	case "", "bash", "powershell":
	default:
		p.warn(label, "shell %q is not \"bash\" or \"powershell\"; the command runs with /bin/sh", h.Shell)
	}
	if pr := v.Get("prompt"); pr != nil {
		if pr.Type() != fastjson.TypeString {
			bad("prompt is %s, want a string", pr.Type())
		} else {
			h.Prompt = string(pr.GetStringBytes())
		}
	}
	p.handlerTypeFields(where, v, &h, bad)
	p.policyFields(where, label, v, &h)
	h.Description = p.optStr(where, "description", v)
	h.Message = p.optStr(where, "message", v)
	h.Remote = p.optStr(where, "remote", v)
	h.Branch = p.optStr(where, "branch", v)
	switch {
	case h.Type == "git-commit" && strings.TrimSpace(h.Message) == "":
		bad("type git-commit needs a non-empty \"message\"")
	case h.Type == "git-commit" || h.Type == "git-push":
		if h.Command != "" || len(h.Args) > 0 {
			bad("type %s runs git itself; it takes no \"command\" or \"args\"", h.Type)
		}
	case h.Type == "command" && strings.TrimSpace(h.Command) == "" && len(h.Args) == 0:
		bad("type command needs a non-empty \"command\" or \"args\"")
	case (h.Type == "prompt" || h.Type == "agent") && strings.TrimSpace(h.Prompt) == "":
		bad("type %s needs a non-empty \"prompt\"", h.Type)
	case h.Type == "http" && strings.TrimSpace(h.URL) == "":
		bad("type http needs a non-empty \"url\"")
	case h.Type == "http" && !strings.HasPrefix(h.URL, "http://") && !strings.HasPrefix(h.URL, "https://"):
		bad("url %q is not an http:// or https:// URL", h.URL)
	case h.Type == "mcp_tool" && (strings.TrimSpace(h.Server) == "" || strings.TrimSpace(h.Tool) == ""):
		bad("type mcp_tool needs a non-empty \"server\" and \"tool\"")
	}
	if t := v.Get("timeout"); t != nil {
		f, err := t.Float64()
		switch {
		case err != nil:
			bad("timeout is %s, want a number", t.Type())
		case f <= 0 || math.IsNaN(f):
			bad("timeout %v is not positive", f)
		case f*float64(p.unit) >= math.MaxInt64 || p.dialect.TimeoutOf != nil && float64(p.dialect.TimeoutOf(1))*f >= math.MaxInt64:
			bad("timeout %v is too large", f)
		case p.dialect.TimeoutOf != nil:
			h.Timeout = p.dialect.TimeoutOf(f)
			h.TimeoutSet = true
		default:
			h.Timeout = time.Duration(f * float64(p.unit))
			h.TimeoutSet = true
		}
	}
	for _, k := range []string{"working_directory", "cwd"} {
		if c := v.Get(k); c != nil {
			h.Cwd = p.str(where, k, c)
		}
	}
	if e := v.Get("env"); e != nil {
		h.Env = p.env(where, e)
	}
	if ps := v.Get("persistent"); ps != nil && ps.Type() == fastjson.TypeString {
		if string(ps.GetStringBytes()) == "session" {
			h.Persistent, h.PerSession = true, true
		} else {
			bad("persistent is %q, want true, false or \"session\"", ps.GetStringBytes())
		}
	}
	for _, f := range []struct {
		key string
		dst *bool
	}{{"async", &h.Async}, {"fail_closed", &h.FailClosed}, {"pipe_output", &h.PipeOutput}, {"sequential", &h.Sequential},
		{"blocking", &h.Blocking}, {"noVerify", &h.NoVerify}, {"persistent", &h.Persistent}, {"once", &h.Once}} {
		if b := v.Get(f.key); b != nil && !(f.key == "persistent" && b.Type() == fastjson.TypeString) {
			*f.dst = p.boolean(where, f.key, b)
		}
	}
	if p.dialect.Handler != nil {
		p.dialect.Handler(p, where, v, &h)
	}
	if p.dialect.RegexToolMatchers && event.Lookup(h.Event).Tool {
		h.RegexMatcher = true
	}
	if h.Persistent && h.Type != "command" {
		bad("persistent applies to command hooks only, not type %s", h.Type)
	}
	if w := v.Get("workers"); w != nil {
		n, err := w.Int()
		switch {
		case err != nil:
			bad("workers is %s, want an integer", w.Type())
		case n < 1 || n > MaxWorkers:
			bad("workers %d is out of range (1 to %d)", n, MaxWorkers)
		case !h.Persistent:
			bad("workers applies to persistent hooks only (\"persistent\": true)")
		default:
			h.Workers = n
		}
	}
	if e := v.Get("enabled"); e != nil && !p.boolean(where, "enabled", e) && h.Disabled == "" {
		h.Disabled = "enabled is false"
	}
	if b := v.Get("asyncRewake"); b != nil && p.boolean(where, "asyncRewake", b) {
		h.AsyncRewake, h.Async = true, true // the reference: asyncRewake implies async
	}
	if h.Async && h.Type != "command" {
		p.warn(label, "async applies to command hooks only (Claude Code); type %s runs in the foreground", h.Type)
		h.Async, h.AsyncRewake = false, false
	}
	return h
}

// handlerTypeFields reads the fields of Claude Code's http, mcp_tool, prompt and agent
// handlers, and keeps the handler object itself for the host's evaluator.
func (p *Reader) handlerTypeFields(where string, v *fastjson.Value, h *Hook, bad func(string, ...any)) {
	h.StatusMessage = p.optStr(where, "statusMessage", v)
	if b := v.Get("continueOnBlock"); b != nil {
		h.ContinueOnBlock = p.boolean(where, "continueOnBlock", b)
	}
	h.Model = p.optStr(where, "model", v)
	if f := v.Get("onFailure"); f != nil {
		// Claude Code 2.1.330 reads any value but "continue" as "block".
		h.OnFailureBlock = f.Type() != fastjson.TypeString || string(f.GetStringBytes()) != "continue"
	}
	h.URL = p.optStr(where, "url", v)
	h.Server = p.optStr(where, "server", v)
	h.Tool = p.optStr(where, "tool", v)
	if hs := v.Get("headers"); hs != nil {
		if obj, err := hs.Object(); err != nil {
			bad("headers is %s, want an object of strings", hs.Type())
		} else {
			obj.Visit(func(k []byte, val *fastjson.Value) {
				if val.Type() != fastjson.TypeString {
					p.warn(where, "headers.%s is %s, want a string; ignored", k, val.Type())
					return
				}
				h.Headers = append(h.Headers, [2]string{string(k), string(val.GetStringBytes())})
			})
		}
	}
	if a := v.Get("allowedEnvVars"); a != nil {
		h.AllowedEnvVars = p.strings(where, "allowedEnvVars", a)
	}
	if in := v.Get("input"); in != nil {
		if in.Type() != fastjson.TypeObject {
			bad("input is %s, want an object", in.Type())
		} else {
			h.Input = in.MarshalTo(nil)
		}
	}
	if h.Type == "prompt" || h.Type == "agent" || h.Type == "mcp_tool" {
		h.Definition = v.MarshalTo(nil)
	}
}

// handlerKeys are the fields a handler of the reader's dialect may have.
func (p *Reader) handlerKeys() map[string]bool {
	if len(p.dialect.HandlerKeys) == 0 {
		return hookKeys
	}
	m := keySet(p.dialect.HandlerKeys...)
	for k := range hookKeys {
		m[k] = true
	}
	return m
}

var flatKeys = func() map[string]bool {
	m := keySet("matcher")
	for k := range hookKeys {
		m[k] = true
	}
	return m
}()

func (p *Reader) matcherField(where string, v *fastjson.Value, h *Hook) {
	m := v.Get("matcher")
	if m == nil {
		return
	}
	if m.Type() != fastjson.TypeString {
		p.disable(h, where, "matcher is %s, want a string", m.Type())
		return
	}
	h.Matcher = string(m.GetStringBytes())
}

func (p *Reader) unknownKeys(where string, v *fastjson.Value, known map[string]bool) {
	obj, _ := v.Object()
	var unknown []string
	obj.Visit(func(k []byte, _ *fastjson.Value) {
		if !known[string(k)] {
			unknown = append(unknown, string(k))
		}
	})
	sort.Strings(unknown)
	for _, k := range unknown {
		if k == "permissionDecision" {
			p.warn(where, "permissionDecision is something a hook prints in its JSON output (hookSpecificOutput), not a config field; ignored")
			continue
		}
		p.warn(where, "unknown field %q; ignored", k)
	}
}

// optStr reads v's optional string field key ("" when absent or of the wrong type).
func (p *Reader) optStr(where, key string, v *fastjson.Value) string {
	if x := v.Get(key); x != nil {
		return p.str(where, key, x)
	}
	return ""
}

func (p *Reader) str(where, key string, v *fastjson.Value) string {
	if v.Type() != fastjson.TypeString {
		p.warn(where, "%s is %s, want a string; ignored", key, v.Type())
		return ""
	}
	return string(v.GetStringBytes())
}

func (p *Reader) boolean(where, key string, v *fastjson.Value) bool {
	switch v.Type() {
	case fastjson.TypeTrue:
		return true
	case fastjson.TypeFalse:
		return false
	}
	p.warn(where, "%s is %s, want true or false; taken as false", key, v.Type())
	return false
}

func (p *Reader) strings(where, key string, v *fastjson.Value) []string {
	arr, err := v.Array()
	if err != nil {
		p.warn(where, "%s is %s, want an array of strings; ignored", key, v.Type())
		return nil
	}
	var out []string
	for i, e := range arr {
		if e.Type() != fastjson.TypeString {
			p.warn(where, "%s[%d] is %s, want a string; ignored", key, i, e.Type())
			continue
		}
		out = append(out, string(e.GetStringBytes()))
	}
	return out
}

// env reads an object of strings into KEY=VALUE pairs in file order. Numbers and booleans
// are taken as their JSON text since users write {"DEBUG": 1}.
func (p *Reader) env(where string, v *fastjson.Value) []string {
	obj, err := v.Object()
	if err != nil {
		p.warn(where, "env is %s, want an object of strings; ignored", v.Type())
		return nil
	}
	var out []string
	obj.Visit(func(k []byte, val *fastjson.Value) {
		switch val.Type() {
		case fastjson.TypeString:
			out = append(out, string(k)+"="+string(val.GetStringBytes()))
		case fastjson.TypeNumber, fastjson.TypeTrue, fastjson.TypeFalse:
			out = append(out, string(k)+"="+string(val.MarshalTo(nil)))
		default:
			p.warn(where, "env.%s is %s, want a string; ignored", k, val.Type())
		}
	})
	return out
}

// hooksObject returns the file's "hooks" object: nil when it has none, and nil with a
// warning when "hooks" is not an object.
func (p *Reader) hooksObject(v *fastjson.Value) *fastjson.Object {
	hooks := v.Get("hooks")
	if hooks == nil {
		return nil
	}
	obj, err := hooks.Object()
	if err != nil {
		p.warn("", "hooks is %s, want an object keyed by event name; ignored", hooks.Type())
		return nil
	}
	return obj
}
