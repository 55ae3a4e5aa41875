package main

import (
	"fmt"
	"strings"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/engine"
)

func init() {
	register(&verb{
		name:    "validate",
		summary: "report every problem in the configuration; exit 1 on errors",
		help: `Errors are problems that turn a hook or a file off: unreadable or invalid files,
invalid regexes, unsafe template placeholders, wrong types, misspelt event names. Warnings
are advice: a program that is not on PATH, a matcher on an event that takes none, unknown
fields. Warnings alone exit 0, so validate can gate a commit or a CI job.`,
		example: `hookexec validate
hookexec --source .claude/settings.json validate --json`,
		run: runValidate,
	})
}

type validateJSON struct {
	OK       bool             `json:"ok"`
	Errors   int              `json:"errors"`
	Warnings int              `json:"warnings"`
	Problems []config.Warning `json:"problems"`
}

func runValidate(a *app, args []string) int {
	if err := noArgs("validate", args); err != nil {
		return a.fail(err)
	}
	return a.withEngine(func(eng *engine.Engine) (int, error) {
		problems, err := eng.Check()
		if err != nil {
			return 0, err
		}
		return a.printProblems(problems), nil
	})
}

// printProblems reports the problems and returns the exit status they call for.
func (a *app) printProblems(problems []config.Warning) int {
	if problems == nil {
		problems = []config.Warning{}
	}
	errs := 0
	for _, p := range problems {
		if p.Error {
			errs++
		}
	}
	code := exitOK
	if errs > 0 {
		code = exitFail
	}
	if a.globals.json {
		a.printJSON(validateJSON{OK: errs == 0, Errors: errs, Warnings: len(problems) - errs, Problems: problems})
		return code
	}
	t := a.term
	for _, p := range problems {
		sev := cell{text: "warning", paint: yellow}
		if p.Error {
			sev = cell{text: "error", paint: red}
		}
		fmt.Fprintf(a.stdout, "%s%s  %s\n", t.paint(sev.paint, sev.text), pad(sev.text, 7), a.problemText(p))
	}
	switch {
	case len(problems) == 0:
		fmt.Fprintln(a.stdout, t.paint(green, "ok: no problems found"))
	default:
		fmt.Fprintf(a.stdout, "%s, %s\n", plural(errs, "error"), plural(len(problems)-errs, "warning"))
	}
	return code
}

// problemText renders a warning as "file:line path: message", the hook's name after the
// path when it has one.
func (a *app) problemText(p config.Warning) string {
	s := a.where(p.Source, p.Line)
	msg := plainMessage(p.Message)
	if p.Path != "" {
		s += " " + p.Path
		// Some messages start with the path already ("hooks.X[0] is a string, ...").
		msg = strings.TrimPrefix(msg, p.Path+" ")
	}
	if p.Hook != "" && p.Hook != p.Path && !strings.HasPrefix(p.Hook, "hooks") {
		s += " (" + p.Hook + ")"
	}
	return s + ": " + msg
}

// plainMessage drops the "hookexec: " package prefixes of core errors, which say nothing
// to a user of the hookexec command.
func plainMessage(s string) string { return strings.ReplaceAll(s, "hookexec: ", "") }

// pad returns the spaces that widen s to n runes (for text painted before padding).
func pad(s string, n int) string {
	if len(s) >= n {
		return ""
	}
	return fmt.Sprintf("%*s", n-len(s), "")
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
