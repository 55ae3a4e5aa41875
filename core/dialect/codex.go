package dialect

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/payload"
)

// Codex is OpenAI Codex's hooks (codex-rs/hooks): hooks.json beside config.toml, or a
// [hooks] table in config.toml, both Claude Code's shape with Claude Code's event names.
// Timeouts in seconds (default 600); commandWindows replaces the command on Windows;
// additionalContextLimit caps a hook's additional context. A matcher of letters, digits,
// "_" and "|" names tools exactly, anything else is an unanchored regex. Hooks answer in
// Codex's strict vocabulary (decide.Codex). Recognised by a .codex directory.
//
// Codex runs a hook only once its hash is approved (or with --dangerously-bypass-hook-trust);
// hookexec does not read Codex's approvals: its own trust store (hookexec trust) applies.
var Codex = &Dialect{
	Name:                "codex",
	Unit:                time.Second,
	Timeout:             600 * time.Second,
	Envelope:            payload.Claude,
	CanonicalOnStdin:    true,
	StrayMatcherIgnored: true,
	Output:              decide.Codex,
	Types:               []string{"agent", "mcp_tool"},
	TypeOnEvent:         codexTypeOnEvent,
	HandlerKeys:         []string{"commandWindows", "command_windows", "additionalContextLimit"},
	Handler:             codexHandler,
	Detect: func(path string, v *fastjson.Value) bool {
		return inDir(path, ".codex") && (v == nil && isTOML(path) || claudeShaped(v))
	},
	Load: loadCodex,
}

// codexTypeOnEvent says why Codex does not run a handler of type typ on event. Codex
// 0.169.0 (and 0.171.0) reads prompt and agent handlers but skips them at load ("prompt
// hooks are not supported yet"; seen live: the hook's model is never asked), and runs
// mcp_tool handlers on every event but SessionEnd ("SessionEnd MCP hooks are not
// supported").
func codexTypeOnEvent(typ, event string) string {
	switch {
	case typ == "prompt" || typ == "agent":
		return "type " + typ + ": Codex skips " + typ + " hooks (not supported yet in Codex 0.169.0)"
	case typ == "mcp_tool" && event == "SessionEnd":
		return "type mcp_tool on SessionEnd, which Codex does not support"
	}
	return ""
}

func isTOML(path string) bool { return strings.EqualFold(filepath.Ext(path), ".toml") }

// loadCodex reads hooks.json (v is its JSON) or config.toml (v is nil; its [hooks] table).
func loadCodex(p *Reader, data []byte, v *fastjson.Value) error {
	if v == nil {
		var doc map[string]any
		if err := toml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("invalid TOML: %v", err)
		}
		hooks, ok := doc["hooks"]
		if !ok {
			return nil
		}
		if _, ok := hooks.(map[string]any); !ok {
			p.warn("", "hooks is %T, want a table keyed by event name; ignored", hooks)
			return nil
		}
		js, err := json.Marshal(map[string]any{"hooks": hooks})
		if err != nil {
			return fmt.Errorf("[hooks]: %v", err)
		}
		if v, err = fastjson.ParseBytes(js); err != nil {
			return fmt.Errorf("[hooks]: %v", err)
		}
	}
	return loadClaudeShape(p, data, v)
}

func codexHandler(p *Reader, where string, v *fastjson.Value, h *Hook) {
	for _, k := range []string{"commandWindows", "command_windows"} {
		if x := v.Get(k); x != nil {
			h.CommandWindows = p.str(where, k, x)
		}
	}
	if runtime.GOOS == "windows" && h.CommandWindows != "" {
		h.Command = h.CommandWindows
	}
	if x := v.Get("additionalContextLimit"); x != nil {
		n, err := x.Int()
		if err != nil || n < 0 {
			p.warn(where, "additionalContextLimit is %s, want a non-negative integer; ignored", x.MarshalTo(nil))
		} else {
			h.ContextLimit = n
		}
	}
	if m := strings.TrimSpace(h.Matcher); m != "" && m != "*" && !codexExact(m) {
		h.RegexMatcher = true
	}
}

// codexExact: Codex matches a matcher of only these characters by name, split on "|".
func codexExact(m string) bool {
	for _, c := range m {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '|') {
			return false
		}
	}
	return true
}
