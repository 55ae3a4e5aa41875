package install

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/hookexec/hookexec/core/atomicfile"
	"github.com/hookexec/hookexec/core/native"
)

// opencodePlugin is the plugin install writes for an agent reached through JavaScript
// plugins (opencode, Kilo Code): it sends each tool call and session event to the
// dispatcher and applies its answer (native.opencodeAnswer), failing closed.
//
//go:embed opencode.js
var opencodePlugin []byte

// PluginMarker begins every plugin install writes; a file at the plugin's path without it
// is the user's, and install leaves it alone.
var PluginMarker = []byte("// hookexec's plugin for opencode and Kilo Code, written by `hookexec install")

// pluginEvents are the events the plugin sends to the dispatcher.
var pluginEvents = []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop", "SessionEnd"}

// dispatcherLine begins the plugin's line naming the dispatcher it runs.
var dispatcherLine = []byte("\nconst DISPATCHER = ")

// pluginEdited says whether a plugin file that starts with the marker differs from what
// install writes for the dispatcher it names: edited by hand, written by another hookexec
// version, or a look-alike.
func pluginEdited(a *native.Agent, text []byte) bool {
	i := bytes.Index(text, dispatcherLine)
	if i < 0 {
		return true
	}
	rest := text[i+len(dispatcherLine):]
	end := bytes.Index(rest, []byte(";\n"))
	if end < 0 {
		return true
	}
	var argv []string
	if json.Unmarshal(rest[:end], &argv) != nil || !dispatcherArgv(a, argv) {
		return true
	}
	want, err := PluginSource(a, argv)
	return err != nil || !bytes.Equal(text, want)
}

// dispatcherArgv says whether argv is one install writes: the C client or the CLI's hook
// command, for this agent. Which hookexec binary it names is not checked.
func dispatcherArgv(a *native.Agent, argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	switch filepath.Base(argv[0]) {
	case "hookexec-hook":
		return slices.Equal(argv[1:], []string{"--agent", a.Name})
	case "hookexec", "hookexec.exe":
		return slices.Equal(argv[1:], []string{"hook", "--agent", a.Name})
	}
	return false
}

// PluginSource is the plugin's text for an agent, running the dispatcher argv (the C
// client or "hookexec hook --agent NAME") with the agent's timeout for one call.
func PluginSource(a *native.Agent, argv []string) ([]byte, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("hookexec: no dispatcher to run")
	}
	js := func(v any) []byte { b, _ := json.Marshal(v); return b }
	timeout := (a.DefaultTimeout + DispatchTimeoutMargin).Milliseconds()
	out := opencodePlugin
	for _, r := range []struct {
		placeholder, old string
		value            []byte
	}{
		{"/*HOOKEXEC_DISPATCHER*/", "[]", js(argv)},
		{"/*HOOKEXEC_AGENT*/", `"opencode"`, js(a.Name)},
		{"/*HOOKEXEC_PROJECT_ENV*/", `"OPENCODE_PROJECT_DIR"`, js(a.ProjectEnv)},
		{"/*HOOKEXEC_TIMEOUT_MS*/", "65000", []byte(strconv.FormatInt(timeout, 10))},
	} {
		from := []byte(r.placeholder + r.old)
		if bytes.Count(out, from) != 1 {
			return nil, fmt.Errorf("hookexec: the embedded plugin lacks %s", r.placeholder)
		}
		out = bytes.Replace(out, from, r.value, 1)
	}
	return out, nil
}

// InstallPlugin writes the agent's plugin for the scope (dir is the project or the home),
// atomically; the agent's own configuration and other plugins are not touched. A plugin
// file at that path that install did not write is refused, never overwritten; one it wrote
// is brought up to date ("already installed" when it is the same).
func InstallPlugin(a *native.Agent, s native.Scope, dir string, argv []string) (Change, error) {
	path := a.Plugin.Path(s, dir)
	c := Change{File: native.File{Settings: path, Managed: a.Files(s, dir)[0].Managed}}
	src, err := PluginSource(a, argv)
	if err != nil {
		return c, err
	}
	if err := inside(dir, path); err != nil {
		return c, err
	}
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, src):
		c.Action = "already installed"
		return c, nil
	case err == nil && !bytes.HasPrefix(old, PluginMarker):
		return c, fmt.Errorf("%s: a plugin hookexec did not write is there; move it away first", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return c, err
	}
	if err := atomicfile.Write(path, src, 0o644); err != nil {
		return c, err
	}
	c.Action = "installed"
	c.Events = pluginEvents
	return c, nil
}

// UninstallPlugin removes the plugin install wrote; hookexec's hooks file stays (it is the
// user's). A plugin file install did not write is left alone.
func UninstallPlugin(a *native.Agent, s native.Scope, dir string) (Change, error) {
	path := a.Plugin.Path(s, dir)
	c := Change{File: native.File{Settings: path, Managed: a.Files(s, dir)[0].Managed}}
	if err := inside(dir, path); err != nil {
		return c, err
	}
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Action = "not installed"
		return c, nil
	case err != nil:
		return c, err
	case !bytes.HasPrefix(old, PluginMarker):
		return c, fmt.Errorf("%s: not hookexec's plugin; left alone", path)
	}
	if err := os.Remove(path); err != nil {
		return c, err
	}
	c.Action = "restored"
	return c, nil
}

// PluginStatus says whether the scope has the plugin install writes, and how many matcher
// groups hookexec's hooks file holds.
func PluginStatus(a *native.Agent, s native.Scope, dir string) (FileStatus, error) {
	c := native.File{Settings: a.Plugin.Path(s, dir), Managed: a.Files(s, dir)[0].Managed}
	st := FileStatus{File: c}
	if old, err := os.ReadFile(c.Settings); err == nil && bytes.HasPrefix(old, PluginMarker) {
		if pluginEdited(a, old) {
			// The marker alone proves nothing: a cloned repository can ship a hookexec.js
			// that starts with it and allows everything.
			st.Modified = true
		} else {
			st.Installed = true
			st.Events = pluginEvents
		}
	}
	if text, err := os.ReadFile(c.Managed); err == nil {
		var doc struct {
			Hooks map[string][]json.RawMessage `json:"hooks"`
		}
		if err := json.Unmarshal(text, &doc); err != nil {
			return st, fmt.Errorf("%s: %w", c.Managed, err)
		}
		for _, groups := range doc.Hooks {
			st.Managed += len(groups)
		}
	}
	return st, nil
}
