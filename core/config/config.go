// Package config finds, reads and merges hook configuration into one ordered list of
// hooks. It knows the profiles (where each host keeps its files, which units and defaults
// apply) and the dialects (how each host's file is shaped), and translates all of them into
// the one canonical Hook.
//
// It does not compile matchers or templates and never runs anything: the engine does that
// with the list Load returns. Problems in files never make Load fail; they become Warnings,
// and the hook at fault is kept but disabled so that config() still shows it.
package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ErrUnknownProfile is returned by Load for a profile name it does not know.
var ErrUnknownProfile = errors.New("hookexec: config: unknown profile")

// Hook is one handler after translation from its dialect. Zero values mean "not set".
type Hook struct {
	ID          string // Name if given, else a short hash of event+matcher+command; unique in a Set
	Name        string
	Description string
	Event       string // canonical event name
	Matcher     string // raw pattern; "" matches everything
	// RegexMatcher makes Matcher an ECMAScript regex whatever it looks like (autohand).
	RegexMatcher bool
	// FilterTools and FilterPaths are autohand's filter: tool names, and ** globs matched
	// against the payload's file path relative to the project. Both must pass when set.
	FilterTools []string
	FilterPaths []string
	// Type is "command", "http", "prompt", "agent", "mcp_tool", "git-commit" or "git-push".
	Type    string
	Command string // shell string for type command (may be "" when Args is set)
	Args    []string
	Prompt  string // types prompt and agent: text handed to the host's evaluator
	Model   string // types prompt and agent: the model the host should use; "" its default
	// Type http: the URL POSTed to, its extra headers in file order (values may hold $VAR
	// or ${VAR}, expanded from AllowedEnvVars only; any other variable becomes "").
	URL            string
	Headers        [][2]string
	AllowedEnvVars []string
	// Type mcp_tool: the host calls Tool on its MCP server Server with Input, a JSON object
	// whose string values may hold ${path} placeholders filled from the payload (nil: none).
	Server string
	Tool   string
	Input  []byte
	// Definition is the handler object as written in the file (compact JSON), handed to the
	// host's evaluator for the types it runs; nil for other dialects' hooks.
	Definition []byte
	// StatusMessage is the text a host shows while the hook runs (Claude Code's spinner).
	StatusMessage string
	// AsyncRewake runs the hook in the background (Async is set too); its exit 2 wakes the
	// agent through the host's listener.
	AsyncRewake bool
	// TimeoutSet: the file gave the timeout (it raises SessionEnd's shared budget).
	TimeoutSet bool
	// Git built-ins (AutoAgent): git-commit's message template and --no-verify; git-push's
	// remote and branch ("current" is the checked-out branch).
	Message  string
	NoVerify bool
	Remote   string
	Branch   string
	Timeout  time.Duration // resolved: the profile default when the file sets none
	Cwd      string        // working directory, "~" expanded; "" means the project dir
	Env      []string      // the hook's own KEY=VALUE pairs, in file order
	Async    bool          // started and not awaited
	// FailClosed makes a timeout, spawn failure, crash or unparseable output block.
	FailClosed bool
	// Blocking makes any non-zero exit block, as failures do with FailClosed (mycode, AutoAgent).
	Blocking   bool
	PipeOutput bool // output handed to the agent (iteratr)
	Sequential bool // run after the previous hook of the fire finished, not in parallel
	// StopOnBlock: once this hook blocks, the later hooks of the fire are not run (AutoAgent).
	StopOnBlock bool
	Source      string
	Dialect     Dialect
	// Disabled is the reason the hook does not run ("" when it runs).
	Disabled string
	// DuplicateOf is the id of an identical handler of higher precedence that runs instead.
	DuplicateOf string
}

// Warning is one problem found while loading; Hook is "" for file-level problems.
type Warning struct {
	Source  string `json:"source"`
	Hook    string `json:"hook,omitempty"`
	Message string `json:"message"`
	// Error marks problems that disabled a hook or a file, as opposed to advice.
	Error bool `json:"error"`
}

