package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hookexec/hookexec/core/event"
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
		l.compilePolicy(h)
		// A hook disabled already is still checked: every problem of a file is reported at once.
		if field, err := h.compile(l.project, l.home); err != nil {
			if h.Disabled == "" {
				h.Disabled = err.Error()
			}
			// One problem per refused placeholder, each at the line of its field.
			var list template.Errors
			if errors.As(err, &list) {
				for _, e := range list {
					l.set.Warnings = append(l.set.Warnings, Warning{Source: h.Source, Path: field, Hook: h.ID, Message: e.Error(), Error: true})
				}
				continue
			}
			l.set.Warnings = append(l.set.Warnings, Warning{Source: h.Source, Path: field, Hook: h.ID, Message: err.Error(), Error: true})
		}
	}
}

// compile builds the hook's matcher, "if" rule, filter (paths relative to project) and
// templates. On failure it also returns the path of the field at fault.
func (h *Hook) compile(project, home string) (string, error) {
	var err error
	ev := event.Lookup(h.Event)
	pattern := h.Matcher
	if ev.ModelTags {
		pattern = match.StripModelTags(pattern)
	}
	switch {
	case !ev.TakesMatcher():
		// A matcher on an event without one was reported (and disabled the hook, or is
		// ignored as in Claude Code) by the dialect: every fire matches.
	case h.RegexMatcher:
		h.Match, err = match.CompileRegex(pattern)
	case ev.NarrowNames:
		h.Match, err = match.CompileNarrow(pattern)
	default:
		h.Match, err = match.Compile(pattern)
	}
	if err != nil {
		return h.MatcherPath(), err
	}
	if ev.Tool {
		// One guard selects the same tool however the host spells it (package vocab).
		h.Match = h.Match.Vocabulary(h.Dialect.String())
	}
	if h.If != "" {
		if !ev.Tool {
			return h.field("if"), fmt.Errorf("if %q is evaluated only on tool events (PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, PermissionDenied); on %s the hook never runs", h.If, h.Event)
		}
		if h.Rule, err = match.CompileRule(h.If, project, home); err != nil {
			return h.field("if"), fmt.Errorf("%v; the hook is disabled", err)
		}
	}
	if h.Filter, err = match.CompileFilter(h.FilterTools, h.FilterPaths, project); err != nil {
		return h.field("filter"), err
	}
	field := "command"
	switch {
	case h.Type == "command" && h.Command == "" && len(h.Args) == 0:
		// Nothing to compile; the dialect reported the missing command.
	case h.Type == "command" && !h.Dialect.Templates:
		// Claude Code has no placeholders: the command goes to the shell as written.
		if len(h.Args) > 0 {
			field = "args"
			h.Cmd, err = template.CompileArgsLiteral(substitutePaths(h, project))
		} else {
			h.Cmd, err = template.CompileLiteral(h.Command)
		}
	case h.Type == "command":
		if len(h.Args) > 0 {
			field = "args"
			h.Cmd, err = template.CompileArgs(substitutePaths(h, project))
		} else {
			// mycode's $FILE_PATH and the like are placeholders, so that the value is
			// quoted for every shell it passes through (bash -c '... $FILE_PATH'). Where
			// that cannot be done the hook is refused: leaving $FILE_PATH to the shell
			// would let it expand the value into code (python3 -c "...$FILE_PATH...").
			h.Cmd, err = template.Compile(h.CommandTemplate())
		}
		if err == nil {
			h.CmdPaths, err = compilePaths(h.Cmd.Placeholders())
		}
		if err == nil && h.Persistent && len(h.CmdPaths) > 0 {
			// It starts once: there is no fire to take the values from.
			err = fmt.Errorf("a persistent command cannot have placeholders (%s): it starts once, so per-fire values reach it on stdin", strings.Join(h.Cmd.Placeholders(), ", "))
		}
	case h.Type == "prompt" || h.Type == "agent" || h.Type == "git-commit" || h.Type == "askAgent":
		// The prompt goes to the host's evaluator and the message to git as data, never to
		// a shell.
		text := h.Prompt
		field = "prompt"
		if h.Type == "git-commit" {
			text, field = h.Message, "message"
		}
		h.Text, err = template.CompileText(text)
		if err == nil {
			h.TextPaths, err = compilePaths(h.Text.Placeholders())
		}
	}
	if err != nil {
		return h.field(field), err
	}
	return "", nil
}

// field is the path of one of the hook's own fields ("" when the hook has no path).
func (h *Hook) field(name string) string {
	if h.Path == "" {
		return ""
	}
	return h.Path + "." + name
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
