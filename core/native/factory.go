package native

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/engine"
)

// Factory Droid reads Claude Code's answers, as droid 0.225.2 reads them (tests/live/droid):
// it parses a hook's JSON whatever the exit code, but reads no top-level decision on
// PostToolUse or UserPromptSubmit, and a Stop block only with a reason. There a block is
// exit 2 with the reason on stderr, the rest of the answer still on stdout.

func factoryAnswer(r *engine.Result) Answer {
	switch {
	case (r.Event == "PostToolUse" || r.Event == "UserPromptSubmit") && r.Continue && (r.Blocked || r.Reason != ""):
		c := *r
		c.Blocked, c.Reason, c.Decision = false, "", "none"
		a := claudeAnswer(&c)
		return Answer{ExitCode: 2, Stdout: a.Stdout, Stderr: []byte(orText(r.Reason, "blocked by hook") + "\n")}
	case r.Event == "Stop" && r.Blocked && r.Reason == "":
		c := *r
		c.Reason = "blocked by hook"
		return claudeAnswer(&c)
	}
	return claudeAnswer(r)
}

// factoryFiles are a scope's .factory/hooks.json (its events object at the root) or, when
// there is none, the legacy .factory/hooks/hooks.json, which Droid reads in its place; then
// its settings.json.
func factoryFiles(_ Scope, dir string) []File {
	d := filepath.Join(dir, ".factory")
	hooks := File{Settings: filepath.Join(d, "hooks.json"), Managed: filepath.Join(d, "hookexec-hooks.hooks.json"),
		Backup: filepath.Join(d, ".hooks.json.hookexec-backup"), Root: true}
	if _, err := os.Lstat(hooks.Settings); errors.Is(err, fs.ErrNotExist) {
		legacy := filepath.Join(d, "hooks", "hooks.json")
		if _, err := os.Lstat(legacy); err == nil {
			// Its managed file is in .factory, where hookexec's factory dialect reads it.
			hooks = File{Settings: legacy, Managed: filepath.Join(d, "hookexec-hooks.legacy-hooks.json"),
				Backup: filepath.Join(d, "hooks", ".hooks.json.hookexec-backup"), Root: true}
		}
	}
	return []File{hooks, file(d, "settings.json")}
}

// factoryShadowed lists the events of a settings.json that the hooks file of its folder
// (hooks.json, else hooks/hooks.json) lists as it was before install (its backup, else
// itself): Droid lets those lists replace settings.json's, so their groups never run and
// install leaves them there.
func factoryShadowed(f File) map[string]bool {
	if f.Root {
		return nil
	}
	d := filepath.Dir(f.Settings)
	for _, h := range []string{filepath.Join(d, "hooks.json"), filepath.Join(d, "hooks", "hooks.json")} {
		if _, err := os.Lstat(h); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(filepath.Dir(h), ".hooks.json.hookexec-backup"))
		if err != nil {
			if data, err = os.ReadFile(h); err != nil {
				return nil
			}
		}
		return dialect.FactoryHooksEvents(data)
	}
	return nil
}
