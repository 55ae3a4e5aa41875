package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
)

func init() {
	var tool string
	var dryRun bool
	register(&verb{
		name:    "test",
		args:    "EVENT",
		summary: "try an event's hooks with a realistic sample payload (--dry-run: show, do not run)",
		help: `Builds the payload an agent would send for EVENT (for tool events, with --tool, or the
first tool a configured matcher names, else Bash), shows which hooks match and the exact
command lines after substitution, then runs them as fire does (exit 2 when blocked).
With --dry-run nothing is run.`,
		example: `hookexec test PreToolUse --tool Write --dry-run
hookexec --profile autoagent test PostExecutionEnd`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&tool, "tool", "", "the tool `NAME` of a tool event's sample payload")
			fs.BoolVar(&dryRun, "dry-run", false, "show the payload, the matching hooks and their command lines; run nothing")
		},
		run: func(a *app, args []string) int { return runTest(a, args, tool, dryRun) },
	})
}

// testJSON is test's --json output.
type testJSON struct {
	Payload     json.RawMessage     `json:"payload"`
	Explanation *engine.Explanation `json:"explanation"`
	Result      json.RawMessage     `json:"result,omitempty"` // absent with --dry-run
}

func runTest(a *app, args []string, tool string, dryRun bool) int {
	name, err := oneEvent("test", args)
	if err != nil {
		return a.fail(err)
	}
	return a.withEngine(func(eng *engine.Engine) (int, error) {
		rep, err := eng.Config()
		if err != nil {
			return 0, err
		}
		if tool == "" {
			tool = defaultTool(rep, name)
		}
		data, err := json.Marshal(samplePayload(event.Canonical(name), tool, rep.ProjectDir))
		if err != nil {
			return 0, err
		}
		x, err := eng.Explain(name, data)
		if err != nil {
			return 0, err
		}
		var res *engine.Result
		if !dryRun {
			if res, err = a.fireWithProgress(eng, name, data); err != nil {
				return 0, err
			}
		}
		a.printTest(data, x, res)
		if res != nil && res.Blocked {
			return exitBlocked, nil
		}
		return exitOK, nil
	})
}

// printTest shows the sample payload, the explanation and the result (nil: dry run).
func (a *app) printTest(data []byte, x *engine.Explanation, res *engine.Result) {
	if a.globals.json {
		out := testJSON{Payload: data, Explanation: x}
		if res != nil {
			out.Result = res.JSON()
		}
		a.printJSON(out)
		return
	}
	w := a.stdout
	pretty, _ := json.MarshalIndent(json.RawMessage(data), "  ", "  ")
	fmt.Fprintf(w, "Sample payload:\n  %s\n\n", pretty)
	a.printExplanation(x)
	if res != nil {
		fmt.Fprintln(w)
		a.printResult(res)
	}
}
