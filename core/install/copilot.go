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
	"sort"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/atomicfile"
	"github.com/hookexec/hookexec/core/jsontext"
	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/vocab"
)

// An agent with a hooks directory (native.HooksDir: GitHub Copilot CLI) runs the hooks of
// every *.json file in it, each directory's files in reverse name order, the user's before
// the project's. Install moves every entry hookexec can run out of those files into one
// managed file of the scope (beside the directory, where the agent does not look), in the
// order the agent runs them, and writes one dispatcher file into the directory with one
// entry per event, which names its event ("--event preToolUse": the payloads do not).
// Each file it changed is kept byte for byte in a backup (.NAME.hookexec-backup, which the
// agent does not read), and keeps every key and entry it did not move as it was; a file
// without hooks to move is not touched. Entries the agent evaluates itself (Copilot's
// prompt hooks) stay.
//
// The managed file and the dispatcher file are written before the hooks files are
// rewritten: a crash in between runs a hook twice (natively and through hookexec), never
// not at all; uninstall undoes any part of an install.

// DirOf is where the agent's hooks of a scope live: the hooks directory, its dispatcher
// file and hookexec's managed file.
func DirOf(a *native.Agent, s native.Scope, dir string) (hooksDir, dispatcher, managed string) {
	hooksDir = a.Dir.Dir(s, dir, os.Getenv)
	return hooksDir, filepath.Join(hooksDir, a.Dir.Dispatcher), a.Dir.Managed(s, dir, os.Getenv)
}

// dirRoot is the directory nothing of the scope may be written outside of: the project,
// or the agent's home directory ($COPILOT_HOME may lie outside the user's home).
func dirRoot(a *native.Agent, s native.Scope, dir string) string {
	if s == native.User {
		return filepath.Dir(a.Dir.Managed(s, dir, os.Getenv))
	}
	return dir
}

// dirEntry is one entry of an event's list in a hooks file.
type dirEntry struct {
	raw      json.RawMessage
	keep     bool // the agent evaluates it itself
	dispatch bool // a dispatcher entry of ours
	timeout  time.Duration
}

// dirFile is one hooks file of the directory, read.
type dirFile struct {
	name   string // base name
	orig   []byte
	events []dirEvent // in file order; nil when the file has no "hooks"
}

type dirEvent struct {
	name    string
	entries []dirEntry
}

