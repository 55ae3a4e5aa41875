// Package native speaks to an agent that runs hooks itself (Claude Code, ...) in that
// agent's own hook protocol, so that hookexec can be the one hook the agent runs: it names
// where each agent keeps its settings and where hookexec keeps the hooks it manages for
// it, and it turns a fire's Result into the answer one native hook would give (exit code,
// stdout, stderr) so that the agent does what it would have done had it run the hooks.
//
// Adding an agent is one entry in the agents table. The package does not run hooks (the
// engine does), read payloads or touch files.
package native

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/engine"
)

// Scope is where an agent's settings live: for one user, or for one project.
type Scope int

const (
	User    Scope = iota // the user's settings, in the home directory
	Project              // the project's settings (shared and local files)
)

func (s Scope) String() string { return [...]string{"user", "project"}[s] }

// Answer is what one native hook gives back to the agent.
type Answer struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
}

// File is one settings file of an agent and the file hookexec moves its hooks to.
type File struct {
	Settings string // the agent's settings file
	Managed  string // hookexec's file beside it, same format, holding the moved hooks
	Backup   string // the settings file as it was before install, byte for byte
	// Root says the file's events object is its root (Droid's hooks.json), not its "hooks".
	Root bool
	// Scope is the scope the file belongs to.
	Scope Scope
}

// Agent describes one agent that runs hooks natively.
type Agent struct {
	Name    string // as in --agent
	Display string // for people: "Claude Code"
	Profile string // the engine profile whose dialect reads its settings
	// files lists the settings files of a scope, highest precedence first; dir is the
	// project dir or the home.
	files func(s Scope, dir string) []File
	// answer turns a fire's result into the native answer.
	answer func(r *engine.Result) Answer
	// Evaluated lists handler types the agent evaluates itself and hookexec cannot (they
	// need the agent's model or MCP servers): matcher groups holding one stay with the agent.
	Evaluated []string
	// TimeoutUnit is the unit of a handler's "timeout" in the agent's settings, and
	// DefaultTimeout the timeout of a handler without one.
	TimeoutUnit    time.Duration
	DefaultTimeout time.Duration
	// timeoutOf reads a "timeout" number where the unit alone does not say (Qwen Code);
	// nil: the number times TimeoutUnit.
	timeoutOf func(n float64) time.Duration
	// HooksConfig lists keys of the settings' "hooks" object that are settings, not events
	// (Gemini CLI's enabled, disabled, notifications): they stay in the settings as they are.
	HooksConfig []string
	// Unmoved lists files of a scope whose hooks install leaves with the agent (Codex's
	// config.toml: its [hooks] table would need the TOML rewritten); install reports them.
	unmoved func(s Scope, dir string) []string
	// ProjectEnv is the variable the agent gives its hooks the project directory in.
	ProjectEnv string
	// Plugin is set for an agent reached through a plugin install writes, not through
	// dispatcher entries in its settings (opencode, Kilo Code: opencode.go).
	Plugin *Plugin
	// Dir is set for an agent that runs every *.json file of a hooks directory (Copilot
	// CLI: copilot.go); files is then unused, and sources lists the managed files.
	Dir *HooksDir
	// sources lists the files the dispatcher loads where files alone cannot say (they
	// depend on the agent's environment: $COPILOT_HOME); nil: Sources.
	sources func(project, home string, getenv func(string) string) []string
	// SpelledEvents is set for an agent whose payloads do not name their event (Copilot
	// CLI's camelCase ones): each dispatcher entry says it ("--event preToolUse").
	SpelledEvents bool
	// SubjectFields names, for such an agent, the payload field that carries each canonical
	// subject field (tool_name → toolName), for the no-match index the C client reads; a
	// subject field not named keeps its event out of the index.
	SubjectFields map[string]string
	// SourceEnv are the variables sources reads ($COPILOT_HOME).
	SourceEnv []string
	// Script is set for an agent whose hooks are files named after their events in hook
	// directories (Cline: cline.go); install moves them and writes dispatcher files there.
	Script *Script
	// Scoped says the agent runs every scope's dispatcher entry for an event, identical or
	// not (Copilot CLI, Cline, Factory Droid): each entry then names its scope (--scope),
	// and a call runs only that scope's hooks (SourcesEnv keeps Copilot's scope's files;
	// SettingsOutside leaves the other scope's moved hooks to its entry). false: the agent
	// runs an identical command once (Claude Code), and one call runs every scope's hooks.
	Scoped bool
	// eventOf names the canonical event of a payload from its top-level strings; nil: its
	// "hook_event_name".
	eventOf func(get func(key string) string) string
	// ProjectField is the payload's array whose first string is the project when no
	// variable names it (Cline's workspaceRoots); "": the payload's "cwd".
	ProjectField string
	// shadowed lists the events of a settings file that install leaves where they are,
	// because another file of its folder replaces them in the agent (Droid's hooks.json);
	// nil: none.
	shadowed func(f File) map[string]bool
}

