package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/atomicfile"
	"github.com/hookexec/hookexec/core/audit"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/stats"
)

func init() {
	var (
		sortKey, since, htmlOut string
		events                  stringList
	)
	register(&verb{
		name:    "stats",
		args:    "[FILE...]",
		summary: "per hook: runs, p50/p90/p99 time, decisions, timeouts, errors, from the debug or audit log (--html: a page with a histogram per hook)",
		help: `Reads the logs named, debug logs or audit logs (default: --log FILE or $HOOKEXEC_LOG,
else $HOOKEXEC_AUDIT_LOG and its rotated files; "-" reads stdin), a line at a time, and
shows per hook (its id and where it is defined) how often it ran, its total, p50, p90, p99
and largest time, its timeouts, errors and decisions; then per event the fires, their
times and how many were blocked. Percentiles are exact (nearest rank: a time that really
occurred). Lines that are not fires are counted and reported on stderr. --json prints the
same as JSON; --html OUT also writes a self-contained HTML page (it loads nothing from
elsewhere) with the tables and a latency histogram per hook.`,
		example: `hookexec stats --log /tmp/hooks.log
hookexec stats --sort p99 --event PreToolUse --since 24h /tmp/hooks.log
hookexec stats --html stats.html /tmp/hooks.log`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&sortKey, "sort", stats.SortTotal, "order hooks by `KEY`: "+strings.Join(stats.SortKeys, ", ")+" (largest first; id alphabetical)")
			fs.Var(&events, "event", "count only fires of this `EVENT` (repeatable, or comma-separated)")
			fs.StringVar(&since, "since", "", "count only fires since `WHEN`: a duration back from now (90m, 24h) or a time (2026-01-02, RFC 3339)")
			fs.StringVar(&htmlOut, "html", "", "also write an HTML page with a latency histogram per hook to `FILE`")
		},
		run: func(a *app, args []string) int {
			filter, err := statsFilter(events, since, time.Now())
			if err != nil {
				return a.fail(err)
			}
			if !validSortKey(sortKey) {
				return a.fail(usagef("stats: --sort %q: one of %s", sortKey, strings.Join(stats.SortKeys, ", ")))
			}
			files, err := a.statsFiles(args)
			if err != nil {
				return a.fail(err)
			}
			return a.stats(files, filter, sortKey, htmlOut)
		},
	})
}

// statsFiles are the files named, else the debug log (--log, HOOKEXEC_LOG), else the
// audit log (HOOKEXEC_AUDIT_LOG) with its rotated files, oldest first.
func (a *app) statsFiles(args []string) ([]string, error) {
	if len(args) > 0 {
		return args, nil
	}
	if p := a.globals.log; p != "" {
		return []string{p}, nil
	}
	if p := os.Getenv(engine.LogEnv); p != "" {
		return []string{p}, nil
	}
	if p := os.Getenv(engine.AuditLogEnv); p != "" {
		files, err := audit.Files(a.auditPath(p))
		if err == nil && len(files) == 0 {
			err = fmt.Errorf("%s: no such log", p)
		}
		if err != nil {
			return nil, fmt.Errorf("stats: %s: %w", engine.AuditLogEnv, err)
		}
		return files, nil
	}
	return nil, usagef("stats: no log: name a FILE, say --log FILE, or set %s or %s", engine.LogEnv, engine.AuditLogEnv)
}

func validSortKey(k string) bool {
	for _, s := range stats.SortKeys {
		if s == k {
			return true
		}
	}
	return false
}

// statsFilter reads --event and --since.
func statsFilter(events []string, since string, now time.Time) (stats.Filter, error) {
	var f stats.Filter
	for _, list := range events {
		for _, e := range strings.Split(list, ",") {
			if e = strings.TrimSpace(e); e == "" {
				return f, usagef("stats: --event: empty event name")
			}
			f.Events = append(f.Events, event.Canonical(e))
		}
	}
	if since == "" {
		return f, nil
	}
	if d, err := time.ParseDuration(since); err == nil {
		if d < 0 {
			return f, usagef("stats: --since %s: a duration back from now is positive", since)
		}
		f.Since = now.Add(-d)
		return f, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, since, time.Local); err == nil {
			f.Since = t
			return f, nil
		}
	}
	return f, usagef("stats: --since %q: not a duration (90m, 24h) or a time (2026-01-02, 2026-01-02T15:04:05Z)", since)
}