// readDirFiles reads the directory's *.json files but the dispatcher file, in the order
// the agent runs them (reverse name order). A file that cannot be read as hooks stops the
// install: the agent's reading of it is not known, so nothing is moved.
func readDirFiles(a *native.Agent, hooksDir string) ([]dirFile, error) {
	names, err := filepath.Glob(filepath.Join(hooksDir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	var out []dirFile
	for _, path := range names {
		name := filepath.Base(path)
		if name == a.Dir.Dispatcher {
			continue
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parseDirFile(a, name, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, f)
	}
	return out, nil
}

func parseDirFile(a *native.Agent, name string, data []byte) (dirFile, error) {
	f := dirFile{name: name, orig: data}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return f, fmt.Errorf("not a JSON object (%v); fix or move it before installing", err)
	}
	if raw, ok := top["disableAllHooks"]; ok && string(raw) != "false" {
		return f, errors.New(`it sets "disableAllHooks"; install moves no hooks of such a directory`)
	}
	hooksRaw, err := jsontext.Get(data, jsontext.K("hooks"))
	if errors.Is(err, jsontext.ErrNotFound) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	dec := json.NewDecoder(bytes.NewReader(hooksRaw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return f, errors.New(`"hooks" is not an object`)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return f, err
		}
		ev := dirEvent{name: t.(string)}
		var list []json.RawMessage
		if err := dec.Decode(&list); err != nil {
			return f, fmt.Errorf("hooks.%s: want an array of hooks: %v", ev.name, err)
		}
		for i, raw := range list {
			var h struct {
				Type       string  `json:"type"`
				Bash       string  `json:"bash"`
				Command    string  `json:"command"`
				TimeoutSec float64 `json:"timeoutSec"`
			}
			if err := json.Unmarshal(raw, &h); err != nil {
				return f, fmt.Errorf("hooks.%s[%d]: %v", ev.name, i, err)
			}
			e := dirEntry{raw: raw, keep: a.Evaluates(h.Type), timeout: a.TimeoutOf(h.TimeoutSec)}
			if e.timeout <= 0 {
				e.timeout = a.DefaultTimeout
			}
			e.dispatch = strings.Contains(h.Bash, Marker(a.Name)) || strings.Contains(h.Command, Marker(a.Name)) ||
				strings.Contains(h.Bash, "--agent "+a.Name+" --scope ")
			ev.entries = append(ev.entries, e)
		}
		f.events = append(f.events, ev)
	}
	return f, nil
}

// dirPlan is what install writes for a scope: each changed file's new text, the managed
// file and the dispatcher file.
type dirPlan struct {
	rewritten  map[string][]byte // base name → new text (changed files only)
	managed    []byte            // nil: nothing to move
	dispatcher []byte
	events     []string // the dispatcher's events, as it spells them
	moved      int
	kept       int
}

// planDir computes an install from the directory's files as they are (in run order).
func planDir(a *native.Agent, files []dirFile, command, scope string) (dirPlan, error) {
	p := dirPlan{rewritten: map[string][]byte{}}
	type movedEvent struct {
		name    string
		entries []json.RawMessage
	}
	var moved []*movedEvent
	byName := map[string]*movedEvent{}
	longest := map[string]time.Duration{} // per dispatcher event
	var order []string                    // dispatcher events in first-use order
	for _, f := range files {
		text := f.orig
		changed := false
		for _, ev := range f.events {
			spelled := ""
			if e, ok := vocab.EventOf(a.Name, ev.name); ok {
				spelled = native.CopilotEvent(e.Canonical)
			}
			if spelled == "" {
				spelled = ev.name // an event hookexec does not know: the agent's own spelling
			}
			kept := 0
			for j := len(ev.entries) - 1; j >= 0; j-- {
				e := ev.entries[j]
				if e.dispatch {
					return p, fmt.Errorf("%s already runs the dispatcher but hookexec has no record of installing it; remove that entry first", f.name)
				}
				if e.keep {
					kept++
					continue
				}
				var err error
				if text, err = jsontext.Delete(text, jsontext.K("hooks"), jsontext.K(ev.name), jsontext.I(j)); err != nil {
					return p, fmt.Errorf("%s: %w", f.name, err)
				}
				changed = true
			}
			p.kept += kept
			for _, e := range ev.entries {
				if e.keep {
					continue
				}
				m := byName[ev.name]
				if m == nil {
					m = &movedEvent{name: ev.name}
					byName[ev.name] = m
					moved = append(moved, m)
				}
				m.entries = append(m.entries, e.raw)
				p.moved++
				if _, ok := longest[spelled]; !ok {
					order = append(order, spelled)
				}
				longest[spelled] = max(longest[spelled], e.timeout)
			}
			if kept == 0 && len(ev.entries) > 0 {
				var err error
				if text, err = jsontext.Delete(text, jsontext.K("hooks"), jsontext.K(ev.name)); err != nil {
					return p, fmt.Errorf("%s: %w", f.name, err)
				}
			}
		}
		if changed {
			p.rewritten[f.name] = text
		}
	}
	if p.moved == 0 {
		return p, nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"version\": %d,\n  \"hooks\": {", a.Dir.Version)
	for i, m := range moved {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.name)
		fmt.Fprintf(&b, "\n    %s: [", k)
		for j, raw := range m.entries {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n      ")
			b.Write(indentAs(raw, "      "))
		}
		b.WriteString("\n    ]")
	}
	b.WriteString("\n  }\n}\n")
	p.managed = b.Bytes()
	hooks := jsontext.Object{}
	for _, ev := range order {
		// The entry's own timeout goes to the client too (--timeout-ms): each entry's command
		// is its own already, and the client's default (Copilot's 30 s) is shorter than an
		// entry's (a 30 s hook's plus the margin), so a slow call was dropped before its time
		// (seen live at load 60: files_run_in_reverse_name_order).
		n := a.TimeoutValue(longest[ev] + DispatchTimeoutMargin)
		ms := a.TimeoutOf(float64(n)).Milliseconds()
		hooks = append(hooks, jsontext.Field{Key: ev, Value: []any{jsontext.Object{
			{Key: "type", Value: "command"},
			{Key: "bash", Value: fmt.Sprintf("%s --scope %s --event %s --timeout-ms %d", command, scope, ev, ms)},
			{Key: "timeoutSec", Value: n},
		}}})
		p.events = append(p.events, ev)
	}
	var err error
	p.dispatcher, err = jsontext.Set([]byte("{\n  \"version\": 1\n}\n"), hooks, jsontext.K("hooks"))
	if err != nil {
		return p, err
	}
	if a.Dir.Version != 1 {
		p.dispatcher, err = jsontext.Set(p.dispatcher, a.Dir.Version, jsontext.K("version"))
	}
	return p, err
}

// indentAs re-indents a value cut from a file so that its continuation lines sit under
// prefix (its closing line's indent is the value's own).
func indentAs(raw []byte, prefix string) []byte {
	lines := bytes.Split(raw, []byte("\n"))
	if len(lines) < 2 {
		return raw
	}
	last := lines[len(lines)-1]
	own := len(last) - len(bytes.TrimLeft(last, " \t"))
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		cut := min(own, len(l)-len(bytes.TrimLeft(l, " \t")))
		lines[i] = append([]byte(prefix), l[cut:]...)
	}
	return bytes.Join(lines, []byte("\n"))
}

