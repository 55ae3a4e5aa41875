package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hookexec/hookexec/core/decide"
)

// A value never decides: a hook whose definition was filled from the payload may have
// printed what the model wrote, so its answer may only restrict (decide.Verdict.Restrict,
// docs/hook-io.md). Every hook's verdict passes here (finish), whatever ran it: the shell,
// a direct or exec-form command, a git built-in, the host's evaluator, and whether the
// engine was called from Go, the C library, Python or serve.

// inputValue is a `${path}` an mcp_tool hook's input is filled with (fillInput).
var inputValue = regexp.MustCompile(`\$\{([^}]*)\}`)

// templateValues lists the payload paths a hook's definition is filled with: the
// placeholders of its command or args (mycode's $FILE_PATH included), of its prompt or
// message, and the `${…}` of its input. nil for a hook that gets values only on stdin and
// in its environment, as every Claude Code command hook does.
func (h *hook) templateValues() []string {
	var out []string
	if h.cfg.Cmd != nil && len(h.cfg.CmdPaths) > 0 {
		out = append(out, h.cfg.Cmd.Placeholders()...)
	}
	if h.cfg.Text != nil && len(h.cfg.TextPaths) > 0 {
		out = append(out, h.cfg.Text.Placeholders()...)
	}
	for _, m := range inputValue.FindAllSubmatch(h.cfg.Input, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// restrictTemplated applies the rule to the verdict of a hook given template values, and
// says in a warning what it dropped and why.
func (j *job) restrictTemplated(v *decide.Verdict) {
	values := j.h.templateValues()
	if len(values) == 0 {
		return
	}
	if dropped := v.Restrict(j.ev); len(dropped) > 0 {
		// The hook's output is not shown as its answer either: a host (or the cli-agent
		// drop-in) reading a hook's own output must not find the fields dropped here.
		// stdout keeps the text.
		v.Output = nil
		v.Warnings = append(v.Warnings, fmt.Sprintf("%s ignored: %s (its definition is filled with %s; see docs/hook-io.md, \"A value never decides\")",
			strings.Join(dropped, ", "), decide.RestrictRule, strings.Join(values, ", ")))
	}
}
