package stats

import (
	"bytes"
	"errors"
	"io"

	"github.com/hookexec/hookexec/core/audit"
)

// The audit log is read with core/audit's reader (audit.Read), which knows its format. That
// reader stops at the first line it cannot read; stats goes on: it feeds audit.Read the
// log a line at a time, remembers which lines it handed over and which the reader has
// answered (an entry or an error each, in order), and after an error starts a new
// audit.Read on the lines after the bad one, the ones the reader had buffered included.

// isAuditLine: the line is an audit entry (it has a format version and a hash).
func isAuditLine(line []byte) bool {
	ok := false
	_ = audit.Read(bytes.NewReader(line), func(e audit.Entry) error {
		ok = isEntry(&e)
		return nil
	})
	return ok
}

// isEntry: what audit.Read decoded is an entry, not some other JSON object.
func isEntry(e *audit.Entry) bool { return e.V >= 1 && e.Kind != "" && e.Hash != "" }

// readAudit reads the rest of the file, its first entry included (lr.unread).
func readAudit(lr *lineReader, rep *FileReport, add func(Fire)) error {
	feed := &auditFeed{lr: lr}
	for {
		err := audit.Read(feed, func(e audit.Entry) error {
			n := feed.answered()
			switch {
			case !isEntry(&e):
				rep.bad(n, "not an audit entry")
			case e.Kind == audit.KindFire:
				fire, err := auditFire(&e)
				if err != nil {
					rep.bad(n, err.Error())
					return nil
				}
				rep.Fires++
				add(fire)
			default:
				rep.Other++
				rep.Dropped += e.Dropped
			}
			return nil
		})
		if feed.err != nil {
			return feed.err
		}
		var le *audit.LineError
		if !errors.As(err, &le) {
			return err // nil at the end
		}
		rep.bad(feed.answered(), le.Err.Error())
		feed.restart()
	}
}

// auditFeed is the io.Reader audit.Read reads: lr's lines, each ending in a newline (so
// that a line cut mid-write is an error, as in the debug log, not skipped).
type auditFeed struct {
	lr      *lineReader
	handed  []queuedLine // handed to the current audit.Read and not yet answered, in order
	partial []byte       // the rest of the line being handed over
	err     error        // the read error that ended lr, not io.EOF
}

func (f *auditFeed) Read(p []byte) (int, error) {
	for len(f.partial) == 0 {
		line, n, err := f.lr.next()
		if err != nil && !errors.Is(err, io.EOF) {
			f.err = err
		}
		if line == nil {
			if f.err != nil {
				return 0, f.err
			}
			return 0, io.EOF
		}
		line = append(append([]byte(nil), line...), '\n')
		f.handed = append(f.handed, queuedLine{line, n})
		f.partial = line
	}
	c := copy(p, f.partial)
	f.partial = f.partial[c:]
	return c, nil
}

// answered takes the oldest line handed over and not answered, and returns its number.
func (f *auditFeed) answered() int {
	if len(f.handed) == 0 {
		return 0
	}
	n := f.handed[0].n
	f.handed = f.handed[1:]
	return n
}

// restart gives back the lines the last audit.Read took but did not answer, to be read
// again by the next.
func (f *auditFeed) restart() {
	for i := len(f.handed) - 1; i >= 0; i-- {
		f.lr.unread(bytes.TrimSuffix(f.handed[i].line, []byte("\n")), f.handed[i].n)
	}
	f.handed, f.partial = nil, nil
}

// auditFire is an audit fire entry as a Fire.
func auditFire(e *audit.Entry) (Fire, error) {
	f := Fire{Time: e.Time, Event: e.Event, DurationMs: e.DurationMs, Blocked: e.Blocked, Decision: e.Decision}
	for _, h := range e.Hooks {
		if h.Ran {
			f.Hooks = append(f.Hooks, hookRun(h.ID, h.Source, h.Line, h.DurationMs, h.Decision, h.TimedOut, h.Error))
		}
	}
	return f, f.check()
}
