// Package trust decides whether hooks that arrive with a repository may run. A hook defined
// in a project-level file (one inside the project directory, such as .claude/settings.json)
// runs only when the user approved it; the approval names the hook's entry and pins what of
// the project its command may run (Analyse: files by content, or a whole directory tree
// where the command computes its paths), so changing either revokes it.
//
// The package keeps approvals in a Store (a JSON file in the user's config directory),
// analyses commands (Analyse), hashes pins cheaply (Hasher), compares a hook with its
// approval (Check) and holds an engine's whole trust decision (Policy: gates, judging,
// admission at each fire, reports, approve and revoke). It does not load configuration or
// run anything: the engine asks it, once per load and once per fire for gated hooks.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Mode says which hooks need an approval.
type Mode uint8

const (
	// All runs every hook without approval (hookexec's behaviour before trust existed).
	All Mode = iota
	// Project runs project-level hooks only once approved; user-level, managed, plugin and
	// inline hooks run as in All.
	Project
)

// String returns "all" or "project".
func (m Mode) String() string {
	if m == Project {
		return "project"
	}
	return "all"
}

// ParseMode reads "all" or "project".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "all":
		return All, nil
	case "project":
		return Project, nil
	}
	return All, fmt.Errorf("hookexec: trust: unknown mode %q (known: all, project)", s)
}

// Hook is what an approval names: the hook's entry as written in its file. Paths are
// relative to the project (slash-separated) so the record reads the same to a person.
type Hook struct {
	ID      string   `json:"id"`
	Source  string   `json:"source"`
	Event   string   `json:"event"`
	Matcher string   `json:"matcher"`
	Type    string   `json:"type"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	URL     string   `json:"url,omitempty"`
	If      string   `json:"if,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	Env     []string `json:"env,omitempty"`    // the hook's own KEY=VALUE pairs
	Filter  []string `json:"filter,omitempty"` // autohand's filter: "tool:NAME", "path:GLOB"
	// Settings is the sha256 of the entry's other settings (async, blocking, a git
	// built-in's message, an http hook's url, ...), so that no change to what the entry
	// does goes unnoticed, including fields added to hooks later.
	Settings string `json:"settings,omitempty"`
}

// Fingerprint is the sha256 of everything that says what the hook runs and when, except
// the id: renaming a hook does not change what runs.
func (h Hook) Fingerprint() string {
	c := h
	c.ID = ""
	b, _ := json.Marshal(c) // plain strings: cannot fail
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// changes names the fields that differ between an approved entry and the current one.
func (h Hook) changes(old Hook) []string {
	var out []string
	add := func(name string, differ bool) {
		if differ {
			out = append(out, name+" changed")
		}
	}
	add("command", h.Command != old.Command || !slices.Equal(h.Args, old.Args) || h.URL != old.URL)
	add("matcher", h.Matcher != old.Matcher || !slices.Equal(h.Filter, old.Filter))
	add("type", h.Type != old.Type)
	add("if", h.If != old.If)
	add("cwd", h.Cwd != old.Cwd)
	add("env", !slices.Equal(h.Env, old.Env))
	add("settings", h.Settings != old.Settings)
	return out
}

// Within reports whether path lies inside dir (or is dir), lexically.
func Within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// ProjectLevel reports whether a hook read from source arrives with the project: its file
// lies inside the project directory. When the project directory is the home directory or
// contains it, files under home are the user's own and stay user-level. Inline config
// (a source that is not an absolute path) is the host's and never project-level.
func ProjectLevel(source, project, home string) bool {
	if !filepath.IsAbs(source) || project == "" {
		return false
	}
	source, project = filepath.Clean(source), filepath.Clean(project)
	if !Within(source, project) {
		return false
	}
	if home != "" && Within(filepath.Clean(home), project) && Within(source, filepath.Clean(home)) {
		return false
	}
	return true
}

// Rel is path relative to project, slash-separated, for records a person reads.
func Rel(path, project string) string {
	if rel, err := filepath.Rel(project, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(path)
}
