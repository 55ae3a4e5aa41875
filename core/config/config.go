// Package config finds, reads and merges hook configuration into one ordered list of
// hooks. It knows the profiles (where each host keeps its files, which units and defaults
// apply) and the dialects (how each host's file is shaped), and translates all of them into
// the one canonical Hook.
//
// How each dialect's files are shaped and read lives in package dialect; config decides
// where to look, merges, and validates: every matcher, filter and template is compiled here,
// at load time, so that a problem is a warning in config() and never a surprise in a fire.
// It never runs anything. Problems in files never make Load fail; they become Warnings, and
// the hook at fault is kept but disabled so that config() still shows it.
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

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/jsontext"
	"github.com/hookexec/hookexec/core/match"
	"github.com/hookexec/hookexec/core/payload"
	policies "github.com/hookexec/hookexec/core/policy"
	"github.com/hookexec/hookexec/core/template"
)

// ErrUnknownProfile is returned by Load for a profile name it does not know.
var ErrUnknownProfile = errors.New("hookexec: config: unknown profile")

// Hook is one handler as its dialect translated it, with what a fire needs compiled at
// load time. The compiled fields are nil for a hook that is disabled.
type Hook struct {
	dialect.Hook
	Match  *match.Matcher // nil matches every subject
	Rule   *match.Rule    // the "if" rule; nil when there is none
	Filter *match.Filter  // autohand's filter; nil accepts every fire
	// Cmd is the command (or exec-form args) with its placeholders' payload paths; nil for
	// prompt and git hooks.
	Cmd      *template.Command
	CmdPaths []payload.Path
	// Text is a prompt hook's prompt or git-commit's message, rendered as data, never for a shell.
	Text      *template.Command
	TextPaths []payload.Path
	// Guard is a policy hook's compiled policy; nil for other types, and when PolicyError
	// says why it could not be compiled.
	Guard policies.Policy
}

// Warning is one problem found while loading; Hook is "" for file-level problems.
type Warning = dialect.Warning

// SourceInfo says what happened to one configuration location.
type SourceInfo struct {
	Path    string `json:"path"`
	Dialect string `json:"dialect,omitempty"`
	Status  string `json:"status"` // "loaded", "missing", "error"
	Hooks   int    `json:"hooks"`
	// Digest is the SHA-256 of the bytes read from a file source (hex); "" for a missing
	// one, one that could not be read, and sources that are not files. The no-match index
	// (core/nomatch) checks that the files it describes still hold what was loaded.
	Digest string `json:"-"`
}

// Set is the merged configuration, hooks in precedence (= config) order.
type Set struct {
	Profile    *Profile
	Hooks      []Hook
	Sources    []SourceInfo
	Warnings   []Warning
	DisableAll bool
	// HTTPHookEnvVars is httpHookAllowedEnvVars merged over every file that defines it;
	// nil when none does (then each http hook's allowedEnvVars alone decides).
	HTTPHookEnvVars []string
}