// EventOf is the canonical event of a payload, read with get (a top-level string field).
func (a *Agent) EventOf(get func(key string) string) string {
	if a.eventOf != nil {
		return a.eventOf(get)
	}
	return get("hook_event_name")
}

// Shadowed lists the events of f that install leaves with the agent, since another file
// of its folder replaces them there.
func (a *Agent) Shadowed(f File) map[string]bool {
	if a.shadowed == nil {
		return nil
	}
	return a.shadowed(f)
}

var agents = map[string]*Agent{
	"claude": {
		Name: "claude", Display: "Claude Code", Profile: "claude",
		files: func(s Scope, dir string) []File {
			d := filepath.Join(dir, ".claude")
			if s == User {
				return []File{file(d, "settings.json")}
			}
			return []File{file(d, "settings.local.json"), file(d, "settings.json")}
		},
		answer:      claudeAnswer,
		Evaluated:   []string{"prompt", "agent", "mcp_tool"},
		TimeoutUnit: time.Second, DefaultTimeout: 600 * time.Second,
		ProjectEnv: "CLAUDE_PROJECT_DIR",
	},
	"codex": {
		Name: "codex", Display: "Codex", Profile: "codex",
		files: func(_ Scope, dir string) []File {
			d := filepath.Join(dir, ".codex")
			return []File{{Settings: filepath.Join(d, "hooks.json"), Managed: filepath.Join(d, "hookexec-hooks.json"),
				Backup: filepath.Join(d, ".hooks.json.hookexec-backup")}}
		},
		unmoved: func(_ Scope, dir string) []string { return []string{filepath.Join(dir, ".codex", "config.toml")} },
		answer:  codexAnswer,
		// Codex calls its own MCP servers for mcp_tool hooks (its prompt and agent hooks it
		// skips, as hookexec's codex dialect does: they may move).
		Evaluated:   []string{"mcp_tool"},
		TimeoutUnit: time.Second, DefaultTimeout: 600 * time.Second,
	},
	"qwen": {
		Name: "qwen", Display: "Qwen Code", Profile: "qwen",
		files: func(_ Scope, dir string) []File {
			return []File{file(filepath.Join(dir, ".qwen"), "settings.json")}
		},
		answer:      qwenAnswer,
		TimeoutUnit: time.Second, DefaultTimeout: 60 * time.Second, timeoutOf: qwenTimeout,
		ProjectEnv: "QWEN_PROJECT_DIR",
	},
	"factory": {
		Name: "factory", Display: "Factory Droid", Profile: "factory",
		files:       factoryFiles,
		answer:      factoryAnswer,
		TimeoutUnit: time.Second, DefaultTimeout: 60 * time.Second,
		HooksConfig: []string{"hooksDisabled", "showHookOutput"},
		ProjectEnv:  "FACTORY_PROJECT_DIR",
		Scoped:      true,
		shadowed:    factoryShadowed,
	},
	"cline": {
		Name: "cline", Display: "Cline", Profile: "cline",
		files:  clineFiles,
		Script: clineScript,
		answer: func(r *engine.Result) Answer { return clineAnswer("", r) },
		// Cline gives a hook 120 s and reads no timeout of its own from a hook file.
		TimeoutUnit: time.Second, DefaultTimeout: 120 * time.Second,
		Scoped: true, eventOf: clineEvent, ProjectField: "workspaceRoots",
	},
	"opencode": {
		Name: "opencode", Display: "opencode", Profile: "opencode",
		files:  opencodeFiles(".opencode", "opencode"),
		Plugin: opencodePlugin(".opencode", "opencode"),
		answer: opencodeAnswer, TimeoutUnit: time.Second, DefaultTimeout: 60 * time.Second,
		ProjectEnv: "OPENCODE_PROJECT_DIR",
	},
	// Kilo Code is an opencode fork: the same plugin API, its own directories (.kilo,
	// ~/.config/kilo; @kilocode/cli 7.7.7's bundle).
	"kilo": {
		Name: "kilo", Display: "Kilo Code", Profile: "kilo",
		files:  opencodeFiles(".kilo", "kilo"),
		Plugin: opencodePlugin(".kilo", "kilo"),
		answer: opencodeAnswer, TimeoutUnit: time.Second, DefaultTimeout: 60 * time.Second,
		ProjectEnv: "KILO_PROJECT_DIR",
	},
	"auggie": {
		Name: "auggie", Display: "Augment auggie", Profile: "auggie",
		files: func(s Scope, dir string) []File {
			d := filepath.Join(dir, ".augment")
			if s == User {
				return []File{file(d, "settings.json")}
			}
			return []File{file(d, "settings.local.json"), file(d, "settings.json")}
		},
		answer:      auggieAnswer,
		TimeoutUnit: time.Millisecond, DefaultTimeout: 60 * time.Second,
		ProjectEnv: "AUGMENT_PROJECT_DIR",
	},
	"copilot": {
		Name: "copilot", Display: "GitHub Copilot CLI", Profile: "copilot",
		files:  func(Scope, string) []File { return nil },
		Dir:    copilotHooks,
		answer: copilotDispatchAnswer,
		// Copilot runs its prompt hooks itself (sessionStart: the text as the first prompt).
		Evaluated:   []string{"prompt"},
		TimeoutUnit: time.Second, DefaultTimeout: 30 * time.Second,
		sources:       copilotSources,
		SpelledEvents: true,
		SubjectFields: map[string]string{"tool_name": "toolName", "source": "source"},
		SourceEnv:     []string{"COPILOT_HOME"},
		Scoped:        true,
	},
	"gemini": {
		Name: "gemini", Display: "Gemini CLI", Profile: "gemini",
		files: func(_ Scope, dir string) []File {
			return []File{file(filepath.Join(dir, ".gemini"), "settings.json")}
		},
		answer:      geminiAnswer,
		TimeoutUnit: time.Millisecond, DefaultTimeout: 60 * time.Second,
		HooksConfig: []string{"enabled", "disabled", "notifications"},
		ProjectEnv:  "GEMINI_PROJECT_DIR",
	},
}

