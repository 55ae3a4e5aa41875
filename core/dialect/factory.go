package dialect

import (
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Factory is Factory Droid's hooks (docs.factory.ai/reference/hooks-reference): Claude
// Code's shape and events in .factory/hooks.json or the "hooks" of .factory/settings.json
// (and settings.local.json), user and project. Timeouts are seconds (default 60), commands
// see $FACTORY_PROJECT_DIR, and hooks see Claude Code's payload with Droid's tool names
// (Execute, Create, FetchUrl, ...). Answers are Claude Code's: exit 2, decision,
// hookSpecificOutput.permissionDecision.
var Factory = &Dialect{
	Name:             vocab.Factory,
	Unit:             time.Second,
	Timeout:          60 * time.Second,
	Envelope:         payload.Claude,
	CanonicalOnStdin: true,
	ProjectEnv:       []string{"FACTORY_PROJECT_DIR"},
	Detect: func(path string, v *fastjson.Value) bool {
		return claudeShaped(v) && inDir(path, ".factory")
	},
	Load:  loadFactory,
	Stdin: factoryStdin,
}

// loadFactory reads Claude Code's shape; a hooks.json whose top level is the events
// object itself ({"PreToolUse": [...]}) is read as its "hooks".
func loadFactory(p *Reader, data []byte, v *fastjson.Value) error {
	if v.Get("hooks") == nil {
		o, _ := v.Object()
		events := false
		o.Visit(func(k []byte, _ *fastjson.Value) {
			_, ok := vocab.EventOf(vocab.Factory, string(k))
			events = events || ok
		})
		if events {
			var a fastjson.Arena
			w := a.NewObject()
			w.Set("hooks", v)
			return loadClaudeShape(p, data, w)
		}
	}
	return loadClaudeShape(p, data, v)
}

// factoryStdin is Claude Code's envelope with Droid's tool names.
func factoryStdin(f Fire) []byte {
	p := decode(f.Payload)
	out := object{"session_id": f.Frame.SessionID, "transcript_path": f.Frame.TranscriptPath, "cwd": f.Frame.Cwd, "hook_event_name": f.Canonical}
	for k, v := range p {
		out[k] = v
	}
	if t := str(p, "tool_name"); t != "" {
		out["tool_name"] = spellTool(vocab.Factory, t)
	}
	return encode(out)
}
