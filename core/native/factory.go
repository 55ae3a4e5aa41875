package native

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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

// factoryRefuse refuses an install while a hooks.json of the scope holds hooks: Droid lets
// that file's list of an event replace settings.json's, so the dispatcher put in
// settings.json would not run for those events.
func factoryRefuse(_ Scope, dir string) error {
	d := filepath.Join(dir, ".factory")
	for _, path := range []string{filepath.Join(d, "hooks.json"), filepath.Join(d, "hooks", "hooks.json")} {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		var events map[string]json.RawMessage
		if json.Unmarshal(data, &events) != nil {
			return fmt.Errorf("%s is not a JSON object; fix it before installing", path)
		}
		if len(events) > 0 {
			return fmt.Errorf("%s holds hooks, and Droid lets its events replace settings.json's, where install puts the dispatcher: move them into the \"hooks\" of %s first", path, filepath.Join(d, "settings.json"))
		}
	}
	return nil
}
