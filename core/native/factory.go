package native

import (
	"encoding/json"
	"errors"
	"fmt"
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

// factoryFiles are a scope's .factory/hooks.json (its events object at the root), then
// its settings.json. The legacy hooks/hooks.json (read by Droid only when there is no
// hooks.json) is not moved: factoryRefuse refuses while it holds hooks.
func factoryFiles(_ Scope, dir string) []File {
	d := filepath.Join(dir, ".factory")
	return []File{{Settings: filepath.Join(d, "hooks.json"), Managed: filepath.Join(d, "hookexec-hooks.hooks.json"),
		Backup: filepath.Join(d, ".hooks.json.hookexec-backup"), Root: true}, file(d, "settings.json")}
}

// factoryShadowed lists the events of a settings.json that the hooks.json beside it lists
// as it was before install (its backup, else itself): Droid lets those lists replace
// settings.json's, so their groups never run and install leaves them there.
func factoryShadowed(f File) map[string]bool {
	if f.Root {
		return nil
	}
	d := filepath.Dir(f.Settings)
	data, err := os.ReadFile(filepath.Join(d, ".hooks.json.hookexec-backup"))
	if err != nil {
		data, err = os.ReadFile(filepath.Join(d, "hooks.json"))
	}
	if err != nil {
		return nil
	}
	return dialect.FactoryHooksEvents(data)
}

// factoryRefuse refuses an install while the legacy .factory/hooks/hooks.json holds hooks
// and no hooks.json is there: Droid then reads that file's events in place of
// settings.json's, and install does not move it (Droid itself moves it to hooks.json
// when it next saves a hook).
func factoryRefuse(_ Scope, dir string) error {
	d := filepath.Join(dir, ".factory")
	if _, err := os.Lstat(filepath.Join(d, "hooks.json")); err == nil {
		return nil
	}
	path := filepath.Join(d, "hooks", "hooks.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var events map[string]json.RawMessage
	if json.Unmarshal(data, &events) != nil {
		return fmt.Errorf("%s is not a JSON object; fix it before installing", path)
	}
	if len(events) > 0 {
		return fmt.Errorf("%s (Droid's legacy hooks file) holds hooks: rename it to %s first, which Droid reads the same way", path, filepath.Join(d, "hooks.json"))
	}
	return nil
}
