package dialect

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Opencode is hookexec's hooks file for opencode (opencode-ai) and its fork Kilo Code
// (@kilocode/cli). Neither agent runs command hooks: both load JavaScript plugins, so
// `hookexec install --agent opencode|kilo` writes a plugin (core/install, plugin.go) that
// sends each tool call and session event to the dispatcher, which runs the hooks of this
// file. The file is Claude Code's shape ({"hooks": {"PreToolUse": [{matcher, hooks}]}}),
// in .opencode/hooks.json of the project and ~/.config/opencode/hooks.json (Kilo:
// .kilo/hooks.json and ~/.config/kilo/hooks.json); hooks see Claude Code's stdin with the
// tool as opencode names it (bash, edit, write, read, ...) and its arguments as it spells
// them (command, filePath), and a Claude-style "Bash" matcher selects opencode's bash
// through the canonical vocabulary. Timeouts are seconds (default 60 s); hooks answer in
// Claude Code's vocabulary (docs/agents/opencode.md).
var Opencode = &Dialect{
	Name:                vocab.Opencode,
	Unit:                time.Second,
	Timeout:             60 * time.Second,
	Envelope:            payload.Claude,
	CanonicalOnStdin:    true,
	StrayMatcherIgnored: true,
	Types:               []string{"http"},
	ProjectEnv:          []string{"OPENCODE_PROJECT_DIR", "KILO_PROJECT_DIR"},
	Detect: func(path string, v *fastjson.Value) bool {
		return claudeShaped(v) && baseName(path) == "hooks.json" && opencodeDir(filepath.Dir(path))
	},
	Load: loadClaudeShape,
}

// opencodeDir says whether dir is one of opencode's or Kilo's configuration directories.
func opencodeDir(dir string) bool {
	switch filepath.Base(dir) {
	case ".opencode", ".kilo":
		return true
	case "opencode", "kilo":
		return strings.HasSuffix(filepath.Dir(dir), ".config")
	}
	return false
}