// file names hookexec's files beside a settings file: settings.json → hookexec-hooks.json,
// settings.local.json → hookexec-hooks.local.json.
func file(dir, name string) File {
	managed := "hookexec-hooks" + strings.TrimPrefix(name, "settings")
	return File{Settings: filepath.Join(dir, name), Managed: filepath.Join(dir, managed),
		Backup: filepath.Join(dir, "."+name+".hookexec-backup")}
}

// Lookup finds an agent by name.
func Lookup(name string) (*Agent, error) {
	if a := agents[name]; a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("hookexec: unknown agent %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the agents, sorted.
func Names() []string {
	names := make([]string, 0, len(agents))
	for n := range agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Files lists the agent's settings files of a scope, highest precedence first.
func (a *Agent) Files(s Scope, dir string) []File {
	fs := a.files(s, dir)
	for i := range fs {
		fs[i].Scope = s
	}
	return fs
}

// Sources are the files the dispatcher loads for a project and a home, highest precedence
// first as the agent orders its settings, each settings file followed by hookexec's file
// beside it. The settings files are loaded for what they say besides hooks (policy,
// disabledHooks); their hooks are the agent's to run (see Settings).
func (a *Agent) Sources(project, home string) []string {
	var out []string
	for _, f := range append(a.Files(Project, project), a.Files(User, home)...) {
		if f.Settings != "" {
			out = append(out, f.Settings)
		}
		out = append(out, f.Managed)
	}
	return out
}

// SourcesEnv is Sources for an agent whose files depend on its environment (getenv reads
// the call's): Copilot CLI's managed files under $COPILOT_HOME.
// scope ("user", "project") keeps only that scope's files, for an agent with a hooks
// directory per scope, which runs one dispatcher entry per directory (Copilot CLI); ""
// keeps all.
func (a *Agent) SourcesEnv(project, home, scope string, getenv func(string) string) []string {
	if a.sources == nil {
		return a.Sources(project, home)
	}
	all := a.sources(project, home, getenv)
	switch scope {
	case User.String():
		return all[:1]
	case Project.String():
		return all[1:]
	}
	return all
}

// SettingsOutside are the agent's settings files plus, for a call of one scope of a
// Scoped agent ("" for none), hookexec's files of the other scope: the hooks the call
// must leave alone (the other scope's dispatcher entry runs those).
func (a *Agent) SettingsOutside(scope, project, home string) []string {
	out := a.Settings(project, home)
	if !a.Scoped || scope == "" {
		return out
	}
	other := a.Files(User, home)
	if scope == User.String() {
		other = a.Files(Project, project)
	}
	for _, f := range other {
		out = append(out, f.Managed)
	}
	return out
}

// Dirs are directories whose listing the sources depend on (Cline's hookexec-hooks
// directories): a file added there is a new source. nil for the agents of settings files.
func (a *Agent) Dirs(project, home string) []string {
	if a.Script == nil {
		return nil
	}
	var out []string
	for _, s := range []struct {
		s   Scope
		dir string
	}{{Project, project}, {User, home}} {
		for _, d := range a.Script.Dirs(s.s, s.dir) {
			out = append(out, a.Script.ManagedDir(d))
		}
	}
	return out
}

// Settings are the agent's own settings files for a project and a home: the hooks in them
// (the dispatcher, and hooks the agent runs itself) never run through hookexec.
func (a *Agent) Settings(project, home string) []string {
	var out []string
	for _, f := range append(a.files(Project, project), a.files(User, home)...) {
		if f.Settings != "" {
			out = append(out, f.Settings)
		}
	}
	return out
}

// Answer is the native answer for a fire's result.
func (a *Agent) Answer(r *engine.Result) Answer { return a.answer(r) }

// TimeoutOf reads a handler's "timeout" number as the agent does (0 for none).
func (a *Agent) TimeoutOf(n float64) time.Duration {
	if a.timeoutOf != nil {
		return a.timeoutOf(n)
	}
	return time.Duration(n * float64(a.TimeoutUnit))
}

// TimeoutValue is the "timeout" number the agent reads as at least d: whole units,
// rounded up, and read back the same way.
func (a *Agent) TimeoutValue(d time.Duration) int64 {
	n := int64((d + a.TimeoutUnit - 1) / a.TimeoutUnit)
	if a.TimeoutOf(float64(n)) < d {
		// Qwen Code reads 1000 or more as milliseconds: say it in milliseconds.
		n = int64((d + time.Millisecond - 1) / time.Millisecond)
	}
	return n
}

// Unmoved lists the files of a scope whose hooks install leaves with the agent.
func (a *Agent) Unmoved(s Scope, dir string) []string {
	if a.unmoved == nil {
		return nil
	}
	return a.unmoved(s, dir)
}

// IsHooksConfig reports whether a key of the "hooks" object is a setting, not an event.
func (a *Agent) IsHooksConfig(key string) bool { return slices.Contains(a.HooksConfig, key) }

// Evaluates reports whether the agent evaluates handlers of this type itself.
func (a *Agent) Evaluates(handlerType string) bool { return slices.Contains(a.Evaluated, handlerType) }
