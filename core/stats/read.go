package stats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Kind is the kind of log a file is.
type Kind string

const (
	// KindDebug is the debug log (Options.LogFile, HOOKEXEC_LOG): one JSON line per fire.
	KindDebug Kind = "debug"
	// KindAudit is the audit log (core/audit: Options.AuditLog, HOOKEXEC_AUDIT_LOG), read
	// with core/audit's reader.
	KindAudit Kind = "audit"
)

// MaxLine is the longest line read; a longer one is a bad line, skipped without being
// held in memory. The debug log's lines hold each hook's rendered command, so they can be
// long, but not this long.
const MaxLine = 16 << 20

// maxBadSamples is how many bad lines a FileReport names.
const maxBadSamples = 10

// FileReport says what was read of one file.
type FileReport struct {
	Name  string `json:"name"`
	Kind  Kind   `json:"kind"` // "" when no line was recognised
	Lines int    `json:"lines"`
	Fires int    `json:"fires"`
	// Other counts the lines of the log that are not fires: an audit log's gap and torn
	// entries.
	Other int `json:"other"`
	// Dropped is how many decisions an audit log's gap entries say were never written.
	Dropped uint64 `json:"dropped"`
	// Bad counts the lines that were not blank and not a line of the file's kind.
	Bad        int       `json:"bad"`
	BadSamples []BadLine `json:"bad_samples,omitempty"` // the first few
}

// BadLine is one line that could not be read, numbered from 1.
type BadLine struct {
	Line int    `json:"line"`
	Why  string `json:"why"`
}

// Read reads one log from r as a stream and calls add for every fire in it, in file
// order. name is the file's name in the report. The file's kind is that of its first line
// that is a line of a kind stats reads; from there on, every line of another kind is a bad
// line. The error is an I/O error only: bad lines are counted in the report.
func Read(r io.Reader, name string, add func(Fire)) (FileReport, error) {
	rep := FileReport{Name: name}
	lr := &lineReader{br: bufio.NewReaderSize(r, 64<<10), rep: &rep}
	for {
		line, n, err := lr.next()
		if line == nil {
			return rep, ioError(name, err)
		}
		switch {
		case rep.Kind == "" && isAuditLine(line):
			rep.Kind = KindAudit
			lr.unread(line, n)
			return rep, ioError(name, readAudit(lr, &rep, add))
		case rep.Kind == "" || rep.Kind == KindDebug:
			fire, rerr := readDebugLine(line)
			switch {
			case errors.Is(rerr, errNotJSON):
				rep.bad(n, "not a JSON object")
			case errors.Is(rerr, errOtherKind) && rep.Kind == "":
				rep.bad(n, "not a line of a log stats reads")
			case errors.Is(rerr, errOtherKind):
				rep.bad(n, "not a line of a debug log")
			case rerr != nil:
				rep.Kind = KindDebug
				rep.bad(n, rerr.Error())
			default:
				rep.Kind = KindDebug
				rep.Fires++
				add(fire)
			}
			// From here json.Unmarshal's own check is enough: no second pass per line.
			lr.skipValid = rep.Kind == KindDebug
		}
		if err != nil {
			return rep, ioError(name, err)
		}
	}
}

func ioError(name string, err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	return fmt.Errorf("stats: %s: %w", name, err)
}

var (
	// errOtherKind: the line is not of the kind its reader reads.
	errOtherKind = errors.New("stats: not a line of this kind")
	// errNotJSON: the line is not JSON.
	errNotJSON = errors.New("stats: not JSON")
)

func (rep *FileReport) bad(line int, why string) {
	rep.Bad++
	if len(rep.BadSamples) < maxBadSamples {
		rep.BadSamples = append(rep.BadSamples, BadLine{Line: line, Why: why})
	}
}

// lineReader returns a reader's non-blank lines one at a time, trimmed, without holding
// more than MaxLine bytes of one. It counts every line in the report, and reports lines
// over MaxLine and lines that are not a JSON object as bad itself.
type lineReader struct {
	br     *bufio.Reader
	rep    *FileReport
	buf    []byte
	queued []queuedLine // lines given back by unread, to return first
	// skipValid leaves the JSON check to the line's reader (the debug log's Unmarshal).
	skipValid bool
}

type queuedLine struct {
	line []byte
	n    int
}

// next returns the next line that is a JSON object, trimmed, and its number; line is nil
// at the end. err is io.EOF or the read error that ended the stream (with or without a
// last line).
func (lr *lineReader) next() (line []byte, n int, err error) {
	if len(lr.queued) > 0 {
		q := lr.queued[0]
		lr.queued = lr.queued[1:]
		return q.line, q.n, nil
	}
	for {
		raw, tooLong, err := lr.raw()
		if raw == nil && !tooLong {
			return nil, 0, err
		}
		lr.rep.Lines++
		n := lr.rep.Lines
		raw = bytes.TrimSpace(raw)
		switch {
		case tooLong:
			lr.rep.bad(n, fmt.Sprintf("longer than %d bytes", MaxLine))
		case len(raw) == 0:
		case raw[0] != '{' || !lr.skipValid && !json.Valid(raw):
			lr.rep.bad(n, "not a JSON object")
		default:
			return raw, n, err
		}
		if err != nil {
			return nil, 0, err
		}
	}
}

// unread puts lines back, to be returned by next before any other, in the order given.
func (lr *lineReader) unread(line []byte, n int) {
	lr.queued = append([]queuedLine{{append([]byte(nil), line...), n}}, lr.queued...)
}

// raw returns the next line without its newline (nil at the end), or tooLong for a line
// over MaxLine, whose bytes are skipped. err is io.EOF after the last line.
func (lr *lineReader) raw() (line []byte, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	started := false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if len(chunk) > 0 {
			started = true
		}
		if !tooLong {
			if len(lr.buf)+len(chunk) > MaxLine+1 {
				tooLong, lr.buf = true, lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && !started:
			return nil, false, err
		case tooLong:
			return nil, true, err
		default:
			return bytes.TrimSuffix(lr.buf, []byte("\n")), false, err
		}
	}
}
