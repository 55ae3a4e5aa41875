package config

import (
	"github.com/hookexec/hookexec/core/match"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/template"
)

// compile validates what only compiling can check (matchers, filters, templates) and keeps
// the compiled forms on the hooks. A hook that does not compile is disabled with a warning;
// the others are unaffected. Duplicates are skipped: their original is compiled and reported.
func (l *loader) compile() {
	for i := range l.set.Hooks {
		h := &l.set.Hooks[i]
		if h.DuplicateOf != "" {
			continue
		}
		// A hook disabled already is still checked: every problem of a file is reported at once.
		if err := h.compile(l.project); err != nil {
			if h.Disabled == "" {
				h.Disabled = err.Error()
			}
			l.set.Warnings = append(l.set.Warnings, Warning{Source: h.Source, Hook: h.ID, Message: err.Error(), Error: true})
		}
	}
}

// compile builds the hook's matcher, filter (paths relative to project) and templates.
func (h *Hook) compile(project string) error {
	var err error
	if h.RegexMatcher {
		h.Match, err = match.CompileRegex(h.Matcher)
	} else {
		h.Match, err = match.Compile(h.Matcher)
	}
	if err != nil {
		return err
	}
	if h.Filter, err = match.CompileFilter(h.FilterTools, h.FilterPaths, project); err != nil {
		return err
	}
	switch {
	case h.Type == "command" && h.Command == "" && len(h.Args) == 0:
		// Nothing to compile; the dialect reported the missing command.
	case h.Type == "command":
		if len(h.Args) > 0 {
			h.Cmd, err = template.CompileArgs(h.Args)
		} else {
			cmd := h.CommandTemplate()
			h.Cmd, err = template.Compile(cmd)
			if err != nil && cmd != h.Command {
				// mycode's $VAR in a context that cannot take a quoted value: leave it to
				// the shell, which has the same value in the environment.
				h.Cmd, err = template.Compile(h.Command)
			}
		}
		if err == nil {
			h.CmdPaths, err = compilePaths(h.Cmd.Placeholders())
		}
	case h.Type == "prompt" || h.Type == "agent" || h.Type == "git-commit":
		// The prompt goes to the host's evaluator and the message to git as data, never to
		// a shell.
		text := h.Prompt
		if h.Type == "git-commit" {
			text = h.Message
		}
		h.Text, err = template.CompileArgs([]string{text})
		if err == nil {
			h.TextPaths, err = compilePaths(h.Text.Placeholders())
		}
	}
	return err
}

func compilePaths(exprs []string) ([]payload.Path, error) {
	out := make([]payload.Path, len(exprs))
	for i, x := range exprs {
		p, err := payload.Compile(x)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}
