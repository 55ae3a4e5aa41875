package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxLine bounds one entry's line when reading (a reason is at most what a hook printed).
const maxLine = 64 << 20

// Read calls fn with each entry of one file of the log, in order, until fn returns an
// error (returned as is). It checks nothing of the chain (Verify does); it reads fields it
// does not know past, so a reader built now reads later versions. A partial last line (a
// writer stopped mid-write) is skipped; any other line that is not an entry is an error
// naming its line number.
// ErrNoLog is returned when a log has no file at all; it wraps os.ErrNotExist, so a
// caller for whom a missing log means "nothing was logged" can tell it apart.
var ErrNoLog = fmt.Errorf("no such log (%w)", os.ErrNotExist)

func Read(r io.Reader, fn func(Entry) error) error {
	return lines(r, func(n int, line []byte, complete bool) error {
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			if !complete {
				return nil
			}
			return &LineError{Line: n, Err: fmt.Errorf("not an entry: %v", err)}
		}
		return fn(e)
	})
}

// ReadFiles is Read over every file of the log at path (Files), oldest first.
func ReadFiles(path string, fn func(Entry) error) error {
	files, err := Files(path)
	if err != nil {
		return fmt.Errorf("audit: %v", err)
	}
	if len(files) == 0 {
		return fmt.Errorf("audit: %s: %w", path, ErrNoLog)
	}
	for _, name := range files {
		if err := readFile(name, fn); err != nil {
			return err
		}
	}
	return nil
}

func readFile(name string, fn func(Entry) error) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("audit: %v", err)
	}
	defer f.Close()
	err = Read(f, fn)
	if le, ok := err.(*LineError); ok && le.File == "" {
		le.File = name
	}
	return err
}

// LineError is a line of the log that cannot be read or does not verify.
type LineError struct {
	File string // "" when reading a stream (Read)
	Line int    // from 1
	Err  error
}

func (e *LineError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("audit: line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("audit: %s:%d: %v", e.File, e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// lines calls fn with each line of r, numbered from 1, without its newline; complete is
// false for a last line with no newline.
func lines(r io.Reader, fn func(n int, line []byte, complete bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > maxLine {
				return &LineError{Line: n, Err: fmt.Errorf("longer than %d bytes", maxLine)}
			}
			line = long
		}
		if err == io.EOF {
			if len(line) == 0 {
				return nil
			}
			return fn(n, line, false)
		}
		if err != nil {
			return &LineError{Line: n, Err: err}
		}
		if ferr := fn(n, line[:len(line)-1], true); ferr != nil {
			return ferr
		}
	}
}
