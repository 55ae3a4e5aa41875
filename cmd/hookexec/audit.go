package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookexec/hookexec/core/audit"
	"github.com/hookexec/hookexec/core/engine"
)

// auditFlags are the flags of `hookexec audit`.
type auditFlags struct {
	key, head                      string // verify
	session, tool, decision, event string // show filters
	last                           int
}

var auditOpts auditFlags

func init() {
	register(&verb{
		name:    "audit",
		args:    "verify [FILE] | show [FILE]",
		summary: "verify the hash chain of the audit log, or show its decisions",
		help: `The audit log is on when HOOKEXEC_AUDIT_LOG=FILE is set (or a host's "audit_log" option):
every decision is appended to FILE as one JSON line, each linked to the one before by its
hash, and the file is rotated to FILE.1, FILE.2, ... as it grows (docs/observability.md).
FILE defaults to $HOOKEXEC_AUDIT_LOG.

verify walks the chain through the rotated files and FILE, and says which line first does
not verify and why (an entry edited, removed, inserted or moved, a file missing, a line
cut mid-entry). It prints the head: the hash of the last entry. Keep it somewhere the log's
writers cannot reach and pass it later with --head: that also detects entries cut off the
end and a chain recomputed up to it, which the chain alone cannot. A keyed log (its
entries are HMACs under $HOOKEXEC_AUDIT_KEY_FILE) needs --key.

show prints the decisions, oldest first, filtered by session, tool, decision or event; it
reads the log without verifying it.

Exit status: 0 the log verifies (or was shown), 1 it does not verify or cannot be read.`,
		example: `hookexec audit verify ~/.hookexec/audit.jsonl
hookexec audit verify --head 3f1c...e09a
hookexec audit show --session 7f3a --decision deny
hookexec audit show --tool Bash --json`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&auditOpts.key, "key", auditOpts.key, "verify: the log's HMAC key `FILE` (default $HOOKEXEC_AUDIT_KEY_FILE)")
			fs.StringVar(&auditOpts.head, "head", auditOpts.head, "verify: a `HASH` printed by an earlier verify; it must still be in the chain")
			fs.StringVar(&auditOpts.session, "session", auditOpts.session, "show: only this session `ID`")
			fs.StringVar(&auditOpts.tool, "tool", auditOpts.tool, "show: only this `TOOL`")
			fs.StringVar(&auditOpts.decision, "decision", auditOpts.decision, "show: only this `DECISION` (none, allow, ask, deny)")
			fs.StringVar(&auditOpts.event, "event", auditOpts.event, "show: only this `EVENT`")
			fs.IntVar(&auditOpts.last, "last", auditOpts.last, "show: only the last `N` entries shown (0: all)")
		},
		run: runAudit,
	})
}

func runAudit(a *app, args []string) int {
	if len(args) == 0 || len(args) > 2 {
		return a.fail(usagef("audit: needs verify or show, and at most one FILE"))
	}
	sub := args[0]
	o := auditOpts
	switch {
	case sub != "verify" && sub != "show":
		return a.fail(usagef("audit: unknown subcommand %q (verify, show)", sub))
	case sub == "show" && (o.key != "" || o.head != ""):
		return a.fail(usagef("audit show: --key and --head are for verify"))
	case sub == "verify" && (o.session != "" || o.tool != "" || o.decision != "" || o.event != "" || o.last != 0):
		return a.fail(usagef("audit verify: --session, --tool, --decision, --event and --last are for show"))
	case o.last < 0:
		return a.fail(usagef("audit show: --last must not be negative"))
	}
	path := os.Getenv(engine.AuditLogEnv)
	if len(args) == 2 {
		path = args[1]
	}
	if path == "" {
		return a.fail(usagef("audit %s: no log: give FILE or set %s", sub, engine.AuditLogEnv))
	}
	path = a.auditPath(path)
	if sub == "show" {
		return a.auditShow(path)
	}
	return a.auditVerify(path)
}