func dirBackup(hooksDir, name string) string {
	return filepath.Join(hooksDir, "."+name+".hookexec-backup")
}

// installDir installs the dispatcher into the scope's hooks directory.
func installDir(a *native.Agent, s native.Scope, dir, command string) (Change, error) {
	hooksDir, dispatcher, managed := DirOf(a, s, dir)
	c := Change{File: native.File{Settings: dispatcher, Managed: managed}}
	if data, err := os.ReadFile(dispatcher); err == nil {
		if !bytes.Contains(data, []byte("--agent "+a.Name+" --scope ")) {
			return c, fmt.Errorf("%s exists and is not hookexec's dispatcher file; rename it first", dispatcher)
		}
		c.Action = "already installed"
		return c, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return c, err
	}
	if _, err := os.Lstat(managed); err == nil {
		return c, fmt.Errorf("%s exists but no install is recorded (no %s); move it away first", managed, dispatcher)
	}
	if _, err := os.Stat(hooksDir); errors.Is(err, fs.ErrNotExist) {
		c.Action = "no settings"
		return c, nil
	}
	files, err := readDirFiles(a, hooksDir)
	if err != nil {
		return c, err
	}
	p, err := planDir(a, files, command, s.String())
	if err != nil {
		return c, err
	}
	c.Moved, c.Kept, c.Events = p.moved, p.kept, p.events
	if p.managed == nil {
		c.Action = "no hooks"
		return c, nil
	}
	root := dirRoot(a, s, dir)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range p.rewritten {
			if !yield(n) {
				return
			}
		}
	})
	paths := []string{managed, dispatcher}
	for _, n := range names {
		paths = append(paths, filepath.Join(hooksDir, n), dirBackup(hooksDir, n))
	}
	for _, path := range paths {
		if err := inside(root, path); err != nil {
			return c, err
		}
	}
	for _, n := range names {
		if _, err := os.Lstat(dirBackup(hooksDir, n)); err == nil {
			return c, fmt.Errorf("%s exists but no install is recorded; move it away first", dirBackup(hooksDir, n))
		}
	}
	origs := map[string][]byte{}
	for _, f := range files {
		origs[f.name] = f.orig
	}
	// Backups first, then what runs the hooks, then the files they leave.
	for _, n := range names {
		if err := atomicfile.Write(dirBackup(hooksDir, n), origs[n], 0o600); err != nil {
			return c, err
		}
	}
	if err := atomicfile.Write(managed, p.managed, 0o644); err != nil {
		return c, err
	}
	if err := atomicfile.Write(dispatcher, p.dispatcher, 0o644); err != nil {
		return c, err
	}
	for _, n := range names {
		if err := atomicfile.Write(filepath.Join(hooksDir, n), p.rewritten[n], 0o644); err != nil {
			return c, err
		}
	}
	c.Action = "installed"
	return c, nil
}

// MovedName is the hooks file uninstall writes the managed hooks into when the managed file
// changed since install (its entries can no longer be told back to their files).
const MovedName = "hookexec-moved.json"

