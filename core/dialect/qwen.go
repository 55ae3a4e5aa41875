package dialect

import (
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/payload"
)

// Qwen is Qwen Code's settings.json (@qwen-code/qwen-code): Claude Code's shape and event
// names, plus TodoCreated, TodoCompleted (Claude Code's TaskCreated, TaskCompleted) and
// SessionDelete. Timeouts are seconds (default 60 s), except that 1000 or more keeps its
// old meaning of milliseconds, as Qwen Code reads them. Hooks answer in Qwen's vocabulary
// (decide.Qwen). Tool matchers are exact names or unanchored regexes, as in Gemini CLI (Qwen
// Code's matchesHookPattern); its own aliases (Bash for run_shell_command) are the canonical
// vocabulary's. Hooks see an ISO timestamp besides Claude Code's fields. Recognised by a
// .qwen directory.
var Qwen = &Dialect{
	Name:                "qwen",
	Unit:                time.Second,
	Timeout:             60 * time.Second,
	TimeoutOf:           qwenTimeout,
	Envelope:            payload.Gemini,
	CanonicalOnStdin:    true,
	Names:               map[string]string{"TaskCreated": "TodoCreated", "TaskCompleted": "TodoCompleted"},
	OwnAliases:          map[string]bool{"TodoCreated": true, "TodoCompleted": true},
	StrayMatcherIgnored: true,
	Output:              decide.Qwen,
	RegexToolMatchers:   true,
	SpellsTools:         true,
	Types:               []string{"http"},
	ProjectEnv:          []string{"QWEN_PROJECT_DIR", "GEMINI_PROJECT_DIR"},
	Detect:              func(path string, v *fastjson.Value) bool { return claudeShaped(v) && inDir(path, ".qwen") },
	Load:                loadClaudeShape,
}

// qwenTimeout reads a timeout as Qwen Code does (hook-timeout.ts): seconds, but values of
// 1000 or more are the milliseconds older versions took.
func qwenTimeout(n float64) time.Duration {
	if n >= 1000 {
		return time.Duration(n * float64(time.Millisecond))
	}
	return time.Duration(n * float64(time.Second))
}
