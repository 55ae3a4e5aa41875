package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/hookexec/hookexec/core/atomicfile"
	"github.com/hookexec/hookexec/core/native"
)

// An agent whose hooks are files named after their events (Cline, native.Script) gets, per
// hook directory of the scope, its event files moved into the directory's hookexec-hooks
// subdirectory (a rename: the same bytes, mode and times), and one dispatcher file per
// event whose hooks were moved: a shell script that runs the dispatcher command. The
// agent runs every regular file of its hook directories and no subdirectory, so it then
// runs the dispatcher only, which runs the moved hooks through the engine. Uninstall
// removes the dispatcher files and moves the hooks back under their own names.

// ScriptMarker begins the second line of every dispatcher file install writes; a file
// without it is the user's, and install moves it like any hook.
var ScriptMarker = []byte("# hookexec's dispatcher, written by `hookexec install")

// ScriptSource is the dispatcher file for an agent's event, running command (the C client
// or "hookexec hook", with --agent and --scope) with the hook's stdin.
func ScriptSource(a *native.Agent, command string) []byte {
	return []byte("#!/bin/sh\n" + string(ScriptMarker) + " --agent " + a.Name + "`: it runs this event's hooks,\n" +
		"# moved to hookexec-hooks/ beside it, through hookexec. `hookexec uninstall --agent " + a.Name + "` puts them back.\n" +
		"exec " + command + "\n")
}

// isDispatcher reports whether the file at path is a dispatcher file install wrote.
func isDispatcher(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	_, rest, ok := bytes.Cut(data, []byte("\n"))
	return ok && bytes.HasPrefix(rest, ScriptMarker)
}