// auditPath resolves a relative path as the engine does: from the project.
func (a *app) auditPath(p string) string {
	p = expandHome(p, a.globals.home)
	if !filepath.IsAbs(p) && a.globals.project != "" {
		p = filepath.Join(a.globals.project, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p
}

func (a *app) auditVerify(path string) int {
	vo := audit.VerifyOptions{Head: auditOpts.head}
	keyFile := auditOpts.key
	if keyFile == "" {
		keyFile = os.Getenv(engine.AuditKeyFileEnv)
	}
	if keyFile != "" {
		k, err := audit.ReadKey(a.auditPath(keyFile))
		if err != nil {
			return a.fail(err)
		}
		vo.Key = k
	}
	rep, err := audit.Verify(path, vo)
	if err != nil {
		return a.fail(err)
	}
	if a.globals.json {
		out := struct {
			OK bool `json:"ok"`
			*audit.Report
			Problem *auditProblem `json:"problem,omitempty"`
		}{OK: rep.OK(), Report: rep}
		if p := rep.Problem; p != nil {
			out.Problem = &auditProblem{File: p.File, Line: p.Line, Error: p.Err.Error()}
		}
		a.printJSON(out)
	} else {
		state := "verified"
		if !rep.OK() {
			state = "verified up to the problem below"
		}
		entries := fmt.Sprintf("%d entries", rep.Entries)
		if rep.Entries == 1 {
			entries = "1 entry"
		}
		fmt.Fprintf(a.stdout, "%s: %s: %s in %s (%s, %d dropped, %s cut)\n", path, state, entries,
			plural(len(rep.Files), "file"), plural(int(rep.Fires), "decision"), rep.Dropped, plural(int(rep.Torn), "torn line"))
		if rep.Entries > 0 {
			fmt.Fprintf(a.stdout, "head: entry %d %s\n", rep.Seq, rep.Head)
		}
		if rep.HeadSeq > 0 {
			fmt.Fprintf(a.stdout, "the head given is entry %d\n", rep.HeadSeq)
		}
	}
	if p := rep.Problem; p != nil {
		what := "does not verify"
		if rep.TornTail {
			what = "is torn"
		}
		fmt.Fprintf(a.stderr, "hookexec: audit verify: the log %s at %s:%d: %v\n", what, p.File, p.Line, p.Err)
		return exitFail
	}
	return exitOK
}

type auditProblem struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Error string `json:"error"`
}

func (a *app) auditShow(path string) int {
	o := auditOpts
	filtered := o.session != "" || o.tool != "" || o.decision != "" || o.event != ""
	var shown []audit.Entry
	err := audit.ReadFiles(path, func(e audit.Entry) error {
		if filtered && (e.Kind != audit.KindFire || !match(o.session, e.Session) || !match(o.tool, e.Tool) ||
			!match(o.decision, e.Decision) || !match(o.event, e.Event)) {
			return nil
		}
		shown = append(shown, e)
		if o.last > 0 && len(shown) > 2*o.last {
			shown = append(shown[:0], shown[len(shown)-o.last:]...)
		}
		return nil
	})
	if err != nil {
		return a.fail(err)
	}
	if o.last > 0 && len(shown) > o.last {
		shown = shown[len(shown)-o.last:]
	}
	if a.globals.json {
		if shown == nil {
			shown = []audit.Entry{}
		}
		a.printJSON(shown)
		return exitOK
	}
	if len(shown) == 0 {
		fmt.Fprintln(a.stderr, "hookexec: audit show: no entries match")
		return exitOK
	}
	t := newTable(a.term, "SEQ", "TIME", "SESSION", "EVENT", "TOOL", "DECISION", "HOOKS", "REASON")
	t.right[0] = true
	for _, e := range shown {
		when := e.Time.Local().Format("2006-01-02 15:04:05.000")
		switch e.Kind {
		case audit.KindFire:
			decision := e.Decision
			if e.Blocked && decision != "deny" {
				decision += " (blocked)"
			}
			var hooks []string
			for _, h := range e.Hooks {
				s := h.ID
				if h.Decision != "" && h.Decision != "none" {
					s += ":" + h.Decision
				}
				if h.TimedOut {
					s += ":timeout"
				}
				hooks = append(hooks, s)
			}
			t.row(fmt.Sprint(e.Seq), when, ellipsis(e.Session, 12), e.Event, e.Tool, decision,
				ellipsis(strings.Join(hooks, " "), 40), ellipsis(oneLine(e.Reason), 60))
		default:
			t.row(fmt.Sprint(e.Seq), when, "", "("+e.Kind+")", "", "", "", oneLine(e.Reason))
		}
	}
	t.write(a.stdout, "")
	return exitOK
}

// match: an empty filter matches everything.
func match(want, got string) bool { return want == "" || want == got }
