package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hookexec/hookexec/core/engine"
)

func init() {
	register(&verb{
		name:    "replay",
		args:    "FILE",
		summary: "run recorded fires and check their outcomes; exit 1 on any mismatch",
		help: `FILE (or - for stdin) holds one fire a line:
  {"event": "PreToolUse", "payload": {...}, "expect": {"blocked": true, "decision": "deny", "reason_contains": "rm -rf"}}
expect may also say "matched" (how many hooks ran) and "continue". Every fire runs for
real, in file order, on one engine; each line reports ok or what differed. This is how a
team keeps its hooks under test in CI. A line that is not such a record is bad input
(exit 64) and nothing runs.`,
		example: `hookexec replay tests/hooks.jsonl
hookexec --profile claude replay - < fires.jsonl`,
		run: runReplay,
	})
}

// replayRecord is one line of a replay file.
type replayRecord struct {
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	Expect  replayExpect    `json:"expect"`
}

// replayExpect: nil fields are not checked.
type replayExpect struct {
	Blocked        *bool   `json:"blocked"`
	Decision       *string `json:"decision"`
	ReasonContains *string `json:"reason_contains"`
	Matched        *int    `json:"matched"`
	Continue       *bool   `json:"continue"`
}

type replayOutcome struct {
	Line       int      `json:"line"`
	Event      string   `json:"event"`
	OK         bool     `json:"ok"`
	Mismatches []string `json:"mismatches"`
	Blocked    bool     `json:"blocked"`
	Decision   string   `json:"decision"`
	Reason     string   `json:"reason"`
	Matched    int      `json:"matched"`
}

type replayJSON struct {
	Total   int             `json:"total"`
	Failed  int             `json:"failed"`
	Results []replayOutcome `json:"results"`
}

func runReplay(a *app, args []string) int {
	if len(args) != 1 {
		return a.fail(usagef("replay: want one FILE argument (or -), got %d", len(args)))
	}
	records, lines, err := a.readReplay(args[0])
	if err != nil {
		return a.fail(err)
	}
	return a.withEngine(func(eng *engine.Engine) (int, error) {
		out := replayJSON{Results: []replayOutcome{}}
		for i, rec := range records {
			res, err := a.fireWithProgress(eng, rec.Event, rec.Payload)
			if err != nil {
				return 0, fmt.Errorf("%s:%d: %w", args[0], lines[i], err)
			}
			o := replayOutcome{Line: lines[i], Event: rec.Event, Mismatches: rec.Expect.check(res),
				Blocked: res.Blocked, Decision: res.Decision, Reason: res.Reason, Matched: res.Matched}
			o.OK = len(o.Mismatches) == 0
			if !o.OK {
				out.Failed++
			}
			out.Results = append(out.Results, o)
		}
		out.Total = len(records)
		return a.printReplay(out), nil
	})
}

// printReplay reports the outcomes and returns the exit status.
func (a *app) printReplay(out replayJSON) int {
	code := exitOK
	if out.Failed > 0 {
		code = exitFail
	}
	if a.globals.json {
		a.printJSON(out)
		return code
	}
	t := a.term
	tb := newTable(t, "", "")
	for _, o := range out.Results {
		status := cell{text: "ok", paint: green}
		detail := outcomeText(o)
		if !o.OK {
			status = cell{text: "FAIL", paint: red}
			detail = strings.Join(o.Mismatches, "; ")
		}
		tb.rowCells(status, cell{text: fmt.Sprintf("line %d", o.Line), paint: dim}, cell{text: o.Event, paint: bold}, cell{text: detail})
	}
	tb.write(a.stdout, "")
	fmt.Fprintf(a.stdout, "%s: %d ok, %d failed\n", plural(out.Total, "fire"), out.Total-out.Failed, out.Failed)
	return code
}

func outcomeText(o replayOutcome) string {
	if o.Blocked {
		return "blocked: " + oneLine(o.Reason)
	}
	return fmt.Sprintf("not blocked (decision %s, %s)", o.Decision, plural(o.Matched, "hook")+" ran")
}

// check lists how res differs from what was expected.
func (x replayExpect) check(res *engine.Result) []string {
	var out []string
	if x.Blocked != nil && res.Blocked != *x.Blocked {
		out = append(out, fmt.Sprintf("blocked is %v, want %v", res.Blocked, *x.Blocked))
	}
	if x.Decision != nil && res.Decision != *x.Decision {
		out = append(out, fmt.Sprintf("decision is %q, want %q", res.Decision, *x.Decision))
	}
	if x.ReasonContains != nil && !strings.Contains(res.Reason, *x.ReasonContains) {
		out = append(out, fmt.Sprintf("reason %q does not contain %q", oneLine(res.Reason), *x.ReasonContains))
	}
	if x.Matched != nil && res.Matched != *x.Matched {
		out = append(out, fmt.Sprintf("%s, want %d", plural(res.Matched, "hook")+" ran", *x.Matched))
	}
	if x.Continue != nil && res.Continue != *x.Continue {
		out = append(out, fmt.Sprintf("continue is %v, want %v", res.Continue, *x.Continue))
	}
	return out
}

// readReplay reads and checks every record before anything runs.
func (a *app) readReplay(name string) ([]replayRecord, []int, error) {
	var r io.Reader
	if name == "-" {
		r = a.stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, usagef("replay: cannot read %s: %v", name, unwrapPathError(err))
		}
		defer f.Close()
		r = f
	}
	var records []replayRecord
	var lines []int
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var rec replayRecord
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields() // a misspelt "expect" key must not pass silently
		if err := dec.Decode(&rec); err != nil {
			return nil, nil, usagef("%s:%d: not a replay record: %v", name, n, err)
		}
		if rec.Event == "" {
			return nil, nil, usagef("%s:%d: no \"event\"", name, n)
		}
		if err := checkEventName(rec.Event); err != nil {
			return nil, nil, usagef("%s:%d: %v", name, n, err)
		}
		if len(rec.Payload) == 0 || string(rec.Payload) == "null" {
			rec.Payload = json.RawMessage("{}")
		}
		if err := checkObject(rec.Payload); err != nil {
			return nil, nil, usagef("%s:%d: payload: %v", name, n, err)
		}
		records = append(records, rec)
		lines = append(lines, n)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, usagef("replay: reading %s: %v", name, err)
	}
	if len(records) == 0 {
		return nil, nil, usagef("replay: %s holds no fires", name)
	}
	return records, lines, nil
}