func (w Warning) String() string {
	s := w.Source
	if w.Hook != "" {
		s += ": hook " + w.Hook
	}
	return s + ": " + w.Message
}

// SourceInfo says what happened to one configuration location.
type SourceInfo struct {
	Path    string `json:"path"`
	Dialect string `json:"dialect,omitempty"`
	Status  string `json:"status"` // "loaded", "missing", "error"
	Hooks   int    `json:"hooks"`
}

// Set is the merged configuration, hooks in precedence (= config) order.
type Set struct {
	Profile    *Profile
	Hooks      []Hook
	Sources    []SourceInfo
	Warnings   []Warning
	DisableAll bool
}

// Options select what Load reads. Zero values mean the defaults given per field.
type Options struct {
	Profile    string   // "" means "cli-agent"
	ProjectDir string   // "" means the current directory
	Home       string   // "" means $HOME
	Sources    []string // explicit files; when set they replace the profile's locations
	Inline     []byte   // a JSON config object, loaded with the highest precedence
	// DefaultTimeout replaces the profile's default timeout when positive.
	DefaultTimeout time.Duration
}

// InlineSource names the inline config object in SourceInfo and warnings.
const InlineSource = "<inline>"

// Load reads every location of the profile (or the explicit sources), translates and merges
// them. Its error is non-nil only for unusable options; file problems are Warnings.
func Load(o Options) (*Set, error) {
	prof, err := LookupProfile(o.Profile)
	if err != nil {
		return nil, err
	}
	if o.ProjectDir == "" {
		if o.ProjectDir, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("hookexec: config: project dir: %w", err)
		}
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	l := loader{set: &Set{Profile: prof}, prof: prof, home: o.Home, project: o.ProjectDir, timeout: o.DefaultTimeout}
	if len(o.Inline) > 0 {
		l.loadBytes(InlineSource, o.Inline, DialectUnknown)
	}
	if len(o.Sources) > 0 {
		for _, p := range o.Sources {
			l.loadFile(Location{Path: l.expand(p)})
		}
	} else {
		for _, loc := range prof.Locations(o.ProjectDir, o.Home) {
			l.loadFile(loc)
		}
	}
	l.finish()
	return l.set, nil
}

// loader accumulates one Load.
type loader struct {
	set           *Set
	prof          *Profile
	home, project string
	timeout       time.Duration     // the host's default for hooks that set none; 0: per dialect
	disabledIDs   map[string]string // id → source that disabled it
	disableAllSet bool
}

func (l *loader) expand(p string) string {
	if p == "~" {
		return l.home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(l.home, p[2:])
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(l.project, p)
	}
	return p
}

func (l *loader) warn(source, hook, format string, args ...any) {
	l.set.Warnings = append(l.set.Warnings, Warning{Source: source, Hook: hook, Message: fmt.Sprintf(format, args...)})
}

func (l *loader) fail(source, hook, format string, args ...any) {
	l.set.Warnings = append(l.set.Warnings, Warning{Source: source, Hook: hook, Message: fmt.Sprintf(format, args...), Error: true})
}

func (l *loader) loadFile(loc Location) {
	path := loc.Path
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		l.set.Sources = append(l.set.Sources, SourceInfo{Path: path, Status: "missing"})
		return
	case err != nil:
		l.set.Sources = append(l.set.Sources, SourceInfo{Path: path, Status: "error"})
		l.fail(path, "", "cannot read: %v", err)
		return
	}
	l.loadBytes(path, data, loc.Dialect)
	if last := l.set.Sources[len(l.set.Sources)-1]; loc.HooksOnly && last.Status == "loaded" && last.Hooks == 0 {
		l.warn(path, "", "no hooks in this file: a hooks/*.json drop-in holds {\"hooks\": {\"Event\": [...]}}")
	}
}