// scriptEntries lists the regular files of d that the agent reads as hooks, by name.
func scriptEntries(a *native.Agent, d string) ([]string, error) {
	entries, err := os.ReadDir(d)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && a.Script.Event(e.Name()) != "" {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// InstallScripts installs the dispatcher into every hook directory of the scope (dir is
// the project or the home). command is the dispatcher command without the scope.
func InstallScripts(a *native.Agent, s native.Scope, dir, command string) ([]Change, error) {
	command += ScopeFlag + s.String()
	var out []Change
	// Per event, the directory holding its first hook (in the agent's path order): its
	// dispatcher goes there. Events that already have one are done.
	type plan struct {
		d     string
		moves []string // file names moved into the managed directory
	}
	dirs := a.Script.Dirs(s, dir)
	plans := make([]plan, len(dirs))
	home := map[string]int{}        // event → index of the directory its dispatcher is in
	dispatched := map[string]bool{} // events with a dispatcher file already
	for i, d := range dirs {
		plans[i].d = d
		names, err := scriptEntries(a, d)
		if err != nil {
			return out, err
		}
		for _, n := range names {
			path := filepath.Join(d, n)
			if err := inside(dir, path); err != nil {
				return out, err
			}
			if isDispatcher(path) {
				dispatched[a.Script.Event(n)] = true
				continue
			}
			if _, err := os.Lstat(filepath.Join(a.Script.ManagedDir(d), n)); err == nil {
				return out, fmt.Errorf("%s: %s already holds a file of that name; move one of them away first", path, a.Script.ManagedDir(d))
			}
			plans[i].moves = append(plans[i].moves, n)
		}
	}
	// An event's dispatcher goes where its first hook is (moved now, or earlier).
	for i, p := range plans {
		moved, err := scriptEntries(a, a.Script.ManagedDir(p.d))
		if err != nil {
			return out, err
		}
		for _, n := range append(moved, p.moves...) {
			ev := a.Script.Event(n)
			if _, ok := home[ev]; !ok && !dispatched[ev] {
				home[ev] = i
			}
		}
	}
	for i, p := range plans {
		md := a.Script.ManagedDir(p.d)
		c := Change{File: native.File{Settings: p.d, Managed: md, Scope: s}, Action: "no hooks"}
		if len(p.moves) > 0 {
			if err := inside(dir, md); err != nil {
				return out, err
			}
			if err := os.MkdirAll(md, 0o755); err != nil {
				return out, err
			}
		}
		for _, n := range p.moves {
			// Moved before the dispatcher is written: a crash in between leaves the hook
			// where uninstall (or a second install) finds it, never two of it running.
			if err := os.Rename(filepath.Join(p.d, n), filepath.Join(md, n)); err != nil {
				return out, err
			}
			c.Moved++
		}
		var events []string
		for ev, at := range home {
			if at == i {
				events = append(events, ev)
			}
		}
		sort.Strings(events)
		for _, ev := range events {
			path := filepath.Join(p.d, ev)
			if err := inside(dir, path); err != nil {
				return out, err
			}
			if err := atomicfile.Write(path, ScriptSource(a, command), 0o755); err != nil {
				return out, err
			}
		}
		c.Events = events
		switch {
		case c.Moved > 0 || len(events) > 0:
			c.Action = "installed"
		case dirHasDispatcher(p.d):
			c.Action = "already installed"
		}
		out = append(out, c)
	}
	return out, nil
}

func dirHasDispatcher(d string) bool {
	entries, _ := os.ReadDir(d)
	for _, e := range entries {
		if e.Type().IsRegular() && isDispatcher(filepath.Join(d, e.Name())) {
			return true
		}
	}
	return false
}

// UninstallScripts removes the dispatcher files of every hook directory of the scope and
// moves the hooks back, each under its own name. A hook whose name is taken again in the
// hook directory stays in hookexec-hooks, and the error says so.
func UninstallScripts(a *native.Agent, s native.Scope, dir string) ([]Change, error) {
	var out []Change
	var conflicts []string
	for _, d := range a.Script.Dirs(s, dir) {
		md := a.Script.ManagedDir(d)
		c := Change{File: native.File{Settings: d, Managed: md, Scope: s}, Action: "not installed"}
		names, err := scriptEntries(a, d)
		if err != nil {
			return out, err
		}
		for _, n := range names {
			path := filepath.Join(d, n)
			if !isDispatcher(path) {
				continue
			}
			if err := inside(dir, path); err != nil {
				return out, err
			}
			if err := os.Remove(path); err != nil {
				return out, err
			}
			c.Events = append(c.Events, a.Script.Event(n))
			c.Action = "restored"
		}
		moved, err := scriptEntries(a, md)
		if err != nil {
			return out, err
		}
		for _, n := range moved {
			to := filepath.Join(d, n)
			if err := inside(dir, to); err != nil {
				return out, err
			}
			if _, err := os.Lstat(to); err == nil {
				conflicts = append(conflicts, to)
				continue
			}
			if err := os.Rename(filepath.Join(md, n), to); err != nil {
				return out, err
			}
			c.Moved++
			c.Action = "restored"
		}
		if rest, err := os.ReadDir(md); err == nil && len(rest) == 0 {
			_ = os.Remove(md)
		}
		out = append(out, c)
	}
	if len(conflicts) > 0 {
		return out, fmt.Errorf("left in hookexec-hooks, their names being taken again: %s", conflicts)
	}
	return out, nil
}

// ScriptStatus reports each hook directory of the scope: installed when it holds a
// dispatcher file, the events those are for, the hooks moved (managed) and the hook files
// the agent runs itself (native).
func ScriptStatus(a *native.Agent, s native.Scope, dir string) ([]FileStatus, error) {
	var out []FileStatus
	for _, d := range a.Script.Dirs(s, dir) {
		st := FileStatus{File: native.File{Settings: d, Managed: a.Script.ManagedDir(d), Scope: s}}
		names, err := scriptEntries(a, d)
		if err != nil {
			return out, err
		}
		for _, n := range names {
			if isDispatcher(filepath.Join(d, n)) {
				st.Installed = true
				st.Events = append(st.Events, a.Script.Event(n))
			} else {
				st.Native++
			}
		}
		moved, err := scriptEntries(a, st.File.Managed)
		if err != nil {
			return out, err
		}
		st.Managed = len(moved)
		st.Events = slices.Compact(st.Events)
		out = append(out, st)
	}
	return out, nil
}
