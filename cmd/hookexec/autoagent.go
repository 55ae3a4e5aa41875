package main

import (
	"fmt"
	"slices"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/jsontext"
)

// AutoAgent's convenience commands (seed 000): `config set-auto-commit|set-auto-push
// true|false` add or remove the git-commit and git-push built-ins of PostExecutionEnd, in
// that order, in .autoagent/config.json, and print the seed's confirmation lines.

func init() {
	register(&verb{
		name:    "config",
		args:    "set-auto-commit|set-auto-push true|false",
		summary: "AutoAgent: add or remove the git-commit / git-push hooks of PostExecutionEnd",
		help: `set-auto-commit true adds {"type": "git-commit", "message": "Complete issue
#{{issueNumber}}: {{issueTitle}}"} to PostExecutionEnd (before any git-push); false removes
it. set-auto-push true adds {"type": "git-push", "remote": "origin", "branch": "current"}
after it; false removes it. The file is AutoAgent's .autoagent/config.json in the project
(or --source FILE); every other setting in it is kept.`,
		example: `hookexec config set-auto-commit true
hookexec config set-auto-push false`,
		run: runConfig,
	})
}

const autoEvent = "PostExecutionEnd"

var autoHooks = map[string]jsontext.Object{
	"git-commit": {jsontext.F("type", "git-commit"), jsontext.F("message", "Complete issue #{{issueNumber}}: {{issueTitle}}")},
	"git-push":   {jsontext.F("type", "git-push"), jsontext.F("remote", "origin"), jsontext.F("branch", "current")},
}

func runConfig(a *app, args []string) int {
	if len(args) != 2 || (args[0] != "set-auto-commit" && args[0] != "set-auto-push") || (args[1] != "true" && args[1] != "false") {
		return a.fail(usagef("config: want set-auto-commit or set-auto-push, then true or false"))
	}
	kind := "git-commit"
	if args[0] == "set-auto-push" {
		kind = "git-push"
	}
	on := args[1] == "true"
	return a.withTarget("autoagent", func(_ *engine.Engine, _ *engine.ConfigReport, t *target) (int, error) {
		var err error
		list := []jsontext.Seg{jsontext.K("hooks"), jsontext.K(autoEvent)}
		types := stringsAt(t.text, list, jsontext.K("type"))
		var msg string
		changed := true
		switch {
		case on && slices.Index(types, kind) >= 0:
			msg, changed = fmt.Sprintf("%s hook already in %s", kind, autoEvent), false
		case on:
			at := -1 // git-push goes last; git-commit before the first git-push
			if kind == "git-commit" {
				at = slices.Index(types, "git-push")
			}
			if t.text, err = jsontext.Insert(t.text, at, autoHooks[kind], list...); err != nil {
				return 0, err
			}
			msg = fmt.Sprintf("Added %s hook to %s", kind, autoEvent)
		case slices.Index(types, kind) < 0:
			msg, changed = fmt.Sprintf("No %s hook in %s", kind, autoEvent), false
		default:
			for i := len(types) - 1; i >= 0; i-- {
				if types[i] == kind {
					if t.text, err = jsontext.Delete(t.text, append(list, jsontext.I(i))...); err != nil {
						return 0, err
					}
				}
			}
			if n, err := jsontext.Len(t.text, list...); err == nil && n == 0 {
				if t.text, err = jsontext.Delete(t.text, list...); err != nil {
					return 0, err
				}
			}
			msg = fmt.Sprintf("Removed %s hook from %s", kind, autoEvent)
		}
		if changed {
			if err := t.save(); err != nil {
				return 0, err
			}
		}
		a.report(msg)
		return exitOK, nil
	})
}
