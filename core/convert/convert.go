// Package convert writes one agent's hook configuration as another agent's: the file is
// read in its dialect (package dialect) into canonical hooks, and each hook is written in
// the target's shape, events and tool names (package vocab). Everything that cannot carry
// over is reported per hook as a Loss; a guard the target cannot run at all is a Loss of
// severity "dropped", which callers must not pass over silently (the CLI fails on it).
//
// It converts files and does not run hooks or write to disk. Targets are the agents whose
// hooks live in one JSON file: claude, factory, gemini, codex, qwen, cursor, copilot,
// windsurf, crush and antigravity (Kiro and Cline keep one hook per file, the seeds' commands are templates or
// their files YAML or whole agent configs: they are sources only; docs/convert.md).
//
// A command whose answer the target reads in other words than the source's is written to
// run through "hookexec adapt" (Options.Adapter) where the target is an agent hookexec
// answers natively (claude, codex, gemini, qwen): the command then sees its own agent's
// payload and its answer is read in its own words, so that a block stays a block.
package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/jsontext"
	"github.com/hookexec/hookexec/core/vocab"
)

// ErrTarget is returned for a target agent convert cannot write.
var ErrTarget = errors.New("hookexec: convert: unsupported target")

// Targets lists the agents convert can write.
var Targets = []string{vocab.Claude, vocab.Factory, vocab.Gemini, vocab.Codex, vocab.Qwen, vocab.Cursor, vocab.Copilot, vocab.Windsurf, vocab.Crush, vocab.Antigravity, vocab.Auggie}

// Adapted lists the agents whose hooks can run a command through "hookexec adapt": the
// agents hookexec answers natively (core/native). Cline is one though convert cannot write
// its hook files yet: a Cline hook file runs "hookexec adapt --from claude --to cline".
var Adapted = []string{vocab.Claude, vocab.Codex, vocab.Gemini, vocab.Qwen, vocab.Cursor, vocab.Copilot, vocab.Windsurf, vocab.Crush, vocab.Antigravity, vocab.Cline, vocab.Auggie}

// Options tune a conversion.
type Options struct {
	// Adapter is the command that runs hookexec in the written configuration ("hookexec");
	// "" writes commands as they are, their answers read in the target's words.
	Adapter string
}

