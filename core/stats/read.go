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
	// Bad counts the lines that were not blank and not a fire of the file's kind.
	Bad        int       `json:"bad"`
	BadSamples []BadLine `json:"bad_samples,omitempty"` // the first few
}

// BadLine is one line that could not be read, numbered from 1.
type BadLine struct {
	Line int    `json:"line"`
	Why  string `json:"why"`
}

// format is one kind of log: how to recognise its lines and read them.
type format struct {
	kind Kind
	// read reads a line, already known to be a JSON object; errOtherKind when the line is
	// not of this kind, another error when it is but cannot be read.
	read func(line []byte) (Fire, error)
}

var errOtherKind = errors.New("stats: not a line of this kind")

// formats are tried in order on a file's first JSON line.
var formats = []format{debugFormat}

// Read reads one log from r as a stream and calls add for every fire in it, in file
// order. name is the file's name in the report. The error is an I/O error only: bad lines
// are counted in the report.
func Read(r io.Reader, name string, add func(Fire)) (FileReport, error) {
	rep := FileReport{Name: name}
	var f *format
	lr := lineReader{br: bufio.NewReaderSize(r, 64<<10)}
	for {
		line, tooLong, err := lr.next()
		if err != nil && !errors.Is(err, io.EOF) {
			return rep, fmt.Errorf("stats: %s: %w", name, err)
		}
		if line != nil || tooLong {
			rep.Lines++
			if why := readLine(&f, line, tooLong, add); why != "" {
				rep.bad(why)
			} else if len(bytes.TrimSpace(line)) > 0 {
				rep.Fires++
			}
		}
		if err != nil {
			break
		}
	}
	if f != nil {
		rep.Kind = f.kind
	}
	return rep, nil
}

// readLine reads one line, finding the file's format on its first object; it returns why
// the line is bad, or "".
func readLine(f **format, line []byte, tooLong bool, add func(Fire)) string {
	if tooLong {
		return fmt.Sprintf("longer than %d bytes", MaxLine)
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return ""
	}
	if line[0] != '{' || !json.Valid(line) {
		return "not a JSON object"
	}
	if *f == nil {
		for i := range formats {
			fire, err := formats[i].read(line)
			if errors.Is(err, errOtherKind) {
				continue
			}
			*f = &formats[i]
			return added(fire, err, add)
		}
		return "not a line of a log stats reads"
	}
	fire, err := (*f).read(line)
	if errors.Is(err, errOtherKind) {
		return fmt.Sprintf("not a line of a %s log", (*f).kind)
	}
	return added(fire, err, add)
}

func added(fire Fire, err error, add func(Fire)) string {
	if err != nil {
		return err.Error()
	}
	add(fire)
	return ""
}

func (rep *FileReport) bad(why string) {
	rep.Bad++
	if len(rep.BadSamples) < maxBadSamples {
		rep.BadSamples = append(rep.BadSamples, BadLine{Line: rep.Lines, Why: why})
	}
}

// lineReader returns a reader's lines one at a time without holding more than MaxLine
// bytes of one.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
}

// next returns the next line without its newline (nil at the end), or tooLong for a line
// over MaxLine, whose bytes are skipped. err is io.EOF after the last line.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
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
