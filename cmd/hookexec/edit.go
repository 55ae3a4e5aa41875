package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookexec/hookexec/core/atomicfile"
	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/jsontext"
)

// The editing verbs change configuration files the way a user would by hand: only the
// members they mean to change, every other key, the key order and the indentation kept
// (core/jsontext), and each file replaced atomically (core/atomicfile). New settings go to
// the highest-precedence writable file of the profile (settings.local.json for Claude
// Code's layout), created when needed; a hook is removed from the file that defines it.

func init() {
	register(&verb{
		name:    "disable",
		args:    "ID",
		summary: "turn one hook off (disabledHooks in the highest-precedence writable file)",
		help: `Adds ID to "disabledHooks" of the profile's highest-precedence writable file, creating it
when needed (e.g. .claude/settings.local.json), so the file that defines the hook is left
alone. An autohand hook gets "enabled": false in ~/.autohand/config.json instead.`,
		example: `hookexec disable guard
hookexec --profile claude disable 3f2a9c01de`,
		run: func(a *app, args []string) int { return a.editHook("disable", args, disableHook) },
	})
	register(&verb{
		name:    "enable",
		args:    "ID",
		summary: "turn a disabled hook back on, wherever it was turned off",
		help: `Removes ID from every "disabledHooks" list that names it and sets "enabled": false back
to true. A hook that is off for another reason (a config error, a duplicate,
disableAllHooks) is reported with that reason and left as it is.`,
		example: `hookexec enable guard`,
		run:     func(a *app, args []string) int { return a.editHook("enable", args, enableHook) },
	})
	register(&verb{
		name:    "remove",
		args:    "ID",
		summary: "delete a hook from the file that defines it",
		help: `Deletes the hook's handler from its file; a matcher group or event list left empty goes
with it. Everything else in the file stays as it was.`,
		example: `hookexec remove guard`,
		run:     func(a *app, args []string) int { return a.editHook("remove", args, removeHook) },
	})
	var add addFlags
	register(&verb{
		name:    "add",
		args:    "EVENT",
		summary: "add a command hook to the highest-precedence writable file",
		help: `Appends a command hook for EVENT to the profile's highest-precedence writable file in that
file's own format (a matcher group for Claude Code's, a flat entry for AutoAgent's, an
entry of hooks.hooks for autohand's), and prints its id.`,
		example: `hookexec add PreToolUse --matcher Bash --command './hooks/guard.sh' --name guard
hookexec --profile autohand add post-tool --command 'echo done >> ~/hooks.log'`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&add.command, "command", "", "the hook's shell `COMMAND` (required)")
			fs.StringVar(&add.matcher, "matcher", "", "the matcher `PATTERN` (tool names, a glob, or a regex)")
			fs.StringVar(&add.name, "name", "", "the hook's `ID` (default: a hash of event, matcher and command)")
			fs.Float64Var(&add.timeout, "timeout", 0, "the timeout in the file's unit (`N` seconds, or ms for autohand, AutoAgent and mycode)")
		},
		run: func(a *app, args []string) int { return runAdd(a, args, add) },
	})
	register(&verb{
		name:    "toggle-all",
		args:    "on|off",
		summary: "turn every hook on or off (disableAllHooks, or autohand's hooks.enabled)",
		example: `hookexec toggle-all off
hookexec --profile autohand toggle-all on`,
		run: runToggleAll,
	})
}

// notEdited are the dialects whose files the edit verbs do not write.
var notEdited = map[string]bool{"cursor": true, "copilot": true, "windsurf": true, "kiro": true, "cline": true, "gemini": true, "codex": true}

// target is a file the verbs write, with the shape its hooks are written in.
type target struct {
	path    string
	dialect string // dialect name: "claude", "autohand", "autoagent", ...
	text    []byte // current content ("{}\n" for a new file)
	exists  bool
	project string // the project directory: a file under it is never written outside it
}

