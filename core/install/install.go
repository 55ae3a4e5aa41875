// Package install makes hookexec the one hook an agent runs. For each settings file of a
// scope it moves the matcher groups hookexec can run into a hookexec-managed file beside
// it (same format: the moved text is copied, not re-encoded), and puts one dispatcher
// entry per event those groups used into the agent's settings, keeping the rest of the
// file as it was. The original file is kept byte for byte in a backup, and Uninstall puts
// it back exactly when neither file changed since; otherwise it merges the managed hooks
// back into the current settings and says so.
//
// Every write is atomic (core/atomicfile), and nothing is written through a symbolic link
// that leads outside the scope's directory (the project, or the home). Install is
// idempotent: a second install changes nothing. Groups holding a handler the agent
// evaluates itself (Claude Code's prompt, agent and mcp_tool hooks) stay with the agent.
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/hookexec/hookexec/core/atomicfile"
	"github.com/hookexec/hookexec/core/jsontext"
	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/vocab"
)

// ErrOutside is returned when a file to write resolves outside the scope's directory.
var ErrOutside = errors.New("hookexec: refusing to write outside the scope")

// Marker is in every dispatcher command: "hook --agent NAME".
func Marker(agent string) string { return "hook --agent " + agent }

// DispatchTimeoutMargin is added to the longest timeout of an event's moved hooks to give
// the dispatcher entry's timeout (in the agent's unit), so the agent never kills the
// dispatcher before the hooks' own timeouts end them.
const DispatchTimeoutMargin = 5 * time.Second

// Change reports what happened to one settings file.
type Change struct {
	File   native.File
	Action string   // "installed", "already installed", "no hooks", "no settings", "restored", "merged", "not installed", NotMoved
	Events []string // the events given a dispatcher entry (install)
	Moved  int      // matcher groups moved to the managed file
	Kept   int      // matcher groups left with the agent (handlers it evaluates itself)
}

// Install installs the dispatcher command into every settings file of the scope (dir is
// the project for Project, the home for User).
func Install(a *native.Agent, s native.Scope, dir, command string) ([]Change, error) {
	return InstallWith(a, s, dir, command, nil)
}

// InstallWith is Install with the http transport when h is not nil (see HTTP).
func InstallWith(a *native.Agent, s native.Scope, dir, command string, h *HTTP) ([]Change, error) {
	if h != nil && a.Name != "claude" {
		return nil, fmt.Errorf("the http transport is Claude Code's only: %s has no http hooks (docs/daemon.md)", a.Display)
	}
	if a.Dir != nil {
		c, err := installDir(a, s, dir, command)
		return []Change{c}, err
	}
	if a.Script != nil {
		return InstallScripts(a, s, dir, command)
	}
	if a.Scoped {
		// The agent runs each scope's entry: this one runs this scope's hooks only.
		command += ScopeFlag + s.String()
	}
	var out []Change
	for _, f := range a.Files(s, dir) {
		c, err := installFile(a, f, dir, command, h)
		if err != nil {
			return out, fmt.Errorf("%s: %w", f.Settings, err)
		}
		out = append(out, c)
	}
	for _, path := range a.Unmoved(s, dir) {
		has, err := hasTOMLHooks(path)
		if err != nil {
			return out, fmt.Errorf("%s: %w", path, err)
		}
		if has {
			out = append(out, Change{File: native.File{Settings: path}, Action: NotMoved})
		}
	}
	return out, nil
}

// ScopeFlag, then the scope, ends the dispatcher command of an agent that runs every
// scope's entry (native.Agent.Scoped).
const ScopeFlag = " --scope "

// NotMoved is the action for a file whose hooks install leaves with the agent.
const NotMoved = "not moved: its [hooks] table stays with the agent (install does not rewrite TOML); move them to hooks.json to have hookexec run them"

// hasTOMLHooks reports whether a TOML file (Codex's config.toml) has a [hooks] table.
func hasTOMLHooks(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return false, fmt.Errorf("invalid TOML: %v", err)
	}
	_, ok := doc["hooks"]
	return ok, nil
}