// uninstallDir puts back the files install changed: a file as install left it is restored
// byte for byte from its backup; one changed since gets the entries install moved out of
// it back at the end of their events ("merged"). When the managed file changed since
// install, its hooks go back as one file of the directory (MovedName) instead, and the
// other files stay as they are now. The dispatcher file, the managed file and the backups
// are removed.
func uninstallDir(a *native.Agent, s native.Scope, dir string) (Change, error) {
	hooksDir, dispatcher, managed := DirOf(a, s, dir)
	c := Change{File: native.File{Settings: dispatcher, Managed: managed}, Action: "not installed"}
	backups, err := filepath.Glob(filepath.Join(hooksDir, ".*.json.hookexec-backup"))
	if err != nil {
		return c, err
	}
	_, dErr := os.Lstat(dispatcher)
	_, mErr := os.Lstat(managed)
	if len(backups) == 0 && dErr != nil && mErr != nil {
		return c, nil
	}
	root := dirRoot(a, s, dir)
	for _, path := range append([]string{dispatcher, managed, filepath.Join(hooksDir, MovedName)}, backups...) {
		if err := inside(root, path); err != nil {
			return c, err
		}
	}
	// What install wrote, computed again from the backups and the files install did not change.
	var origs []dirFile
	names := map[string]bool{}
	for _, b := range backups {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(b), "."), ".hookexec-backup")
		data, err := os.ReadFile(b)
		if err != nil {
			return c, err
		}
		f, err := parseDirFile(a, name, data)
		if err != nil {
			return c, fmt.Errorf("%s: %w", b, err)
		}
		origs = append(origs, f)
		names[name] = true
	}
	sort.Slice(origs, func(i, j int) bool { return origs[i].name > origs[j].name })
	p, err := planDir(a, origs, "", s.String())
	if err != nil {
		return c, err
	}
	current, err := os.ReadFile(managed)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return c, err
	}
	c.Action = "restored"
	if err == nil && !bytes.Equal(current, p.managed) {
		// The managed hooks changed: they go back as they are now, as one file.
		moved := filepath.Join(hooksDir, MovedName)
		if _, err := os.Lstat(moved); err == nil {
			return c, fmt.Errorf("%s changed since install and %s exists: move one of them away first", managed, moved)
		}
		if err := atomicfile.Write(moved, current, 0o644); err != nil {
			return c, err
		}
		c.Action = "merged"
	} else {
		for _, f := range origs {
			path := filepath.Join(hooksDir, f.name)
			now, err := os.ReadFile(path)
			restored := f.orig
			switch {
			case errors.Is(err, fs.ErrNotExist) || err == nil && (bytes.Equal(now, p.rewritten[f.name]) || bytes.Equal(now, f.orig)):
			case err != nil:
				return c, err
			default:
				if restored, err = mergeDir(now, f); err != nil {
					return c, fmt.Errorf("%s: %w", path, err)
				}
				c.Action = "merged"
			}
			if err := atomicfile.Write(path, restored, 0o644); err != nil {
				return c, err
			}
		}
	}
	for _, path := range append([]string{dispatcher, managed}, backups...) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return c, err
		}
	}
	return c, nil
}

// mergeDir appends the entries install moved out of a file (f, as it was) to the events
// of the file's text now.
func mergeDir(now []byte, f dirFile) ([]byte, error) {
	out := now
	for _, ev := range f.events {
		for _, e := range ev.entries {
			if e.keep {
				continue
			}
			n, err := jsontext.Len(out, jsontext.K("hooks"), jsontext.K(ev.name))
			switch {
			case errors.Is(err, jsontext.ErrNotFound):
				if _, herr := jsontext.Get(out, jsontext.K("hooks")); errors.Is(herr, jsontext.ErrNotFound) {
					if out, err = jsontext.Set(out, jsontext.Object{}, jsontext.K("hooks")); err != nil {
						return nil, err
					}
				}
				if out, err = jsontext.Set(out, []any{e.raw}, jsontext.K("hooks"), jsontext.K(ev.name)); err != nil {
					return nil, err
				}
				continue
			case err != nil:
				return nil, err
			}
			if out, err = jsontext.Insert(out, n, e.raw, jsontext.K("hooks"), jsontext.K(ev.name)); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// statusDir reports the scope's hooks directory.
func statusDir(a *native.Agent, s native.Scope, dir string) (FileStatus, error) {
	hooksDir, dispatcher, managed := DirOf(a, s, dir)
	st := FileStatus{File: native.File{Settings: dispatcher, Managed: managed}}
	if data, err := os.ReadFile(dispatcher); err == nil {
		f, err := parseDirFile(a, a.Dir.Dispatcher, data)
		if err != nil {
			return st, fmt.Errorf("%s: %w", dispatcher, err)
		}
		for _, ev := range f.events {
			for _, e := range ev.entries {
				if e.dispatch {
					st.Installed = true
					st.Events = append(st.Events, ev.name)
				}
			}
		}
	}
	if data, err := os.ReadFile(managed); err == nil {
		f, err := parseDirFile(a, filepath.Base(managed), data)
		if err != nil {
			return st, fmt.Errorf("%s: %w", managed, err)
		}
		for _, ev := range f.events {
			st.Managed += len(ev.entries)
		}
	}
	if _, err := os.Stat(hooksDir); err == nil {
		files, err := readDirFiles(a, hooksDir)
		if err != nil {
			return st, err
		}
		for _, f := range files {
			for _, ev := range f.events {
				st.Native += len(ev.entries)
			}
		}
	}
	return st, nil
}