// load reads a target file of the project; a missing one starts as an empty object.
func loadTarget(path, dialectName, project string) (*target, error) {
	t := &target{path: path, dialect: dialectName, project: project}
	if notEdited[dialectName] {
		// Their shapes differ from the ones the edits know (and Cline's files are programs).
		return nil, fmt.Errorf("%s is %s's format: hookexec edits Claude-shaped, autohand and AutoAgent files only; edit it by hand (or write it with hookexec convert)", path, dialectName)
	}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		t.text = []byte("{\n}\n") // multi-line, so what is added is laid out on lines
		return t, nil
	case err != nil:
		return nil, fmt.Errorf("cannot read %s: %v", path, unwrapPathError(err))
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		b = []byte("{}\n")
	}
	t.text, t.exists = b, true
	if t.dialect == "iteratr" || strings.HasSuffix(path, ".yml") || strings.HasSuffix(path, ".yaml") {
		return nil, fmt.Errorf("%s is YAML (iteratr): hookexec edits JSON files only; edit it by hand", path)
	}
	if _, err := jsontext.Len(t.text); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON; fix it first (hookexec validate says where)", path)
	}
	return t, nil
}

// save writes the file atomically, refusing anything that is not valid JSON, and refusing a
// project file that resolves outside the project (see contained).
func (t *target) save() error {
	if _, err := jsontext.Len(t.text); err != nil {
		return fmt.Errorf("internal error: the edit of %s would not be valid JSON; nothing written", t.path)
	}
	if err := contained(t.path, t.project); err != nil {
		return err
	}
	if err := atomicfile.Write(t.path, t.text, 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %v", t.path, unwrapPathError(err))
	}
	return nil
}

// writableTarget is the profile's highest-precedence writable file (or the first --source).
func (a *app) writableTarget(rep *engine.ConfigReport) (*target, error) {
	return a.writableTargetOf(rep, rep.Profile)
}

// writableTargetOf is writableTarget for the locations of the named profile.
func (a *app) writableTargetOf(rep *engine.ConfigReport, profile string) (*target, error) {
	dialects := map[string]string{}
	for _, s := range rep.Sources {
		dialects[s.Path] = s.Dialect
	}
	if len(a.globals.sources) > 0 {
		p, err := filepath.Abs(expandHome(a.globals.sources[0], a.globals.home))
		if err != nil {
			return nil, err
		}
		return loadTarget(p, dialects[p], rep.ProjectDir)
	}
	prof, err := config.LookupProfile(profile)
	if err != nil {
		return nil, err
	}
	for _, loc := range prof.Locations(rep.ProjectDir, a.homeDir(), nil) {
		if loc.HooksOnly || !writable(loc.Path) {
			continue
		}
		d := dialects[loc.Path]
		if d == "" && loc.Dialect != nil {
			d = loc.Dialect.Name
		}
		return loadTarget(loc.Path, d, rep.ProjectDir)
	}
	return nil, fmt.Errorf("no writable configuration file for profile %s", profile)
}

// withTarget runs fn with the engine, its configuration and the writable target file of
// profile ("" for the one in force).
func (a *app) withTarget(profile string, fn func(eng *engine.Engine, rep *engine.ConfigReport, t *target) (int, error)) int {
	return a.withEngine(func(eng *engine.Engine) (int, error) {
		rep, err := eng.Config()
		if err != nil {
			return 0, err
		}
		if profile == "" {
			profile = rep.Profile
		}
		t, err := a.writableTargetOf(rep, profile)
		if err != nil {
			return 0, err
		}
		return fn(eng, rep, t)
	})
}

