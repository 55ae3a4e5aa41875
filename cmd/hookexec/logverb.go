package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/engine"
)

// logFire is what log reads of one line of the debug log (core/engine/log.go writes it).
type logFire struct {
	Time       string  `json:"time"`
	Event      string  `json:"event"`
	Subject    string  `json:"subject"`
	Matched    int     `json:"matched"`
	Blocked    bool    `json:"blocked"`
	Decision   string  `json:"decision"`
	DurationMs float64 `json:"duration_ms"`
	Hooks      []struct {
		ID              string  `json:"id"`
		Ran             bool    `json:"ran"`
		ExitCode        *int    `json:"exit_code"`
		Signal          string  `json:"signal"`
		TimedOut        bool    `json:"timed_out"`
		DurationMs      float64 `json:"duration_ms"`
		Error           string  `json:"error"`
		Async           bool    `json:"async"`
		StdoutTruncated bool    `json:"stdout_truncated"`
		StderrTruncated bool    `json:"stderr_truncated"`
	} `json:"hooks"`
}

func init() {
	var last int
	register(&verb{
		name:    "log",
		summary: "show the last fires of the debug log (--log or $HOOKEXEC_LOG) in a table, with each hook's time",
		help: `Reads the log that --log FILE or HOOKEXEC_LOG=FILE makes hookexec write (one JSON line per fire)
and shows the last fires, oldest first: when, the event and its subject, the outcome, the
fire's duration, then one row per hook that ran with its duration, exit and marks (timeout,
stdout/stderr cut at the output cap, async, error). --json prints the lines as a JSON array.`,
		example: `hookexec --log /tmp/hooks.log log --last 5`,
		flags: func(fs *flag.FlagSet) {
			fs.IntVar(&last, "last", 20, "how many fires to show")
		},
		run: func(a *app, args []string) int {
			if err := noArgs("log", args); err != nil {
				return a.fail(err)
			}
			path := a.globals.log
			if path == "" {
				path = os.Getenv(engine.LogEnv)
			}
			if path == "" {
				return a.fail(usagef("log: no log: say --log FILE or set %s", engine.LogEnv))
			}
			if last <= 0 {
				return a.fail(usagef("log: --last must be positive"))
			}
			return a.showLog(path, last)
		},
	})
}

func (a *app) showLog(path string, last int) int {
	f, err := os.Open(path)
	if err != nil {
		return a.fail(fmt.Errorf("log: %w", err))
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
		if len(lines) > last {
			lines = lines[1:]
		}
	}
	if err := sc.Err(); err != nil {
		return a.fail(fmt.Errorf("log: %s: %w", path, err))
	}
	if len(lines) == 0 {
		return a.fail(errors.New("log: " + path + " holds no fires yet"))
	}
	if a.globals.json {
		raw := make([]json.RawMessage, 0, len(lines))
		for _, l := range lines {
			if json.Valid(l) {
				raw = append(raw, l)
			}
		}
		a.printJSON(raw)
		return exitOK
	}
	t := newTable(a.term, "TIME", "EVENT", "SUBJECT", "OUTCOME", "MS", "HOOK", "EXIT", "MARKS")
	t.right[4] = true
	bad := 0
	for _, l := range lines {
		var fire logFire
		if err := json.Unmarshal(l, &fire); err != nil {
			bad++
			continue
		}
		when := fire.Time
		if ts, err := time.Parse(time.RFC3339Nano, fire.Time); err == nil {
			when = ts.Local().Format("15:04:05.000")
		}
		outcome := fire.Decision
		if fire.Blocked {
			outcome = "blocked"
		}
		if fire.Matched == 0 {
			outcome = "no match"
		}
		t.row(when, fire.Event, ellipsis(oneLine(fire.Subject), 30), outcome, fmt.Sprintf("%.1f", fire.DurationMs))
		for _, h := range fire.Hooks {
			if !h.Ran {
				continue
			}
			exit := ""
			if h.ExitCode != nil {
				exit = strconv.Itoa(*h.ExitCode)
			}
			if h.Signal != "" {
				exit = h.Signal
			}
			var marks []string
			for _, m := range []struct {
				on   bool
				text string
			}{{h.TimedOut, "timeout"}, {h.StdoutTruncated, "stdout cut"}, {h.StderrTruncated, "stderr cut"}, {h.Async, "async"}, {h.Error != "", "error: " + ellipsis(oneLine(h.Error), 40)}} {
				if m.on {
					marks = append(marks, m.text)
				}
			}
			t.row("", "", "", "", fmt.Sprintf("%.1f", h.DurationMs), h.ID, exit, strings.Join(marks, ", "))
		}
	}
	t.write(a.stdout, "")
	if bad > 0 {
		fmt.Fprintf(a.stderr, "hookexec: log: %s skipped (not a fire)\n", plural(bad, "line"))
	}
	return exitOK
}