func (a *app) stats(files []string, filter stats.Filter, sortKey, htmlOut string) int {
	agg := stats.New(filter)
	for _, name := range files {
		if err := a.readStats(agg, name); err != nil {
			return a.fail(err)
		}
	}
	s := agg.Summary()
	if err := stats.Sort(s.Hooks, sortKey); err != nil {
		return a.fail(usagef("stats: %v", err))
	}
	for _, f := range s.Files {
		if f.Bad > 0 {
			first := f.BadSamples[0]
			fmt.Fprintf(a.stderr, "hookexec: stats: %s: %s skipped, not a fire (line %d: %s)\n", f.Name, plural(f.Bad, "line"), first.Line, first.Why)
		}
		if f.Dropped > 0 {
			fmt.Fprintf(a.stderr, "hookexec: stats: %s: the audit log says %s were not written to it\n", f.Name, plural(int(f.Dropped), "decision"))
		}
	}
	if htmlOut != "" {
		var buf bytes.Buffer
		if err := stats.WriteHTML(&buf, stats.Page{Summary: a.shortSources(s), Generated: time.Now()}); err != nil {
			return a.fail(fmt.Errorf("stats: --html: %w", err))
		}
		if err := atomicfile.Write(htmlOut, buf.Bytes(), 0o644); err != nil {
			return a.fail(fmt.Errorf("stats: --html: %w", err))
		}
	}
	if a.globals.json {
		a.printJSON(s)
		return exitOK
	}
	a.statsTables(a.shortSources(s))
	if htmlOut != "" {
		fmt.Fprintf(a.stdout, "\nwrote %s\n", htmlOut)
	}
	return exitOK
}

// readStats reads one file ("-": stdin) into agg.
func (a *app) readStats(agg *stats.Aggregator, name string) error {
	var r io.Reader = a.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return usagef("stats: %s is a directory, not a log", name)
		}
		r = f
	}
	_, err := agg.ReadFile(r, name)
	return err
}

// shortSources is s with each hook's source as a user would type it (shortPath).
func (a *app) shortSources(s *stats.Summary) *stats.Summary {
	c := *s
	c.Hooks = append([]stats.HookStats(nil), s.Hooks...)
	for i := range c.Hooks {
		c.Hooks[i].Source = a.shortPath(c.Hooks[i].Source)
	}
	return &c
}

func (a *app) statsTables(s *stats.Summary) {
	if s.Fires == 0 {
		fmt.Fprintf(a.stdout, "no fires (%s read, %d left out by --event/--since)\n", plural(len(s.Files), "file"), s.Excluded)
		return
	}
	ms := stats.FormatMs
	t := newTable(a.term, "HOOK", "SOURCE", "RUNS", "TOTAL", "P50", "P90", "P99", "MAX", "TIMEOUTS", "ERRORS", "DECISIONS")
	for _, c := range []int{2, 3, 4, 5, 6, 7, 8, 9} {
		t.right[c] = true
	}
	t.shrink = 1
	for _, h := range s.Hooks {
		t.rowCells(cell{text: h.ID}, cell{text: h.Where()}, cell{text: strconv.Itoa(h.Count)},
			cell{text: ms(h.TotalMs)}, cell{text: ms(h.P50Ms)}, cell{text: ms(h.P90Ms)}, cell{text: ms(h.P99Ms)}, cell{text: ms(h.MaxMs)},
			count(h.TimedOut, yellow), count(h.Errors, red), cell{text: h.Decisions.String()})
	}
	if len(s.Hooks) == 0 {
		fmt.Fprintln(a.stdout, "no hook ran in these fires")
	} else {
		t.write(a.stdout, "")
	}
	fmt.Fprintln(a.stdout)
	e := newTable(a.term, "EVENT", "FIRES", "TOTAL", "P50", "P90", "P99", "MAX", "BLOCKED", "HOOK RUNS", "TIMEOUTS", "ERRORS")
	for c := 1; c <= 10; c++ {
		e.right[c] = true
	}
	for _, v := range s.Events {
		e.rowCells(cell{text: v.Event}, cell{text: strconv.Itoa(v.Count)},
			cell{text: ms(v.TotalMs)}, cell{text: ms(v.P50Ms)}, cell{text: ms(v.P90Ms)}, cell{text: ms(v.P99Ms)}, cell{text: ms(v.MaxMs)},
			count(v.Blocked, red), cell{text: strconv.Itoa(v.HookRuns)}, count(v.TimedOut, yellow), count(v.Errors, red))
	}
	e.write(a.stdout, "")
	if s.Excluded > 0 {
		fmt.Fprintf(a.stdout, "\n%s counted, %d left out by --event/--since\n", plural(s.Fires, "fire"), s.Excluded)
	}
}

// count is a number cell, painted when it is not zero.
func count(n int, paint string) cell {
	c := cell{text: strconv.Itoa(n)}
	if n > 0 {
		c.paint = paint
	}
	return c
}