// writable reports whether path can be written: it exists and opens for writing, or the
// nearest existing directory above it accepts a new file.
func writable(path string) bool {
	if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
		f.Close()
		return true
	} else if !errors.Is(err, os.ErrNotExist) {
		return false
	}
	dir := filepath.Dir(path)
	for {
		if st, err := os.Stat(dir); err == nil {
			if !st.IsDir() {
				return false
			}
			f, err := os.CreateTemp(dir, ".hookexec-probe-*")
			if err != nil {
				return false
			}
			f.Close()
			os.Remove(f.Name())
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// hookByID finds the hook a user names; duplicates share their original's id and are skipped.
func hookByID(rep *engine.ConfigReport, id string) (engine.HookInfo, error) {
	var ids []string
	for _, h := range rep.Hooks {
		if h.ID == id && !strings.HasPrefix(h.Disabled, "duplicate of ") {
			return h, nil
		}
		ids = append(ids, h.ID)
	}
	if len(ids) == 0 {
		return engine.HookInfo{}, usagef("no hook has id %q: no hooks are configured", id)
	}
	return engine.HookInfo{}, usagef("no hook has id %q (ids: %s; see hookexec list)", id, strings.Join(slices.Compact(ids), ", "))
}

// editHook runs one of the per-hook edits and reports what changed.
func (a *app) editHook(verb string, args []string, edit func(a *app, rep *engine.ConfigReport, h engine.HookInfo) (string, error)) int {
	if len(args) != 1 {
		return a.fail(usagef("%s: want one hook ID, got %d (hookexec list shows the ids)", verb, len(args)))
	}
	return a.withEngine(func(eng *engine.Engine) (int, error) {
		rep, err := eng.Config()
		if err != nil {
			return 0, err
		}
		h, err := hookByID(rep, args[0])
		if err != nil {
			return 0, err
		}
		msg, err := edit(a, rep, h)
		if err != nil {
			return 0, err
		}
		if err := eng.Reload(); err == nil {
			if after, err := eng.Config(); err == nil {
				msg += a.stateAfter(after, h.ID, verb)
			}
		}
		a.report(msg)
		return exitOK, nil
	})
}

// stateAfter says how the hook ended up when that is not what the verb aimed for.
func (a *app) stateAfter(rep *engine.ConfigReport, id, verb string) string {
	for _, h := range rep.Hooks {
		if h.ID != id || strings.HasPrefix(h.Disabled, "duplicate of ") {
			continue
		}
		if verb == "enable" && !h.Enabled {
			return "\n  (still off: " + plainMessage(h.Disabled) + ")"
		}
		if verb == "disable" && h.Enabled {
			return "\n  (still on: " + stillOn + ")"
		}
		return ""
	}
	return ""
}

func (a *app) report(msg string) {
	if a.globals.json {
		a.printJSON(map[string]string{"message": msg})
		return
	}
	fmt.Fprintln(a.stdout, a.term.paint(green, "✓")+" "+msg)
}

func disableHook(a *app, rep *engine.ConfigReport, h engine.HookInfo) (string, error) {
	if !h.Enabled {
		return "", usagef("hook %s is already off: %s", h.ID, plainMessage(h.Disabled))
	}
	if h.Dialect == "autohand" && h.Path != "" {
		t, err := loadTarget(h.Source, h.Dialect, rep.ProjectDir)
		if err != nil {
			return "", err
		}
		segs, _ := jsontext.ParsePath(h.Path)
		if t.text, err = jsontext.Set(t.text, false, append(segs, jsontext.K("enabled"))...); err != nil {
			return "", err
		}
		return fmt.Sprintf("Disabled %s in %s", h.ID, a.shortPath(t.path)), t.save()
	}
	t, err := a.writableTarget(rep)
	if err != nil {
		return "", err
	}
	if t.dialect == "autohand" {
		return "", fmt.Errorf("%s is autohand's file, which has no disabledHooks; hook %s comes from %s", a.shortPath(t.path), h.ID, a.shortPath(h.Source))
	}
	if t.text, err = appendUnique(t.text, h.ID, jsontext.K("disabledHooks")); err != nil {
		return "", err
	}
	return fmt.Sprintf("Disabled %s (disabledHooks in %s)", h.ID, a.shortPath(t.path)), t.save()
}

// appendUnique adds s to the string array at path unless it is there already.
func appendUnique(text []byte, s string, path ...jsontext.Seg) ([]byte, error) {
	for _, v := range stringsAt(text, path) {
		if v == s {
			return text, nil
		}
	}
	return jsontext.Insert(text, -1, s, path...)
}

// stringsAt returns the strings of the array at path, or with field the string at field
// of each element ("" where it is absent or not a string; nil when path is no array).
func stringsAt(text []byte, path []jsontext.Seg, field ...jsontext.Seg) []string {
	n, err := jsontext.Len(text, path...)
	if err != nil {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		at := append(append(slices.Clip(path), jsontext.I(i)), field...)
		var s string
		if raw, err := jsontext.Get(text, at...); err == nil && json.Unmarshal(raw, &s) == nil {
			out[i] = s
		}
	}
	return out
}

func enableHook(a *app, rep *engine.ConfigReport, h engine.HookInfo) (string, error) {
	if h.Enabled {
		return "", usagef("hook %s is already on", h.ID)
	}
	var changed []string
	// disabledHooks in any loaded file that names the hook.
	for _, s := range rep.Sources {
		if s.Status != "loaded" || s.Path == config.InlineSource {
			continue
		}
		t, err := loadTarget(s.Path, s.Dialect, rep.ProjectDir)
		if err != nil {
			continue // YAML and unreadable files have no disabledHooks to edit
		}
		list := stringsAt(t.text, []jsontext.Seg{jsontext.K("disabledHooks")})
		touched := false
		for i := len(list) - 1; i >= 0; i-- {
			if list[i] == h.ID {
				if t.text, err = jsontext.Delete(t.text, jsontext.K("disabledHooks"), jsontext.I(i)); err != nil {
					return "", err
				}
				touched = true
			}
		}
		if touched {
			if err := t.save(); err != nil {
				return "", err
			}
			changed = append(changed, "disabledHooks in "+a.shortPath(t.path))
		}
	}
	// The hook's own "enabled": false.
	if h.Path != "" && h.Source != config.InlineSource {
		if t, err := loadTarget(h.Source, h.Dialect, rep.ProjectDir); err == nil {
			segs, _ := jsontext.ParsePath(h.Path)
			en := append(segs, jsontext.K("enabled"))
			if raw, err := jsontext.Get(t.text, en...); err == nil && string(raw) == "false" {
				if t.text, err = jsontext.Set(t.text, true, en...); err != nil {
					return "", err
				}
				if err := t.save(); err != nil {
					return "", err
				}
				changed = append(changed, "\"enabled\" in "+a.where(h.Source, h.Line))
			}
		}
	}
	if len(changed) == 0 {
		return "", fmt.Errorf("hook %s is off because: %s; enable cannot change that", h.ID, plainMessage(h.Disabled))
	}
	return fmt.Sprintf("Enabled %s (%s)", h.ID, strings.Join(changed, ", ")), nil
}

func removeHook(a *app, rep *engine.ConfigReport, h engine.HookInfo) (string, error) {
	if h.Path == "" || h.Source == config.InlineSource {
		return "", fmt.Errorf("hook %s does not come from a file hookexec can edit (%s)", h.ID, h.Source)
	}
	t, err := loadTarget(h.Source, h.Dialect, rep.ProjectDir)
	if err != nil {
		return "", err
	}
	segs, err := jsontext.ParsePath(h.Path)
	if err != nil {
		return "", err
	}
	if t.text, err = jsontext.Delete(t.text, segs...); err != nil {
		return "", fmt.Errorf("cannot find hook %s at %s in %s (changed since it was read?)", h.ID, h.Path, a.shortPath(t.path))
	}
	// Drop what the removal emptied: a matcher group whose "hooks" list is now empty, then
	// an event whose list is now empty (autohand's hooks.hooks list stays).
	if len(segs) == 5 && segs[3].Key == "hooks" { // hooks.EVENT[i].hooks[j]
		if n, err := jsontext.Len(t.text, segs[:4]...); err == nil && n == 0 {
			if t.text, err = jsontext.Delete(t.text, segs[:3]...); err != nil {
				return "", err
			}
		}
		segs = segs[:3]
	}
	if len(segs) == 3 && segs[0].Key == "hooks" && segs[1].Key != "hooks" { // hooks.EVENT[i]
		if n, err := jsontext.Len(t.text, segs[:2]...); err == nil && n == 0 {
			if t.text, err = jsontext.Delete(t.text, segs[:2]...); err != nil {
				return "", err
			}
		}
	}
	return fmt.Sprintf("Removed %s from %s", h.ID, a.where(h.Source, h.Line)), t.save()
}

type addFlags struct {
	command, matcher, name string
	timeout                float64
}

func runAdd(a *app, args []string, f addFlags) int {
	name, err := oneEvent("add", args)
	if err != nil {
		return a.fail(err)
	}
	if strings.TrimSpace(f.command) == "" {
		return a.fail(usagef("add: --command is required"))
	}
	if f.timeout < 0 {
		return a.fail(usagef("add: --timeout must be positive"))
	}
	return a.withTarget("", func(eng *engine.Engine, rep *engine.ConfigReport, t *target) (int, error) {
		var err error
		handler := jsontext.Object{jsontext.F("type", "command"), jsontext.F("command", f.command)}
		if f.name != "" {
			handler = append(jsontext.Object{jsontext.F("name", f.name)}, handler...)
		}
		if f.timeout > 0 {
			handler = append(handler, jsontext.F("timeout", f.timeout))
		}
		ev := event.Canonical(name)
		switch t.dialect {
		case "autohand":
			entry := jsontext.Object{jsontext.F("event", dialect.Autohand.EventName(name, ev))}
			if f.matcher != "" {
				entry = append(entry, jsontext.F("matcher", f.matcher))
			}
			for _, f := range handler {
				if f.Key != "type" { // autohand's entries are commands without saying so
					entry = append(entry, f)
				}
			}
			entry = append(entry, jsontext.F("enabled", true))
			t.text, err = jsontext.Insert(t.text, -1, entry, jsontext.K("hooks"), jsontext.K("hooks"))
		case "autoagent":
			if f.matcher != "" {
				handler = append(handler, jsontext.F("matcher", f.matcher))
			}
			t.text, err = jsontext.Insert(t.text, -1, handler, jsontext.K("hooks"), jsontext.K(name))
		default:
			group := jsontext.Object{}
			if f.matcher != "" {
				group = append(group, jsontext.F("matcher", f.matcher))
			}
			group = append(group, jsontext.F("hooks", []any{handler}))
			t.text, err = jsontext.Insert(t.text, -1, group, jsontext.K("hooks"), jsontext.K(name))
		}
		if err != nil {
			return 0, err
		}
		if err := t.save(); err != nil {
			return 0, err
		}
		msg := fmt.Sprintf("Added a %s hook to %s", ev, a.shortPath(t.path))
		if err := eng.Reload(); err == nil {
			if after, err := eng.Config(); err == nil {
				if id := newHookID(rep, after); id != "" {
					msg = fmt.Sprintf("Added %s (%s) to %s", id, ev, a.shortPath(t.path))
				}
			}
		}
		a.report(msg)
		return exitOK, nil
	})
}

// newHookID is the id of the hook present after an edit and not before.
func newHookID(before, after *engine.ConfigReport) string {
	seen := map[string]bool{}
	for _, h := range before.Hooks {
		seen[h.ID] = true
	}
	for _, h := range after.Hooks {
		if !seen[h.ID] {
			return h.ID
		}
	}
	return ""
}

// stillOn is why a hook outside the project stays on after an edit of a project file.
const stillOn = `with trust "project", what a file inside the project says turns off only the project's own hooks; edit your own settings file to turn off yours`

func runToggleAll(a *app, args []string) int {
	if len(args) != 1 || (args[0] != "on" && args[0] != "off") {
		return a.fail(usagef("toggle-all: want on or off"))
	}
	on := args[0] == "on"
	return a.withTarget("", func(eng *engine.Engine, _ *engine.ConfigReport, t *target) (int, error) {
		var err error
		key := "disableAllHooks"
		if t.dialect == "autohand" {
			key = "hooks.enabled"
			t.text, err = jsontext.Set(t.text, on, jsontext.K("hooks"), jsontext.K("enabled"))
		} else {
			t.text, err = jsontext.Set(t.text, !on, jsontext.K("disableAllHooks"))
		}
		if err != nil {
			return 0, err
		}
		if err := t.save(); err != nil {
			return 0, err
		}
		state := "off"
		if on {
			state = "on"
		}
		msg := fmt.Sprintf("All hooks %s (%s in %s)", state, key, a.shortPath(t.path))
		if err := eng.Reload(); !on && err == nil {
			if after, err := eng.Config(); err == nil {
				n := 0
				for _, h := range after.Hooks {
					n += boolInt(h.Enabled && !after.DisableAll)
				}
				if n > 0 {
					msg += fmt.Sprintf("\n  (%s still on: %s)", plural(n, "hook"), stillOn)
				}
			}
		}
		a.report(msg)
		return exitOK, nil
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
