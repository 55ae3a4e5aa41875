package native

import (
	"path/filepath"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/vocab"
)

// HooksDir is set for an agent that runs the hooks of every *.json file of a directory
// (GitHub Copilot CLI's .github/hooks and $COPILOT_HOME/hooks) rather than those of named
// settings files: install moves the hooks of those files into one managed file of the
// scope and writes one dispatcher file into the directory (core/install copilot.go).
type HooksDir struct {
	// Dir is the hooks directory of a scope; dir is the project or the home, getenv the
	// environment the agent runs in (COPILOT_HOME).
	Dir func(s Scope, dir string, getenv func(string) string) string
	// Managed is hookexec's file of the scope's moved hooks, outside Dir.
	Managed func(s Scope, dir string, getenv func(string) string) string
	// Dispatcher is the name of the file install writes into Dir.
	Dispatcher string
	// Version is the files' "version" the dispatcher file and the managed file carry.
	Version int
}

// copilotHome is $COPILOT_HOME, else ~/.copilot (1.0.102 reads only one of the two).
func copilotHome(home string, getenv func(string) string) string {
	if h := getenv("COPILOT_HOME"); h != "" {
		return h
	}
	return filepath.Join(home, ".copilot")
}

// CopilotManaged is the name of the file of a scope's moved Copilot CLI hooks, beside the
// hooks directory (.github/hookexec-copilot-hooks.json, $COPILOT_HOME/hookexec-copilot-hooks.json):
// Copilot reads only the directory, and the copilot dialect knows the file by its name.
const CopilotManaged = "hookexec-copilot-hooks.json"

// copilotHooks: .github/hooks of the project, $COPILOT_HOME/hooks (~/.copilot/hooks) of the user.
var copilotHooks = &HooksDir{
	Dir: func(s Scope, dir string, getenv func(string) string) string {
		if s == User {
			return filepath.Join(copilotHome(dir, getenv), "hooks")
		}
		return filepath.Join(dir, ".github", "hooks")
	},
	Managed: func(s Scope, dir string, getenv func(string) string) string {
		if s == User {
			return filepath.Join(copilotHome(dir, getenv), CopilotManaged)
		}
		return filepath.Join(dir, ".github", CopilotManaged)
	},
	// Copilot runs a directory's files in reverse name order and the first deny ends the
	// fire: this name sorts after most hooks files' names, so files install leaves with
	// Copilot (the suite's zzz-recorder.json) run before the moved hooks, as they did.
	Dispatcher: "hookexec.json",
	Version:    1,
}

// copilotSources are the managed files the dispatcher runs, in Copilot's order: the
// user's hooks before the project's (tests/live/copilot user_hooks_run_before_project).
// Each directory's dispatcher entry says its scope (--scope), and runs that file only:
// Copilot runs both entries.
func copilotSources(project, home string, getenv func(string) string) []string {
	return []string{copilotHooks.Managed(User, home, getenv), copilotHooks.Managed(Project, project, getenv)}
}

// CopilotEvent is the event as the dispatcher entry of Copilot CLI names it for a canonical
// event: the camelCase spelling (whose payload does not name its event), else the
// PascalCase one (SubagentStart); "" when Copilot has no such event.
func CopilotEvent(canonical string) string {
	name, _ := vocab.EventName(vocab.Copilot, canonical, "")
	return name
}

// copilotDispatchAnswer is the dispatcher's answer to Copilot CLI: the fire's canonical
// event as the entry spells it.
func copilotDispatchAnswer(r *engine.Result) Answer {
	return copilotAnswer(CopilotEvent(r.Event), r)
}