func (l *loader) loadBytes(source string, data []byte, d Dialect) {
	before := len(l.set.Hooks)
	f, err := l.parseFile(source, data, d)
	info := SourceInfo{Path: source, Status: "loaded"}
	if err != nil {
		info.Status = "error"
		l.set.Sources = append(l.set.Sources, info)
		l.fail(source, "", "%v", err)
		return
	}
	info.Dialect = f.dialect.String()
	l.set.Warnings = append(l.set.Warnings, f.warnings...)
	if f.disableAll != nil && !l.disableAllSet {
		l.set.DisableAll, l.disableAllSet = *f.disableAll, true
	}
	for _, id := range f.disabledIDs {
		if l.disabledIDs == nil {
			l.disabledIDs = map[string]string{}
		}
		if _, ok := l.disabledIDs[id]; !ok {
			l.disabledIDs[id] = source
		}
	}
	for _, h := range f.hooks {
		h.Source, h.Dialect = source, f.dialect
		l.resolve(&h)
		l.set.Hooks = append(l.set.Hooks, h)
	}
	info.Hooks = len(l.set.Hooks) - before
	l.set.Sources = append(l.set.Sources, info)
}

// resolve fills defaults that depend on the dialect, the profile and the filesystem.
func (l *loader) resolve(h *Hook) {
	d := h.Dialect.info()
	if h.Timeout == 0 && h.Disabled == "" {
		switch {
		case l.timeout > 0:
			h.Timeout = l.timeout
		case d.timeout > 0:
			h.Timeout = d.timeout
		case l.prof.ClaudeCodeTimeouts && h.Dialect == DialectClaude:
			h.Timeout = ClaudeCodeTimeout(h.Type, h.Event)
		default:
			h.Timeout = l.prof.DefaultTimeout
		}
	}
	if h.Cwd != "" {
		h.Cwd = l.expand(h.Cwd)
	}
	h.Sequential = h.Sequential || d.sequential
	h.StopOnBlock = h.StopOnBlock || d.stopOnBlock
}

// finish assigns ids, removes duplicate handlers and applies disabledHooks.
func (l *loader) finish() {
	seen := map[string]int{} // handler identity → index of first occurrence
	used := map[string]bool{}
	hooks := l.set.Hooks
	for i := range hooks {
		h := &hooks[i]
		key := h.identity()
		if j, ok := seen[key]; ok {
			h.ID, h.DuplicateOf = hooks[j].ID, hooks[j].ID
			h.Disabled = fmt.Sprintf("duplicate of %s from %s", hooks[j].ID, hooks[j].Source)
			continue
		}
		seen[key] = i
		base := h.Name
		if base == "" {
			base = shortHash(h.identity())
		}
		id := base
		for n := 2; used[id]; n++ {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		if id != base {
			l.warn(h.Source, base, "id %q is already used by another hook; this one is %q", base, id)
		}
		used[id] = true
		h.ID = id
	}
	for i := range hooks {
		h := &hooks[i]
		if src, ok := l.disabledIDs[h.ID]; ok && h.Disabled == "" {
			h.Disabled = "disabled by disabledHooks in " + src
		}
	}
	for _, id := range slices.Sorted(maps.Keys(l.disabledIDs)) {
		if !used[id] {
			l.warn(l.disabledIDs[id], "", "disabledHooks names %q, which is no hook's id", id)
		}
	}
}

// identity is what makes two handlers the same (SPEC §3: run once).
func (h *Hook) identity() string {
	parts := []string{h.Event, h.Matcher, h.Type, h.Command, strings.Join(h.Args, "\x00"), h.Prompt, h.Cwd}
	if h.URL != "" || h.Server != "" || h.Tool != "" || len(h.Input) > 0 {
		parts = append(parts, h.URL, h.Server, h.Tool, string(h.Input))
	}
	// Fields of the other dialects join only when set, so ids of Claude-shaped hooks stay as they were.
	if extra := []string{strings.Join(h.FilterTools, "\x00"), strings.Join(h.FilterPaths, "\x00"), h.Message, h.Remote, h.Branch}; strings.Join(extra, "") != "" {
		parts = append(parts, extra...)
	}
	return strings.Join(parts, "\x01")
}

func shortHash(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x01")))
	return hex.EncodeToString(sum[:])[:10]
}

// Enabled reports whether the hook runs.
func (h Hook) Enabled() bool { return h.Disabled == "" }
