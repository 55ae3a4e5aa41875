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
	Load:  loadClaudeShape,
	Stdin: factoryStdin,
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