// Options select what Load reads. Zero values mean the defaults given per field.
type Options struct {
	Profile    string // "" means "cli-agent"
	ProjectDir string // "" means the current directory
	Home       string // "" means $HOME
	// Sources are explicit files replacing the profile's locations. nil means the profile's
	// locations; an empty, non-nil list means no files (only Inline).
	Sources []string
	Inline  []byte // a JSON config object, loaded with the highest precedence
	// InlineDialect is the dialect Inline is written in; nil: the profile's Inline for
	// Claude Code's shape, else detected.
	InlineDialect *dialect.Dialect
	// DefaultTimeout replaces the profile's default timeout when positive.
	DefaultTimeout time.Duration
	// Getenv reads the environment of the host the configuration is loaded for (where
	// Gemini CLI and Qwen Code keep their system settings: *_SYSTEM_SETTINGS_PATH,
	// *_SYSTEM_DEFAULTS_PATH). nil means this process's, os.Getenv.
	Getenv func(string) string
	// Plugins are plugin directories; each one's hooks/hooks.json is read in Claude Code's
	// dialect after the other sources, its hooks tagged with the plugin.
	Plugins []string
	// ManagedSettings is the managed policy settings file, read first with the highest
	// precedence; "" means the profile's (Claude Code's platform location for "claude",
	// none for the others).
	ManagedSettings string
	// Bundle is the active policy bundle's settings file (core/bundle's cache), read in
	// Claude Code's dialect after ManagedSettings and, like it, at managed precedence for
	// every profile: its hooks are Managed, and its disableAllHooks and
	// allowManagedHooksOnly are managed settings. Unlike the managed settings' hooks, no
	// agent runs a bundle's hooks itself, so AgentRuns leaves them running. "" means none.
	Bundle string
	// AgentRuns lists source files whose hooks the agent runs itself (hookexec is the
	// agent's dispatcher): their settings apply (disableAllHooks, disabledHooks,
	// allowedHttpHookUrls, ...) but their hooks, and the managed settings' hooks, are
	// listed as disabled. nil: hookexec runs every hook it loads.
	AgentRuns []string
	// Untrusted reports the sources whose hooks await the user's approval (trust "project":
	// files inside the project). Nothing such a file carries reaches another source's
	// hooks: its disableAllHooks, disabledHooks and allowedHttpHookUrls apply to untrusted
	// hooks only, its httpHookAllowedEnvVars is ignored, a handler it shares with a
	// trusted file is the trusted file's (the copy is the duplicate), and trusted hooks
	// take their ids first. nil trusts every source (Claude Code's merge, as written).
	Untrusted func(source string) bool
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
	l := loader{set: &Set{Profile: prof}, prof: prof, home: o.Home, project: o.ProjectDir, timeout: o.DefaultTimeout, untrusted: o.Untrusted}
	if l.untrusted == nil {
		l.untrusted = func(string) bool { return false }
	}
	managed := o.ManagedSettings
	if managed == "" && prof.Managed != nil {
		managed = prof.Managed()
	}
	if managed != "" {
		l.managed = l.expand(managed)
		l.loadFile(Location{Path: l.managed, Dialect: dialect.Claude})
	}
	if o.Bundle != "" {
		l.bundle = o.Bundle
		l.loadFile(Location{Path: l.bundle, Dialect: dialect.Claude})
	}
	if len(o.Inline) > 0 {
		l.loadBytes(InlineSource, o.Inline, o.InlineDialect)
	}
	if o.Sources != nil {
		for _, p := range o.Sources {
			l.loadFile(Location{Path: l.expand(p)})
		}
	} else {
		for _, loc := range prof.Locations(o.ProjectDir, o.Home, o.Getenv) {
			l.loadFile(loc)
		}
	}
	for _, dir := range o.Plugins {
		l.loadPlugin(l.expand(dir))
	}
	l.policy()
	l.finish()
	l.agentRuns(o.AgentRuns)
	l.compile()
	l.locate()
	return l.set, nil
}

// RunByAgent is the disabled reason of the hooks the agent runs itself (Options.AgentRuns).
const RunByAgent = "run by the agent itself, not through hookexec"

// agentRuns disables the hooks of the files the agent runs itself, and the managed
// settings' ones (the agent reads that file too); a bundle's hooks only hookexec runs.
func (l *loader) agentRuns(files []string) {
	if files == nil {
		return
	}
	own := map[string]bool{}
	for _, f := range files {
		own[l.expand(f)] = true
	}
	for i := range l.set.Hooks {
		if h := &l.set.Hooks[i]; (own[h.Source] || h.Managed && h.Source != l.bundle) && h.Disabled == "" {
			h.Disabled = RunByAgent
		}
	}
}