func installFile(a *native.Agent, f native.File, root, command string, h *HTTP) (Change, error) {
	c := Change{File: f}
	orig, err := os.ReadFile(f.Settings)
	if errors.Is(err, fs.ErrNotExist) && h != nil && h.Secret != "" {
		// The user's settings carry the secret's variable whether or not they have hooks.
		orig, err = []byte("{}\n"), nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		c.Action = "no settings"
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if _, err := os.Stat(f.Backup); err == nil {
		c.Action = "already installed"
		return c, nil
	}
	p, err := plan(a, f, orig, command, h)
	if err != nil {
		return c, err
	}
	c.Moved, c.Kept, c.Events = p.moved, p.kept, p.events
	if p.settings == nil {
		c.Action = "no hooks"
		return c, nil
	}
	if _, err := os.Lstat(f.Managed); err == nil {
		return c, fmt.Errorf("%s exists but no install is recorded (no %s); move it away first", f.Managed, filepath.Base(f.Backup))
	}
	for _, path := range []string{f.Backup, f.Managed, f.Settings} {
		if err := inside(root, path); err != nil {
			return c, err
		}
	}
	// Backup first: a crash after it leaves an install that uninstall can undo.
	if err := atomicfile.Write(f.Backup, orig, 0o600); err != nil {
		return c, err
	}
	if err := atomicfile.Write(f.Managed, p.managed, 0o644); err != nil {
		return c, err
	}
	write := func() error { return atomicfile.Write(f.Settings, p.settings, 0o644) }
	if h != nil && h.Secret != "" {
		// It now holds the transport's secret: 0600 from the first byte written, not after.
		write = func() error { return atomicfile.WritePrivate(f.Settings, p.settings, 0o600) }
	}
	if err := write(); err != nil {
		return c, err
	}
	c.Action = "installed"
	return c, nil
}

// group is one matcher group of a settings file's hooks.
type group struct {
	raw      json.RawMessage
	dispatch bool          // a dispatcher entry of ours
	keep     bool          // holds a handler the agent evaluates itself
	timeout  time.Duration // the longest handler timeout
	command  string        // the dispatcher command, for a dispatcher entry
	url      string        // the daemon's URL, for an http dispatcher entry
}

// event is one key of the hooks object: an event's matcher groups, or a setting the
// agent keeps there (config, its text as it was).
type event struct {
	name   string
	groups []group
	config json.RawMessage
}

// result of planning an install of one file.
type planned struct {
	settings, managed []byte
	events            []string
	moved, kept       int
}

// hooksAt is where a file's events object is: its "hooks", or its root (native.File.Root).
func hooksAt(f native.File) []jsontext.Seg {
	if f.Root {
		return nil
	}
	return []jsontext.Seg{jsontext.K("hooks")}
}

// putHooks sets a file's events object to obj. At the root (Droid's hooks.json) each event
// is set or deleted on its own, so that every other key keeps its text byte for byte.
func putHooks(text []byte, f native.File, obj jsontext.Object, events []event) ([]byte, error) {
	if !f.Root {
		return jsontext.Set(text, obj, jsontext.K("hooks"))
	}
	set := map[string]any{}
	for _, fl := range obj {
		set[fl.Key] = fl.Value
	}
	var err error
	for _, ev := range events {
		if ev.config != nil {
			continue
		}
		if v, ok := set[ev.name]; ok {
			text, err = jsontext.Set(text, v, jsontext.K(ev.name))
		} else {
			text, err = jsontext.Delete(text, jsontext.K(ev.name))
		}
		if err != nil {
			return nil, err
		}
		delete(set, ev.name)
	}
	for _, fl := range obj { // events the file did not have
		if v, ok := set[fl.Key]; ok {
			if text, err = jsontext.Set(text, v, jsontext.K(fl.Key)); err != nil {
				return nil, err
			}
		}
	}
	return text, nil
}

// plan computes both files' new text from the settings file's original text.
func plan(a *native.Agent, f native.File, orig []byte, command string, h *HTTP) (planned, error) {
	var p planned
	hooksRaw, err := jsontext.Get(orig, hooksAt(f)...)
	if errors.Is(err, jsontext.ErrNotFound) {
		if h == nil || h.Secret == "" {
			return p, nil
		}
		hooksRaw, err = []byte("{}"), nil
	}
	if err != nil {
		return p, err
	}
	events, err := parseHooks(a, f, hooksRaw)
	if err != nil {
		return p, err
	}
	// The managed file: the original hooks text with the kept groups (and events left
	// empty) deleted, so every moved group keeps its text.
	managed := append(append([]byte("{\n  \"hooks\": "), reindent(hooksRaw)...), "\n}\n"...)
	newHooks := jsontext.Object{}
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		if ev.config != nil {
			// A setting, not an event: it stays in the settings, and the managed file
			// (hooks only) goes without it.
			newHooks = append(jsontext.Object{{Key: ev.name, Value: ev.config}}, newHooks...)
			if managed, err = jsontext.Delete(managed, jsontext.K("hooks"), jsontext.K(ev.name)); err != nil {
				return p, err
			}
			continue
		}
		var kept []any
		moved, longest := 0, time.Duration(0)
		for j := len(ev.groups) - 1; j >= 0; j-- {
			g := ev.groups[j]
			if g.dispatch {
				return p, fmt.Errorf("it already runs %q but hookexec has no record of installing it; remove that entry first", command)
			}
			if !g.keep {
				moved++
				longest = max(longest, g.timeout)
				continue
			}
			kept = append([]any{g.raw}, kept...)
			if managed, err = jsontext.Delete(managed, jsontext.K("hooks"), jsontext.K(ev.name), jsontext.I(j)); err != nil {
				return p, err
			}
		}
		if moved == 0 {
			if managed, err = jsontext.Delete(managed, jsontext.K("hooks"), jsontext.K(ev.name)); err != nil {
				return p, err
			}
		}
		var groups []any
		if moved > 0 {
			p.events = append([]string{ev.name}, p.events...)
			groups = append(groups, jsontext.Object{{Key: "hooks", Value: []any{
				entry(a, ev.name, command, h, longest)}}})
		}
		groups = append(groups, kept...)
		if len(groups) > 0 {
			newHooks = append(jsontext.Object{{Key: ev.name, Value: groups}}, newHooks...)
		}
		p.moved += moved
		p.kept += len(kept)
	}
	if h != nil && (p.moved > 0 || h.Secret != "") && !slices.Contains(p.events, "SessionStart") {
		// The http transport's session entry, whether or not SessionStart has hooks.
		p.events = append(p.events, "SessionStart")
		newHooks = append(newHooks, jsontext.Field{Key: "SessionStart", Value: []any{jsontext.Object{{Key: "hooks",
			Value: []any{entry(a, "SessionStart", command, h, sessionWait)}}}}})
	}
	if p.moved == 0 && (h == nil || h.Secret == "") {
		return p, nil
	}
	p.managed = managed
	if p.settings, err = putHooks(orig, f, newHooks, events); err != nil {
		return p, err
	}
	if h != nil && h.Secret != "" {
		if p.settings, err = jsontext.Set(p.settings, h.Secret, jsontext.K("env"), jsontext.K(SecretEnv)); err != nil {
			return p, err
		}
	}
	return p, nil
}

