package dialect

import (
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/payload"
)

// Gemini is Gemini CLI's settings.json (@google/gemini-cli, packages/core/src/hooks): Claude
// Code's shape with its own event names (BeforeTool, AfterTool, BeforeAgent, AfterAgent,
// BeforeModel, AfterModel, BeforeToolSelection, PreCompress, SessionStart, SessionEnd,
// Notification), timeouts in milliseconds (default 60 s), tool matchers that are always
// unanchored regexes, and "sequential" groups that make the whole fire sequential. Hooks see
// the event as Gemini spells it plus an ISO timestamp, and answer in Gemini's vocabulary
// (decide.Gemini). hooksConfig.enabled false turns every hook off; hooksConfig.disabled (and
// the older hooks.disabled) lists hook names to turn off. Recognised by a .gemini directory.
var Gemini = &Dialect{
	Name:             "gemini",
	Unit:             time.Millisecond,
	Timeout:          60 * time.Second,
	Envelope:         payload.Gemini,
	CanonicalOnStdin: true,
	Names: map[string]string{
		"PreToolUse":       "BeforeTool",
		"PostToolUse":      "AfterTool",
		"UserPromptSubmit": "BeforeAgent",
		"Stop":             "AfterAgent",
		"PreCompact":       "PreCompress",
	},
	OwnAliases:          map[string]bool{"BeforeTool": true, "AfterTool": true, "BeforeAgent": true, "AfterAgent": true, "PreCompress": true},
	StrayMatcherIgnored: true,
	Output:              decide.Gemini,
	SequentialSpreads:   true,
	RegexToolMatchers:   true,
	SpellsTools:         true,
	ProjectEnv:          []string{"GEMINI_PROJECT_DIR", "GEMINI_CWD"},
	PayloadEnv:          [][2]string{{"GEMINI_SESSION_ID", "session_id"}},
	Detect:              func(path string, v *fastjson.Value) bool { return claudeShaped(v) && inDir(path, ".gemini") },
	Load:                loadGemini,
}

// geminiHooksConfig are keys of the "hooks" object that are settings, not events (Gemini
// CLI's HOOKS_CONFIG_FIELDS).
var geminiHooksConfig = map[string]bool{"enabled": true, "disabled": true, "notifications": true}

func loadGemini(p *Reader, _ []byte, v *fastjson.Value) error {
	for _, settings := range []*fastjson.Value{v.Get("hooksConfig"), v.Get("hooks")} {
		if settings == nil || settings.Type() != fastjson.TypeObject {
			continue
		}
		if e := settings.Get("enabled"); e != nil {
			off := !p.boolean("hooksConfig", "enabled", e)
			p.f.DisableAll = &off
		}
		if d := settings.Get("disabled"); d != nil {
			p.f.DisabledIDs = append(p.f.DisabledIDs, p.strings("hooksConfig", "disabled", d)...)
		}
	}
	obj := p.hooksObject(v)
	if obj == nil {
		return nil
	}
	obj.Visit(func(k []byte, list *fastjson.Value) {
		if !geminiHooksConfig[string(k)] {
			p.eventList(string(k), list)
		}
	})
	return nil
}