// loader accumulates one Load.
type loader struct {
	set           *Set
	prof          *Profile
	home, project string
	timeout       time.Duration     // the host's default for hooks that set none; 0: per dialect
	disabledIDs   map[string]string // id → source that disabled it
	disableAllSet bool
	untrusted     func(source string) bool
	// untrustedDisabledIDs and untrustedDisableAll are what untrusted files say: they
	// switch off untrusted hooks only.
	untrustedDisabledIDs map[string]string
	untrustedDisableAll  string // the first untrusted file with disableAllHooks true
	managed              string // the managed settings file; "" when none is read
	bundle               string // the policy bundle's settings file; "" when none
	pol                  policy
	texts                map[string][]byte // source → its text, to find the lines of paths
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

// isManaged reports whether source is read at managed precedence.
func (l *loader) isManaged(source string) bool {
	return source != "" && (source == l.managed || source == l.bundle)
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
	sum := sha256.Sum256(data)
	for i := len(l.set.Sources) - 1; i >= 0; i-- {
		if l.set.Sources[i].Path == path {
			l.set.Sources[i].Digest = hex.EncodeToString(sum[:])
			break
		}
	}
	if last := l.set.Sources[len(l.set.Sources)-1]; loc.HooksOnly && last.Status == "loaded" && last.Hooks == 0 {
		l.warn(path, "", "no hooks in this file: a hooks/*.json drop-in holds {\"hooks\": {\"Event\": [...]}}")
	}
}

func (l *loader) loadBytes(source string, data []byte, d *dialect.Dialect) {
	l.loadBytesOf(source, data, d, nil)
}

func (l *loader) loadBytesOf(source string, data []byte, d *dialect.Dialect, plugin *plugin) {
	before := len(l.set.Hooks)
	if d == nil && source == InlineSource && l.prof.Inline != nil && detectBytes(data) == dialect.Claude {
		// Claude-shaped inline config is read in the profile's own dialect of that shape.
		d = l.prof.Inline
	}
	f, err := dialect.Read(source, data, d)
	if l.texts == nil {
		l.texts = map[string][]byte{}
	}
	l.texts[source] = data
	info := SourceInfo{Path: source, Status: "loaded"}
	if err != nil {
		info.Status = "error"
		l.set.Sources = append(l.set.Sources, info)
		l.fail(source, "", "%v", err)
		return
	}
	info.Dialect = f.Dialect.String()
	l.set.Warnings = append(l.set.Warnings, f.Warnings...)
	managed := l.isManaged(source)
	untrusted := !managed && l.untrusted(source)
	switch {
	case managed:
		l.pol.managed = append(l.pol.managed, managedFile{source, f})
	case untrusted:
		if f.DisableAll != nil && *f.DisableAll && l.untrustedDisableAll == "" {
			l.untrustedDisableAll = source
		}
	case f.DisableAll != nil && !l.disableAllSet:
		l.set.DisableAll, l.disableAllSet = *f.DisableAll, true
		l.pol.disableAllFrom = source
	}
	switch {
	case f.AllowedHTTPHookURLs != nil && untrusted:
		l.pol.untrustedURLs = append(l.pol.untrustedURLs, f.AllowedHTTPHookURLs...)
		l.pol.untrustedURLsSet = true
	case f.AllowedHTTPHookURLs != nil:
		l.pol.urls = append(l.pol.urls, f.AllowedHTTPHookURLs...)
		l.pol.urlsSet = true
	}
	switch {
	case f.HTTPHookEnvVars != nil && untrusted:
		l.warn(source, "", "httpHookAllowedEnvVars is ignored: a project file awaiting approval cannot change what other files' http hooks send")
	case f.HTTPHookEnvVars != nil:
		l.set.HTTPHookEnvVars = append(append([]string{}, l.set.HTTPHookEnvVars...), f.HTTPHookEnvVars...)
	}
	ids := &l.disabledIDs
	if untrusted {
		ids = &l.untrustedDisabledIDs
	}
	for _, id := range f.DisabledIDs {
		if *ids == nil {
			*ids = map[string]string{}
		}
		if _, ok := (*ids)[id]; !ok {
			(*ids)[id] = source
		}
	}
	for _, h := range f.Hooks {
		h.Source, h.Dialect, h.Managed = source, f.Dialect, managed
		if plugin != nil {
			h.Plugin, h.PluginRoot, h.PluginData = plugin.name, plugin.root, plugin.data
		}
		l.resolve(&h)
		l.set.Hooks = append(l.set.Hooks, Hook{Hook: h})
	}
	info.Hooks = len(l.set.Hooks) - before
	l.set.Sources = append(l.set.Sources, info)
}

// locate gives hooks and warnings the line their path is written on.
func (l *loader) locate() {
	index := map[string]*jsontext.Lines{} // per source, walked once
	line := func(source, path string) int {
		x := index[source]
		if x == nil {
			x = jsontext.NewLines(l.texts[source])
			index[source] = x
		}
		return x.Line(path)
	}
	for i := range l.set.Hooks {
		h := &l.set.Hooks[i]
		if h.Path != "" && h.Line == 0 {
			h.Line = line(h.Source, h.Path)
		}
	}
	for i := range l.set.Warnings {
		w := &l.set.Warnings[i]
		if w.Path != "" && w.Line == 0 {
			w.Line = line(w.Source, w.Path)
		}
	}
}

// resolve fills defaults that depend on the dialect, the profile and the filesystem.
func (l *loader) resolve(h *dialect.Hook) {
	d := h.Dialect
	if h.Timeout == 0 && h.Disabled == "" {
		switch {
		case l.timeout > 0:
			h.Timeout = l.timeout
		case d.Timeout > 0:
			h.Timeout = d.Timeout
		case d.Timeouts != nil:
			h.Timeout = d.Timeouts(h.Type, h.Event)
		default:
			h.Timeout = l.prof.DefaultTimeout
		}
	}
	if h.Cwd != "" {
		h.Cwd = l.expand(h.Cwd)
	}
	if h.Once && h.Dialect == dialect.Claude && h.Source != InlineSource {
		// The reference honours once only in skill frontmatter, which hosts pass inline.
		h.Once = false
		l.warn(h.Source, h.Name, "once is ignored in settings and plugin files, as in Claude Code (it applies to skill hooks, passed as inline config)")
	}
	if h.Plugin != "" {
		// Exported to every plugin hook, so shell-form commands expand them themselves.
		h.Env = append([]string{"CLAUDE_PLUGIN_ROOT=" + h.PluginRoot, "CLAUDE_PLUGIN_DATA=" + h.PluginData}, h.Env...)
	}
	h.Sequential = h.Sequential || d.Sequential
	h.StopOnBlock = h.StopOnBlock || d.StopOnBlock
	l.resolvePolicy(h)
}

// finish assigns ids, removes duplicate handlers and applies disabledHooks. Of identical
// handlers the first trusted one is kept (the first one when none is trusted), and trusted
// hooks take their ids first, so that a file awaiting approval can neither drop nor rename
// a trusted hook.
func (l *loader) finish() {
	hooks := l.set.Hooks
	keep := map[string]int{} // handler identity → index of the copy that runs
	for i := range hooks {
		key := hooks[i].identity()
		j, ok := keep[key]
		if !ok || (l.distrusts(&hooks[j]) && !l.distrusts(&hooks[i])) {
			keep[key] = i
		}
	}
	used := map[string]bool{}
	name := func(h *Hook) {
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
	for _, trusted := range []bool{true, false} {
		for i := range hooks {
			if h := &hooks[i]; keep[h.identity()] == i && l.distrusts(h) != trusted {
				name(h)
			}
		}
	}
	for i := range hooks {
		h := &hooks[i]
		if k := &hooks[keep[h.identity()]]; k != h {
			h.ID, h.DuplicateOf = k.ID, k.ID
			h.Disabled = fmt.Sprintf("duplicate of %s from %s", k.ID, k.Source)
		}
	}
	for i := range hooks {
		h := &hooks[i]
		if h.Disabled != "" {
			continue
		}
		if src, ok := l.disabledIDs[h.ID]; ok && h.Managed && !l.isManaged(src) {
			l.warn(src, h.ID, "disabledHooks cannot switch off %s: it comes from managed settings (%s)", h.ID, h.Source)
		} else if ok {
			h.Disabled = "disabled by disabledHooks in " + src
		} else if src, ok := l.untrustedDisabledIDs[h.ID]; ok && l.distrusts(h) {
			h.Disabled = "disabled by disabledHooks in " + src
		}
	}
	for _, ids := range []map[string]string{l.disabledIDs, l.untrustedDisabledIDs} {
		for _, id := range slices.Sorted(maps.Keys(ids)) {
			if !used[id] {
				l.warn(ids[id], "", "disabledHooks names %q, which is no hook's id", id)
			}
		}
	}
}

// identity is what makes two handlers the same (SPEC §3: run once).
func (h *Hook) identity() string {
	parts := []string{h.Event, h.Matcher, h.Type, h.Command, strings.Join(h.Args, "\x00"), h.Prompt, h.Cwd}
	// An "if" rule makes a different hook; a plugin's copy of a handler stays its own
	// (Claude Code runs it separately). Both join only when set, so other ids stay as they were.
	if h.If != "" || h.Plugin != "" {
		parts = append(parts, "if:"+h.If, "plugin:"+h.Plugin)
	}
	if h.URL != "" || h.Server != "" || h.Tool != "" || len(h.Input) > 0 {
		parts = append(parts, h.URL, h.Server, h.Tool, string(h.Input))
	}
	// Fields of the other dialects join only when set, so ids of Claude-shaped hooks stay as they were.
	if extra := []string{strings.Join(h.FilterTools, "\x00"), strings.Join(h.FilterPaths, "\x00"), h.Message, h.Remote, h.Branch}; strings.Join(extra, "") != "" {
		parts = append(parts, extra...)
	}
	if len(h.FileEvents) > 0 {
		parts = append(parts, "file-events:"+strings.Join(h.FileEvents, ","))
	}
	if p := h.Policy; p != nil {
		parts = append(parts, "policy", p.CEL, p.Rego, p.Query, p.Decision, p.Reason)
	}
	if h.Persistent {
		parts = append(parts, "persistent") // a long-lived process is not the same handler as a one-shot
	}
	if d := h.Dialect; d != nil && (d.Stdin != nil || d.Answer != nil) {
		// The same command in another agent's format sees another payload and answers in
		// other words: not the same handler. Only these dialects join, so other ids stay.
		parts = append(parts, "dialect:"+d.Name, "event:"+h.Spelling)
	}
	return strings.Join(parts, "\x01")
}

func shortHash(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x01")))
	return hex.EncodeToString(sum[:])[:10]
}

// detectBytes detects the dialect of JSON data from its shape alone (nil when it is not JSON).
func detectBytes(data []byte) *dialect.Dialect {
	v, err := fastjson.ParseBytes(data)
	if err != nil {
		return nil
	}
	return dialect.Detect(InlineSource, v)
}

// distrusts reports whether a hook awaits approval (Options.Untrusted): managed hooks never do.
func (l *loader) distrusts(h *Hook) bool { return !h.Managed && l.untrusted(h.Source) }