// reindent shifts the continuation lines of a value cut from a file so that it reads
// right one level in ("  " per level, as the managed file is written).
func reindent(raw []byte) []byte { return indentAs(raw, "  ") }

// knownEvent says whether the agent's vocabulary names an event name.
func knownEvent(a *native.Agent, name string) bool {
	_, ok := vocab.EventOf(a.Profile, name)
	return ok
}

// parseHooks reads the hooks object of f in file order. A key that is a setting, an event
// another file of the folder replaces (native.Agent.Shadowed), or at the root of a file any
// key that names no event of the agent, is kept as it is (config).
func parseHooks(a *native.Agent, f native.File, raw []byte) ([]event, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New(`"hooks" is not an object`)
	}
	shadowed := a.Shadowed(f)
	var out []event
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		if a.IsHooksConfig(name) || shadowed[name] || f.Root && !knownEvent(a, name) {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("hooks.%s: %v", name, err)
			}
			out = append(out, event{name: name, config: raw})
			continue
		}
		var groups []json.RawMessage
		if err := dec.Decode(&groups); err != nil {
			return nil, fmt.Errorf("hooks.%s: want an array of matcher groups: %v", name, err)
		}
		ev := event{name: name}
		for i, raw := range groups {
			var g struct {
				Hooks []struct {
					Type    string  `json:"type"`
					Command string  `json:"command"`
					URL     string  `json:"url"`
					Timeout float64 `json:"timeout"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal(raw, &g); err != nil {
				return nil, fmt.Errorf("hooks.%s[%d]: %v", name, i, err)
			}
			gr := group{raw: raw}
			for _, h := range g.Hooks {
				if a.Evaluates(h.Type) {
					gr.keep = true
				}
				if strings.Contains(h.Command, Marker(a.Name)) {
					gr.dispatch, gr.command = true, h.Command
				}
				if h.Type == "http" && strings.HasSuffix(h.URL, httpPath(a.Name)) {
					gr.dispatch, gr.url = true, h.URL
				}
				t := a.TimeoutOf(h.Timeout)
				if t <= 0 {
					t = a.DefaultTimeout
				}
				gr.timeout = max(gr.timeout, t)
			}
			ev.groups = append(ev.groups, gr)
		}
		out = append(out, ev)
	}
	return out, nil
}

// Uninstall puts back every settings file of the scope that Install changed.
func Uninstall(a *native.Agent, s native.Scope, dir string) ([]Change, error) {
	if a.Plugin != nil {
		c, err := UninstallPlugin(a, s, dir)
		return []Change{c}, err
	}
	if a.Dir != nil {
		c, err := uninstallDir(a, s, dir)
		return []Change{c}, err
	}
	if a.Script != nil {
		return UninstallScripts(a, s, dir)
	}
	var out []Change
	for _, f := range a.Files(s, dir) {
		c, err := uninstallFile(a, f, dir)
		if err != nil {
			return out, fmt.Errorf("%s: %w", f.Settings, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func uninstallFile(a *native.Agent, f native.File, root string) (Change, error) {
	c := Change{File: f, Action: "not installed"}
	backup, err := os.ReadFile(f.Backup)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	for _, path := range []string{f.Backup, f.Managed, f.Settings} {
		if err := inside(root, path); err != nil {
			return c, err
		}
	}
	current, err := os.ReadFile(f.Settings)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return c, err
	}
	managed, err := os.ReadFile(f.Managed)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return c, err
	}
	restored := backup
	c.Action = "restored"
	command, h := installed(a, f, current)
	if p, err := plan(a, f, backup, command, h); err != nil || !bytes.Equal(p.settings, current) || !bytes.Equal(p.managed, managed) {
		// Something changed since install: the current settings without our entries, plus
		// the managed hooks as they are now.
		if restored, err = merge(a, f, current, managed); err != nil {
			return c, err
		}
		if h != nil && h.Secret != "" {
			if restored, err = jsontext.Delete(restored, jsontext.K("env"), jsontext.K(SecretEnv)); err != nil && !errors.Is(err, jsontext.ErrNotFound) {
				return c, err
			}
		}
		c.Action = "merged"
	}
	if err := atomicfile.Write(f.Settings, restored, 0o644); err != nil {
		return c, err
	}
	for _, path := range []string{f.Managed, f.Backup} {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return c, err
		}
	}
	return c, nil
}

// installed finds the dispatcher command in settings text ("" if none), and what the http
// transport installed (nil: not installed).
func installed(a *native.Agent, f native.File, settings []byte) (string, *HTTP) {
	raw, err := jsontext.Get(settings, hooksAt(f)...)
	if err != nil {
		return "", nil
	}
	events, err := parseHooks(a, f, raw)
	if err != nil {
		return "", nil
	}
	command, session, url := "", "", ""
	for _, ev := range events {
		for _, g := range ev.groups {
			switch {
			case !g.dispatch:
			case g.url != "":
				url = g.url
			case strings.HasSuffix(g.command, SessionFlag):
				session = g.command
			case command == "":
				command = g.command
			}
		}
	}
	if session == "" {
		return command, nil
	}
	h := &HTTP{URL: url, SessionCommand: session}
	if raw, err := jsontext.Get(settings, jsontext.K("env"), jsontext.K(SecretEnv)); err == nil {
		_ = json.Unmarshal(raw, &h.Secret)
	}
	return command, h
}

// merge removes the dispatcher groups from settings and appends the managed file's groups
// to their events.
func merge(a *native.Agent, f native.File, settings, managed []byte) ([]byte, error) {
	var cur []event
	if raw, err := jsontext.Get(settings, hooksAt(f)...); err == nil {
		if cur, err = parseHooks(a, f, raw); err != nil {
			return nil, err
		}
	}
	var moved []event
	if raw, err := jsontext.Get(managed, jsontext.K("hooks")); err == nil {
		if moved, err = parseHooks(a, native.File{}, raw); err != nil {
			return nil, err
		}
	}
	out := jsontext.Object{}
	index := map[string]int{}
	add := func(name string, g json.RawMessage) {
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, jsontext.Field{Key: name, Value: []any{}})
		}
		out[i].Value = append(out[i].Value.([]any), g)
	}
	for _, ev := range cur {
		if ev.config != nil {
			index[ev.name] = len(out)
			out = append(out, jsontext.Field{Key: ev.name, Value: ev.config})
			continue
		}
		for _, g := range ev.groups {
			if !g.dispatch {
				add(ev.name, g.raw)
			}
		}
	}
	for _, ev := range moved {
		for _, g := range ev.groups {
			add(ev.name, g.raw)
		}
	}
	return putHooks(settings, f, out, cur)
}

// FileStatus is what is installed in one settings file.
type FileStatus struct {
	File      native.File
	Installed bool
	// Modified is set for a plugin (opencode, Kilo) that carries install's marker but is not
	// what install writes: Installed is then false.
	Modified bool
	Events   []string // events whose dispatcher entry is in the settings
	Managed  int      // matcher groups in the managed file
	Native   int      // matcher groups the agent still runs itself
}

// Status reports every settings file of the scope.
func Status(a *native.Agent, s native.Scope, dir string) ([]FileStatus, error) {
	if a.Plugin != nil {
		st, err := PluginStatus(a, s, dir)
		return []FileStatus{st}, err
	}
	if a.Dir != nil {
		st, err := statusDir(a, s, dir)
		return []FileStatus{st}, err
	}
	if a.Script != nil {
		return ScriptStatus(a, s, dir)
	}
	var out []FileStatus
	for _, f := range a.Files(s, dir) {
		st := FileStatus{File: f}
		if _, err := os.Stat(f.Backup); err == nil {
			st.Installed = true
		}
		if text, err := os.ReadFile(f.Settings); err == nil {
			if raw, err := jsontext.Get(text, hooksAt(f)...); err == nil {
				evs, err := parseHooks(a, f, raw)
				if err != nil {
					return out, fmt.Errorf("%s: %w", f.Settings, err)
				}
				for _, ev := range evs {
					for _, g := range ev.groups {
						if g.dispatch {
							st.Events = append(st.Events, ev.name)
						} else {
							st.Native++
						}
					}
				}
			}
		}
		if text, err := os.ReadFile(f.Managed); err == nil {
			if raw, err := jsontext.Get(text, jsontext.K("hooks")); err == nil {
				evs, err := parseHooks(a, native.File{}, raw)
				if err != nil {
					return out, fmt.Errorf("%s: %w", f.Managed, err)
				}
				for _, ev := range evs {
					st.Managed += len(ev.groups)
				}
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// inside checks that path, following every symbolic link on the way (the file's own and
// its directories'), stays under root.
func inside(root, path string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	real, rest := path, ""
	for {
		r, err := filepath.EvalSymlinks(real)
		if err == nil {
			real = filepath.Join(r, rest)
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// A link whose target is missing still points somewhere: follow it by hand.
		if target, lerr := os.Readlink(real); lerr == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(real), target)
			}
			real = target
			continue
		}
		parent := filepath.Dir(real)
		if parent == real {
			break
		}
		rest = filepath.Join(filepath.Base(real), rest)
		real = parent
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return fmt.Errorf("%w: %s leads to %s, outside %s", ErrOutside, path, real, root)
	}
	return nil
}