// Loss is one thing of one hook that does not carry over. Severity is "changed" (it
// carries over with another meaning, which Message says), "lost" (a feature is left out)
// or "dropped" (the whole hook is left out).
type Loss struct {
	Hook     string `json:"hook"` // where the hook is written in the source file
	Feature  string `json:"feature"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

func (l Loss) String() string {
	return fmt.Sprintf("%s: %s %s: %s", l.Hook, l.Severity, l.Feature, l.Message)
}

// Result is a conversion: the target file and what did not carry over.
type Result struct {
	Output []byte // the target configuration, indented JSON ending in "\n"
	Losses []Loss
	Hooks  int // hooks read from the source
}

// Dropped reports whether some hook was left out entirely.
func (r *Result) Dropped() bool {
	return slices.ContainsFunc(r.Losses, func(l Loss) bool { return l.Severity == "dropped" })
}

// Convert reads data (named name, for messages and dialect detection) in dialect from and
// writes it for agent to, commands running through "hookexec adapt" where their answers
// would change meaning.
func Convert(from, to, name string, data []byte) (*Result, error) {
	return With(Options{Adapter: "hookexec"}, from, to, name, data)
}

// With is Convert with options.
func With(o Options, from, to, name string, data []byte) (*Result, error) {
	src := dialect.ByName(from)
	if src == nil {
		return nil, fmt.Errorf("hookexec: convert: unknown source agent %q", from)
	}
	if !slices.Contains(Targets, to) {
		return nil, fmt.Errorf("%w %q (targets: %s)", ErrTarget, to, strings.Join(Targets, ", "))
	}
	f, err := dialect.Read(name, data, src)
	if err != nil {
		return nil, fmt.Errorf("hookexec: convert: %s: %w", name, err)
	}
	c := &conv{from: from, to: to, adapter: o.Adapter, groups: map[string][]any{}, matchers: map[string]map[string]int{}}
	for _, w := range f.Warnings {
		if w.Error {
			c.loss(w.Path, "source", "lost", "%s", w.Message)
		}
	}
	for i := range f.Hooks {
		c.hook(&f.Hooks[i])
	}
	return &Result{Output: c.output(), Losses: c.losses, Hooks: len(f.Hooks)}, nil
}

type object = map[string]any

type conv struct {
	from, to string
	adapter  string
	events   []string                  // target event keys in first-use order
	groups   map[string][]any          // event → entries
	matchers map[string]map[string]int // Claude shape: event → matcher → index of its group
	losses   []Loss
	at       string
	cmd      string // the current hook's command line, as written for the target
	inner    string // when cmd runs through "hookexec adapt", the command it runs; else ""
}

func (c *conv) loss(hook, feature, severity, format string, args ...any) {
	c.losses = append(c.losses, Loss{Hook: hook, Feature: feature, Severity: severity, Message: fmt.Sprintf(format, args...)})
}

func (c *conv) lost(feature, format string, args ...any) {
	c.loss(c.at, feature, "lost", format, args...)
}

// answers names the vocabulary each agent reads hook output in.
func answers(agent string) string {
	switch agent {
	case vocab.Claude, vocab.Factory, vocab.CliAgent, vocab.Mycode:
		return "Claude Code's (exit 2, decision, hookSpecificOutput)"
	case vocab.Qwen:
		return "Qwen Code's (Claude Code's, but a new tool input is ignored)"
	case vocab.Codex:
		return "Codex's (Claude Code's, strictly: an ask or a rewrite without allow fails the hook open)"
	case vocab.Gemini:
		return "Gemini CLI's (exit 2, decision deny, hookSpecificOutput.tool_input)"
	case vocab.Cursor:
		return "Cursor's (permission, user_message, agent_message, continue)"
	case vocab.Copilot:
		return "Copilot CLI's (permissionDecision, modifiedArgs)"
	case vocab.Windsurf:
		return "Windsurf's (exit code 2 only)"
	case vocab.Kiro:
		return "Kiro's (exit code 2, stdout as context)"
	case vocab.Cline:
		return "Cline's (cancel, contextModification, errorMessage)"
	case vocab.Crush:
		return "Crush's (exit 2 or 49, decision allow/deny, halt, updated_input as a patch)"
	case vocab.Antigravity:
		return "Antigravity's (a required decision: silence runs the tool, {} denies it)"
	case vocab.Auggie:
		return "auggie's (Claude Code's on PreToolUse and PostToolUse only, no top-level decision)"
	}
	return agent + "'s"
}

func (c *conv) hook(h *dialect.Hook) {
	c.at = h.Path
	if c.at == "" {
		c.at = h.Name
	}
	if h.Disabled != "" {
		c.loss(c.at, "hook", "dropped", "not converted: %s", h.Disabled)
		return
	}
	if h.Type == "policy" {
		// hookexec evaluates policies itself; no agent's own format can hold one.
		c.loss(c.at, "type", "dropped", "%s cannot run a policy hook itself, no agent can: keep it in hookexec's configuration, which runs it for %s through \"hookexec install\"'s dispatcher", c.to, c.to)
		return
	}
	ev := event.Lookup(h.Event)
	c.cmd, c.inner = command(h), ""
	if w, ok := unwrap(c.cmd, c.to, c.from); ok {
		c.cmd = w // back to the agent it was written for: the command as it was
	} else if a, b := answers(c.from), answers(c.to); a != b && h.Type == "command" {
		if c.adapter != "" && slices.Contains(Adapted, c.to) && slices.Contains(Targets, c.from) {
			c.cmd, c.inner = wrap(c.adapter, c.from, c.to, "", c.cmd), c.cmd
			c.loss(c.at, "answer", "changed", "the command answers in %s words; it now runs through \"%s adapt\", which gives it %s's payload and answers %s in %s (%s must be on the PATH)", a, c.adapter, c.from, c.to, b, c.adapter)
		} else {
			c.loss(c.at, "answer", "changed", "the command answers in %s words; %s reads %s: check what it prints", a, c.to, b)
		}
	}
	tools, exact := canonicalTools(h.Matcher, h.RegexMatcher)
	if !exact && h.Matcher != "" {
		c.loss(c.at, "matcher", "changed", "matcher %q is a pattern, kept as written: tool names in it are %s's", h.Matcher, c.from)
	}
	switch c.to {
	case vocab.Claude, vocab.Factory, vocab.Gemini, vocab.Codex, vocab.Qwen, vocab.Auggie:
		c.claude(h, ev, tools, exact)
	case vocab.Cursor:
		c.cursor(h, ev, tools, exact)
	case vocab.Copilot:
		c.copilot(h, ev, tools, exact)
	case vocab.Windsurf:
		c.windsurf(h, ev, tools, exact)
	case vocab.Crush:
		c.crush(h, ev, tools, exact)
	case vocab.Antigravity:
		c.antigravity(h, ev, tools, exact)
	}
}

// canonicalTools reads a matcher of tool names ("Bash|run_shell_command") as canonical
// tools; exact is false for a pattern (regex, glob) that cannot be read so.
func canonicalTools(m string, regex bool) (tools []string, exact bool) {
	m = strings.TrimSpace(m)
	if m == "" || m == "*" {
		return nil, true
	}
	if t, ok := strings.CutPrefix(m, "^("); ok && strings.HasSuffix(t, ")$") {
		m, regex = strings.TrimSuffix(t, ")$"), false
	}
	if m == "mcp__.*" {
		return []string{"mcp__.*"}, true
	}
	for _, part := range strings.FieldsFunc(m, func(r rune) bool { return r == '|' || r == ',' }) {
		part = strings.TrimSpace(part)
		if part == "mcp__.*" {
			tools = append(tools, part)
			continue
		}
		if strings.ContainsAny(part, "*.^$()[]{}?+\\") {
			return nil, false
		}
		if c := vocab.Tool(part); c != "" {
			part = c
		}
		if !slices.Contains(tools, part) {
			tools = append(tools, part)
		}
	}
	return tools, true
}

// spellMatcher writes canonical tools in agent's spelling, joined by "|".
func spellMatcher(agent string, tools []string) string {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		s := vocab.Spell(agent, t)
		if s == "" {
			s = t
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, "|")
}

func (c *conv) add(ev string, entry any) {
	if _, ok := c.groups[ev]; !ok {
		c.events = append(c.events, ev)
	}
	c.groups[ev] = append(c.groups[ev], entry)
}

// common reports the handler features only some agents have.
func (c *conv) common(h *dialect.Hook, keep ...string) {
	has := func(f string) bool { return slices.Contains(keep, f) }
	check := func(f string, set bool, what string) {
		if set && !has(f) {
			c.lost(f, "%s has no %s; left out", c.to, what)
		}
	}
	check("if", h.If != "", "\"if\" permission rule: the hook now runs on every matching call")
	check("async", h.Async, "background hooks: it runs in the foreground")
	check("once", h.Once, "once-per-session hooks")
	check("statusMessage", h.StatusMessage != "", "status message")
	check("env", len(h.Env) > 0, "per-hook environment")
	check("cwd", h.Cwd != "", "working directory")
	check("timeout", h.TimeoutSet, "timeout: the agent's default applies")
	check("filter", len(h.FilterPaths) > 0 || len(h.FilterTools) > 0 || len(h.FileEvents) > 0, "path, tool or file-event filter: the hook runs for every matching call")
	if h.FailClosed && !has("failClosed") {
		c.loss(c.at, "failClosed", "changed", "%s fails open: a crashing guard no longer blocks", c.to)
	}
	if h.OnFailureBlock && !has("onFailure") {
		c.loss(c.at, "onFailure", "changed", "%s has no onFailure \"block\": a failing guard no longer blocks", c.to)
	}
	if h.Shell == "powershell" && !has("powershell") {
		c.lost("shell", "%s has no PowerShell commands", c.to)
	}
}

func seconds(d time.Duration) any {
	s := d.Seconds()
	if s == float64(int64(s)) {
		return int64(s)
	}
	return s
}

// command is the hook's command line (exec-form args joined, each quoted).
func command(h *dialect.Hook) string {
	if len(h.Args) == 0 {
		return h.Command
	}
	parts := make([]string, len(h.Args))
	for i, a := range h.Args {
		parts[i] = quote(a)
	}
	return strings.Join(parts, " ")
}

// typeOK reports whether the target runs the hook's type, reporting a dropped hook if not.
func (c *conv) typeOK(h *dialect.Hook, types ...string) bool {
	if slices.Contains(types, h.Type) {
		return true
	}
	c.loss(c.at, "type", "dropped", "%s has no %s hooks", c.to, h.Type)
	return false
}

// shaped describes a target written in Claude Code's shape ({"hooks": {Event: [{matcher,
// hooks: [handler]}]}}): its handler types, the handler features it keeps, and how it
// writes a timeout.
type shaped struct {
	types   []string
	keep    []string
	timeout func(d time.Duration) any
}

var claudeShapes = map[string]shaped{
	vocab.Claude:  {[]string{"command", "prompt", "agent", "http", "mcp_tool"}, []string{"if", "async", "once", "statusMessage", "timeout", "onFailure"}, seconds},
	vocab.Factory: {[]string{"command"}, []string{"timeout"}, seconds},
	// auggie 0.36.0 runs command hooks only (core/dialect/auggie.go), timeouts in milliseconds.
	vocab.Auggie: {[]string{"command"}, []string{"timeout"}, func(d time.Duration) any { return d.Milliseconds() }},
	// Gemini CLI runs command hooks only; timeouts in milliseconds; "name" and sequential
	// groups are its own.
	vocab.Gemini: {[]string{"command"}, []string{"timeout", "sequential"}, func(d time.Duration) any { return d.Milliseconds() }},
	// Codex runs command and mcp_tool hooks (0.169.0 skips prompt and agent ones);
	// commandWindows and statusMessage are its own.
	vocab.Codex: {[]string{"command", "mcp_tool"}, []string{"timeout", "statusMessage", "commandWindows"}, seconds},
	// Qwen Code runs command and http hooks; a timeout of 1000 or more is read as
	// milliseconds, so a long one is written so.
	vocab.Qwen: {[]string{"command", "http"}, []string{"timeout"}, func(d time.Duration) any {
		if d >= 1000*time.Second {
			return d.Milliseconds()
		}
		return seconds(d)
	}},
}

func (c *conv) claude(h *dialect.Hook, ev event.Info, tools []string, exact bool) {
	shape := claudeShapes[c.to]
	if !c.typeOK(h, shape.types...) {
		return
	}
	name := ev.Name
	if c.to != vocab.Claude {
		n, ok := vocab.EventName(c.to, ev.Name, "")
		if !ok {
			if ev.CanBlock {
				c.loss(c.at, "event", "dropped", "%s has no %s event: those calls are no longer guarded", c.to, ev.Name)
			} else {
				c.loss(c.at, "event", "dropped", "%s has no %s event", c.to, ev.Name)
			}
			return
		}
		name = n
	} else if why, unmapped := vocab.UnmappedEvents[c.from+" "+h.Event]; !ev.Known || unmapped {
		// An event only its own agent has (Gemini CLI's BeforeModel) is in the event
		// table, but Claude Code never fires it.
		if unmapped {
			c.loss(c.at, "event", "dropped", "%s has no %s event: %s", c.to, h.Event, why)
		} else {
			c.loss(c.at, "event", "dropped", "%s has no %s event", c.to, h.Event)
		}
		return
	}
	matcher := h.Matcher
	if exact {
		matcher = spellMatcher(c.to, tools)
	}
	handler := object{"type": h.Type}
	switch h.Type {
	case "command":
		handler["command"] = c.cmd
	case "prompt", "agent":
		handler["prompt"] = h.Prompt
	case "http":
		handler["url"] = h.URL
	case "mcp_tool":
		handler["server"], handler["tool"] = h.Server, h.Tool
		if (c.from == vocab.Codex) != (c.to == vocab.Codex) {
			c.loss(c.at, "answer", "changed", "the MCP tool's answer is read %s's way now: Codex reads its text as a command hook's stdout (plain text is context on SessionStart and UserPromptSubmit); Claude Code reads only JSON, and drops plain text", c.to)
		}
		if len(h.Input) > 0 {
			handler["input"] = json.RawMessage(h.Input)
			if (c.from == vocab.Codex) != (c.to == vocab.Codex) && bytes.Contains(h.Input, []byte("${")) {
				c.loss(c.at, "input", "changed", "the input's ${…} placeholders are filled %s's way now: Codex keeps a value that is one whole placeholder in its JSON type and fails the hook on a field the payload lacks; Claude Code fills text, and \"\" for a missing field", c.to)
			}
		}
	}
	c.common(h, shape.keep...)
	if h.Sequential && c.from == vocab.Gemini && c.to != vocab.Gemini {
		c.lost("sequential", "%s runs the hooks of one event in parallel", c.to)
	}
	if h.CommandWindows != "" && c.to != vocab.Codex {
		c.lost("commandWindows", "%s has no Windows-only command", c.to)
	}
	if h.OnFailureBlock && c.to == vocab.Claude {
		handler["onFailure"] = "block"
	}
	if h.TimeoutSet {
		handler["timeout"] = shape.timeout(h.Timeout)
	}
	if c.to == vocab.Gemini && h.Name != "" {
		handler["name"] = h.Name
	}
	if c.to == vocab.Codex && h.CommandWindows != "" {
		handler["commandWindows"] = h.CommandWindows
	}
	if h.If != "" && c.to == vocab.Claude {
		handler["if"] = h.If
	}
	if h.Async && c.to == vocab.Claude {
		handler["async"] = true
	}
	if h.StatusMessage != "" && (c.to == vocab.Claude || c.to == vocab.Codex) {
		handler["statusMessage"] = h.StatusMessage
	}
	if h.Once && c.to == vocab.Claude {
		handler["once"] = true
	}
	key := matcher
	if h.Sequential && c.to == vocab.Gemini {
		key += "\x00sequential"
	}
	if c.matchers[name] == nil {
		c.matchers[name] = map[string]int{}
	}
	if i, ok := c.matchers[name][key]; ok {
		g := c.groups[name][i].(object)
		g["hooks"] = append(g["hooks"].([]any), handler)
		return
	}
	g := object{"hooks": []any{handler}}
	if matcher != "" {
		g["matcher"] = matcher
	}
	if h.Sequential && c.to == vocab.Gemini {
		g["sequential"] = true
	}
	c.matchers[name][key] = len(c.groups[name])
	c.add(name, g)
}

// agentEvents resolves where a hook goes in an agent whose events may be tool-specific:
// one (event, matcher) per place; ok false when the hook cannot go anywhere.
func agentEvents(agent string, ev event.Info, tools []string, exact bool) (names []string, matchers []string, missing []string) {
	if exact && len(tools) > 0 {
		generic := ""
		var rest []string
		for _, t := range tools {
			tool := t
			if t == "mcp__.*" {
				tool = "mcp__x__y"
			}
			name, ok := vocab.EventName(agent, ev.Name, tool)
			if !ok {
				missing = append(missing, t)
				continue
			}
			if e, _ := vocab.EventOf(agent, name); e.Tools == "" {
				generic = name
				rest = append(rest, t)
				continue
			}
			if !slices.Contains(names, name) {
				names, matchers = append(names, name), append(matchers, "")
			}
		}
		if generic != "" {
			names, matchers = append(names, generic), append(matchers, spellMatcher(agent, rest))
		}
		return names, matchers, missing
	}
	if name, ok := vocab.EventName(agent, ev.Name, ""); ok {
		m := ""
		if !exact {
			m = "?" // a pattern: the caller keeps it as written
		}
		return []string{name}, []string{m}, nil
	}
	// No generic event: every tool-specific one of the agent for this event.
	for _, e := range vocab.Events(agent) {
		if e.Canonical == ev.Name && e.Tools != "" {
			names, matchers = append(names, e.Name), append(matchers, "")
		}
	}
	if len(names) == 0 {
		missing = []string{"*"}
	}
	return names, matchers, missing
}

func (c *conv) placed(h *dialect.Hook, ev event.Info, tools []string, exact bool) ([]string, []string, bool) {
	names, matchers, missing := agentEvents(c.to, ev, tools, exact)
	if len(tools) == 0 && exact && len(names) > 0 && matchers[0] == "" {
		if e, _ := vocab.EventOf(c.to, names[0]); e.Tools != "" {
			c.lost("matcher", "%s has %s hooks only for some tools (%s); calls of other tools no longer run it", c.to, ev.Name, strings.Join(names, ", "))
		}
	}
	for i, name := range names {
		e, _ := vocab.EventOf(c.to, name)
		if matchers[i] != "" || e.Tools == "" || e.Tools == "mcp__.*" || len(tools) == 0 {
			continue
		}
		for _, t := range strings.Split(e.Tools, "|") {
			if !slices.Contains(tools, t) {
				c.loss(c.at, "matcher", "changed", "%s runs for every %s call, wider than %s", name, e.Tools, strings.Join(tools, "|"))
				break
			}
		}
	}
	severity := "lost"
	if len(names) == 0 {
		severity = "dropped"
	}
	for _, m := range missing {
		what := ev.Name
		if m != "*" {
			what += " on " + m
		}
		if ev.CanBlock {
			c.loss(c.at, "event", severity, "%s has no hook for %s: those calls are no longer guarded", c.to, what)
		} else {
			c.loss(c.at, "event", severity, "%s has no hook for %s", c.to, what)
		}
	}
	return names, matchers, len(names) > 0
}

func (c *conv) cursor(h *dialect.Hook, ev event.Info, tools []string, exact bool) {
	if !c.typeOK(h, "command", "prompt") {
		return
	}
	names, matchers, ok := c.placed(h, ev, tools, exact)
	if !ok {
		return
	}
	c.common(h, "timeout", "failClosed")
	for i, name := range names {
		entry := object{}
		if h.Type == "prompt" {
			entry["type"], entry["prompt"] = "prompt", h.Prompt
		} else {
			entry["command"] = c.cmd
		}
		switch matchers[i] {
		case "":
		case "?":
			entry["matcher"] = h.Matcher
		default:
			entry["matcher"] = matchers[i]
		}
		if h.TimeoutSet {
			entry["timeout"] = seconds(h.Timeout)
		}
		if h.FailClosed || c.inner != "" {
			entry["failClosed"] = true // hookexec adapt missing or failing blocks, never allows
		}
		c.add(name, entry)
	}
}

func (c *conv) copilot(h *dialect.Hook, ev event.Info, tools []string, exact bool) {
	if !c.typeOK(h, "command") {
		return
	}
	names, matchers, ok := c.placed(h, ev, tools, exact)
	if !ok {
		return
	}
	c.common(h, "timeout", "env", "cwd", "powershell")
	for i, name := range names {
		entry := object{"type": "command"}
		cmd := c.cmd
		if c.inner != "" && name[0] >= 'a' && name[0] <= 'z' {
			cmd = wrap(c.adapter, c.from, c.to, name, c.inner) // camelCase payloads do not name their event
		}
		if h.Shell == "powershell" {
			entry["powershell"] = cmd
		} else {
			entry["bash"] = cmd
		}
		switch matchers[i] {
		case "":
		case "?":
			entry["matcher"] = h.Matcher
		default:
			entry["matcher"] = matchers[i]
		}
		if h.TimeoutSet {
			entry["timeoutSec"] = seconds(h.Timeout)
		}
		if h.Cwd != "" {
			entry["cwd"] = h.Cwd
		}
		if len(h.Env) > 0 {
			env := object{}
			for _, kv := range h.Env {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
			entry["env"] = env
		}
		c.add(name, entry)
	}
}

func (c *conv) windsurf(h *dialect.Hook, ev event.Info, tools []string, exact bool) {
	if !c.typeOK(h, "command") {
		return
	}
	if !exact {
		c.loss(c.at, "matcher", "dropped", "Windsurf cannot filter by a pattern; the hook would run for calls %q does not select", h.Matcher)
		return
	}
	names, matchers, ok := c.placed(h, ev, tools, exact)
	if !ok {
		return
	}
	c.common(h, "cwd", "powershell")
	for i, name := range names {
		if matchers[i] != "" {
			c.lost("matcher", "Windsurf hooks cannot filter tools; %s runs for every call %s covers", name, name)
		}
		if (ev.CanBlock || ev.Feedback) && strings.HasPrefix(name, "post_") {
			c.loss(c.at, "block", "changed", "Windsurf's %s hooks cannot block: a %s block (%s) is only shown, the agent goes on", name, ev.Name, blockMeaning(ev))
		}
		entry := object{}
		if h.Shell == "powershell" {
			entry["powershell"] = c.cmd
		} else {
			entry["command"] = c.cmd
		}
		if h.Cwd != "" {
			entry["working_directory"] = h.Cwd
		}
		c.add(name, entry)
	}
}

// crush writes Crush's flat entries: PreToolUse only, the matcher an unanchored Go regexp
// (so exact names are anchored), the timeout in seconds.
func (c *conv) crush(h *dialect.Hook, ev event.Info, tools []string, exact bool) {
	if !c.typeOK(h, "command") {
		return
	}
	names, matchers, ok := c.placed(h, ev, tools, exact)
	if !ok {
		return
	}
	c.common(h, "timeout")
	for i, name := range names {
		entry := object{"command": c.cmd}
		switch matchers[i] {
		case "":
		case "?":
			entry["matcher"] = h.Matcher
		default:
			entry["matcher"] = "^(" + matchers[i] + ")$"
		}
		if h.TimeoutSet {
			entry["timeout"] = seconds(h.Timeout)
		}
		if h.Name != "" {
			entry["name"] = h.Name
		}
		c.add(name, entry)
	}
}

// antigravity writes Antigravity's hooks.json: one named hook holding every event, tool
// events in matcher groups, the others as handler lists. Its PreToolUse fails closed as
// written, and an answer it cannot read denies: a command that answers in other words
// runs through "hookexec adapt".
func (c *conv) antigravity(h *dialect.Hook, ev event.Info, tools []string, exact bool) {
	if !c.typeOK(h, "command") {
		return
	}
	names, matchers, ok := c.placed(h, ev, tools, exact)
	if !ok {
		return
	}
	c.common(h, "timeout", "failClosed", "onFailure")
	for i, name := range names {
		handler := object{"type": "command", "command": c.cmd}
		if c.inner != "" {
			// Antigravity's payload does not name its event.
			handler["command"] = wrap(c.adapter, c.from, c.to, name, c.inner)
		}
		if h.TimeoutSet {
			handler["timeout"] = seconds(h.Timeout)
		}
		if name != "PreToolUse" && name != "PostToolUse" {
			c.add(name, handler)
			continue
		}
		m := matchers[i]
		if m == "?" {
			m = h.Matcher
		}
		c.add(name, object{"matcher": m, "hooks": []any{handler}})
	}
}

// blockMeaning says what a block on ev does in the source agent.
func blockMeaning(ev event.Info) string {
	switch {
	case ev.Name == "Stop" || ev.Name == "SubagentStop":
		return "keep the agent going"
	case ev.Feedback:
		return "feedback to the model"
	default:
		return "stop what the event announces"
	}
}

func (c *conv) output() []byte {
	hooks := object{}
	for _, ev := range c.events {
		hooks[ev] = c.groups[ev]
	}
	doc := object{"hooks": hooks}
	if c.to == vocab.Cursor || c.to == vocab.Copilot {
		doc["version"] = 1
	}
	if c.to == vocab.Antigravity {
		doc = object{"hookexec-converted": hooks} // top-level keys name hooks
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(doc) // maps of JSON values always encode
	return b.Bytes()
}

// Report renders the losses as text, one per line, or a line saying there are none.
func (r *Result) Report(from, to string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s: %d hooks read, %d things do not carry over\n", from, to, r.Hooks, len(r.Losses))
	for _, l := range r.Losses {
		b.WriteString("  " + l.String() + "\n")
	}
	return b.String()
}

// AdaptVerb is the hookexec command that runs a converted hook (cmd/hookexec adapt).
const AdaptVerb = "adapt"

// wrap is the command line that runs cmd through "hookexec adapt"; event, when not "",
// names the event for an agent whose payload does not (Copilot CLI's camelCase events).
func wrap(adapter, from, to, event, cmd string) string {
	line := adapter + " " + AdaptVerb + " --from " + from + " --to " + to + " "
	if event != "" {
		line += "--event " + event + " "
	}
	return line + quote(cmd)
}

// unwrap recovers the command a wrap for (from, to) holds; ok is false for any other command.
func unwrap(line, from, to string) (string, bool) {
	for _, adapter := range []string{"hookexec", "hookexec.exe"} {
		prefix := adapter + " " + AdaptVerb + " --from " + from + " --to " + to + " "
		rest, ok := strings.CutPrefix(line, prefix)
		if ev, ok := strings.CutPrefix(rest, "--event "); ok {
			if _, after, found := strings.Cut(ev, " "); found {
				rest = after
			}
		}
		if !ok || len(rest) < 2 || rest[0] != '\'' || rest[len(rest)-1] != '\'' {
			continue
		}
		inner := rest[1 : len(rest)-1]
		cmd := strings.ReplaceAll(inner, `'\''`, "'")
		if quote(cmd) == rest {
			return cmd, true
		}
	}
	return "", false
}

// quote is s as one single-quoted shell word.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Merge writes a conversion's hooks into an existing configuration file of the target
// (text): each converted matcher group is appended to its event's list unless an equal
// group is there already (merging twice changes nothing); every other key and event, the
// layout and the comments-free formatting of the rest are kept byte for byte. A version
// the target needs is added when the file has none.
func Merge(text, output []byte) ([]byte, error) {
	var doc struct {
		Version any                          `json:"version"`
		Hooks   map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(output, &doc); err != nil {
		return nil, fmt.Errorf("hookexec: convert: merge: %w", err)
	}
	var have struct {
		Version any                        `json:"version"`
		Hooks   map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(text, &have); err != nil {
		return nil, fmt.Errorf("hookexec: convert: merge: the file is not a JSON object: %w", err)
	}
	out := text
	var err error
	if doc.Version != nil && have.Version == nil {
		if out, err = jsontext.Set(out, doc.Version, jsontext.K("version")); err != nil {
			return nil, fmt.Errorf("hookexec: convert: merge: %w", err)
		}
	}
	if have.Hooks == nil {
		if out, err = jsontext.Set(out, jsontext.Object{}, jsontext.K("hooks")); err != nil {
			return nil, fmt.Errorf("hookexec: convert: merge: %w", err)
		}
	}
	for _, ev := range slices.Sorted(maps.Keys(doc.Hooks)) {
		var existing []json.RawMessage
		if raw, ok := have.Hooks[ev]; ok {
			if err := json.Unmarshal(raw, &existing); err != nil {
				return nil, fmt.Errorf("hookexec: convert: merge: hooks.%s is not a list", ev)
			}
		}
		for _, group := range doc.Hooks[ev] {
			if slices.ContainsFunc(existing, func(e json.RawMessage) bool { return sameJSON(e, group) }) {
				continue
			}
			var v any
			_ = json.Unmarshal(group, &v) // it came from Unmarshal
			if out, err = jsontext.Insert(out, -1, v, jsontext.K("hooks"), jsontext.K(ev)); err != nil {
				return nil, fmt.Errorf("hookexec: convert: merge: hooks.%s: %w", ev, err)
			}
		}
	}
	return out, nil
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
