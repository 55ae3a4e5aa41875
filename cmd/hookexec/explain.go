package main

import (
	"flag"
	"fmt"

	"github.com/hookexec/hookexec/core/engine"
)

func init() {
	var payload string
	register(&verb{
		name:    "explain",
		args:    "EVENT",
		summary: "say for every hook of an event why it would or would not run, and where it is defined",
		help: `For each hook configured for EVENT (and each one configured under a misspelling of
it), says which check decided (event, duplicate, disableAllHooks, policy, disabled, matcher,
filter, if, trust, once) and why, with the file and line the hook comes from, then the exact command lines of
the hooks that would run. Nothing is run.`,
		example: `hookexec explain PreToolUse --payload '{"tool_name":"Edit","tool_input":{"file_path":"a.py"}}'
hookexec --profile autohand explain pre-tool --payload @payload.json --json`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&payload, "payload", "", "the event's payload: `JSON`, @FILE, or - for stdin (default {})")
		},
		run: func(a *app, args []string) int { return runExplain(a, args, payload) },
	})
}

func runExplain(a *app, args []string, payloadArg string) int {
	name, data, err := a.eventAndPayload("explain", args, payloadArg)
	if err != nil {
		return a.fail(err)
	}
	return a.withEngine(func(eng *engine.Engine) (int, error) {
		x, err := eng.Explain(name, data)
		if err != nil {
			return 0, err
		}
		if a.globals.json {
			a.printJSON(x)
		} else {
			a.printExplanation(x)
		}
		return exitOK, nil
	})
}

// printExplanation prints the verdict table and the command lines of the hooks that run.
func (a *app) printExplanation(x *engine.Explanation) {
	t := a.term
	w := a.stdout
	subject := ""
	if x.SubjectField != "" {
		subject = fmt.Sprintf(", %s %q", x.SubjectField, x.Subject)
	}
	fmt.Fprintf(w, "%s%s: %d of %s would run\n", t.paint(bold, x.Event), subject, x.Runs, plural(len(x.Hooks), "hook"))
	if len(x.Hooks) == 0 {
		return
	}
	tb := newTable(t, "RUNS", "ID", "CHECK", "SOURCE", "WHY")
	tb.shrink = 4
	for _, h := range x.Hooks {
		runs := cell{text: "yes", paint: green}
		if !h.Runs {
			runs = cell{text: "no", paint: red}
		}
		tb.rowCells(runs, cell{text: h.ID, paint: cyan}, cell{text: h.Check},
			cell{text: a.where(h.Source, h.Line), paint: dim}, cell{text: plainMessage(h.Reason)})
	}
	tb.write(w, "  ")
	a.printCommands(x)
}

// printCommands lists the exact command lines of the hooks that would run.
func (a *app) printCommands(x *engine.Explanation) {
	if x.Runs == 0 {
		return
	}
	fmt.Fprintln(a.stdout, "Command lines after substitution:")
	tb := newTable(a.term, "", "")
	for _, h := range x.Hooks {
		if h.Runs {
			tb.rowCells(cell{text: h.ID, paint: cyan}, cell{text: h.Exec, paint: dim}, cell{text: oneLine(h.Command)})
		}
	}
	tb.write(a.stdout, "  ")
}
