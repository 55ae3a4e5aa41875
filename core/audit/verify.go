package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// VerifyOptions say what Verify knows beyond the files.
type VerifyOptions struct {
	// Key is the log's HMAC key. With it every entry must be keyed and is checked under it;
	// without it a keyed entry is a failure (its hash cannot be checked).
	Key []byte
	// Head is the hash of an entry recorded earlier, away from the log (e.g. printed by
	// `hookexec audit verify` yesterday). It must be in the chain: this detects the tail
	// cut off, and the chain rewritten up to it. "" checks nothing of the kind.
	Head string
}

// Report is what Verify found.
type Report struct {
	Files   []string `json:"files"`
	Entries uint64   `json:"entries"` // entries that verify, in all files
	Fires   uint64   `json:"fires"`
	Dropped uint64   `json:"dropped"` // decisions recorded as lost by gap entries
	Torn    uint64   `json:"torn"`    // partial lines cut by writers (torn entries)
	Seq     uint64   `json:"seq"`     // the last verified entry's
	Head    string   `json:"head"`    // the last verified entry's hash: record it to check later
	// HeadSeq is the seq of the entry VerifyOptions.Head names; 0 when not given or not found.
	HeadSeq uint64 `json:"head_seq,omitempty"`
	// Problem is the first line that does not verify; nil when the whole log does.
	Problem *LineError `json:"-"`
	// TornTail: the Problem is a partial last line of the newest file (a writer stopped
	// mid-write, or the file was cut mid-entry); everything before it verified.
	TornTail bool `json:"torn_tail,omitempty"`
}

// OK reports whether the whole log verified.
func (r *Report) OK() bool { return r.Problem == nil }

// Verify checks the chain of the log at path across its files (Files). It stops at the
// first line that does not verify: after it nothing can be trusted. The error is for files
// that cannot be read; a log that does not verify is Report.Problem.
func Verify(path string, o VerifyOptions) (*Report, error) {
	files, err := Files(path)
	if err != nil {
		return nil, fmt.Errorf("audit: %v", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("audit: %s: %w", path, ErrNoLog)
	}
	rep := &Report{Files: files, Head: Genesis}
	if o.Head != "" && !isHex64(o.Head) {
		return nil, fmt.Errorf("audit: the head %q is not 64 lowercase hex digits", o.Head)
	}
	last := 0 // the line number of the last line read, in the last file
	for i, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("audit: %v", err)
		}
		newest := i == len(files)-1
		err = lines(f, func(n int, line []byte, complete bool) error {
			last = n
			if !complete {
				if !newest {
					return &LineError{Line: n, Err: errors.New("a partial line (no newline) ends this rotated file")}
				}
				rep.TornTail = true
				return &LineError{Line: n, Err: fmt.Errorf("torn: the last line is partial (%d bytes, no newline): a writer stopped mid-write or the file was cut; the %d entries before it verify", len(line), rep.Entries)}
			}
			if err := rep.check(line, o); err != nil {
				return &LineError{Line: n, Err: err}
			}
			return nil
		})
		f.Close()
		if err != nil {
			le, ok := err.(*LineError)
			if !ok {
				return nil, fmt.Errorf("audit: %s: %v", name, err)
			}
			le.File = name
			rep.Problem = le
			return rep, nil
		}
	}
	if o.Head != "" && rep.HeadSeq == 0 {
		rep.Problem = &LineError{File: files[len(files)-1], Line: last,
			Err: fmt.Errorf("the head %s is not in the chain: entries were cut off its end, or the chain was rewritten", o.Head)}
	}
	return rep, nil
}

// check verifies one complete line against where the chain stands, and moves it on.
func (rep *Report) check(line []byte, o VerifyOptions) error {
	b, claimed, err := split(line)
	if err != nil {
		return err
	}
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return fmt.Errorf("not an entry: %v", err)
	}
	switch {
	case e.Hash != claimed:
		return errors.New("the line holds more than one hash")
	case e.V != Version:
		return fmt.Errorf("format version %d, not %d", e.V, Version)
	case o.Key == nil && e.Alg == AlgHMACSHA256:
		return errors.New("the entry is keyed (hmac-sha256): give the log's key to verify it")
	case o.Key != nil && e.Alg != AlgHMACSHA256:
		return fmt.Errorf("the entry's alg is %q where the log is keyed: it was not written with the key", e.Alg)
	case e.Alg != AlgSHA256 && e.Alg != AlgHMACSHA256:
		return fmt.Errorf("unknown alg %q", e.Alg)
	}
	if got := digest(b, o.Key); got != claimed {
		if o.Key != nil {
			return errors.New("the hash does not match the entry under the key: the entry was changed after it was written, or the key is wrong")
		}
		return errors.New("the hash does not match the entry: it was changed after it was written")
	}
	if rep.Entries == 0 && (e.Seq != 1 || e.Prev != Genesis) {
		return fmt.Errorf("the chain starts at entry %d, not 1: the entries before it (or the oldest rotated files) are missing", e.Seq)
	}
	if e.Prev != rep.Head {
		return fmt.Errorf("entry %d does not link to the line before it (entry %d): an entry was removed, inserted or moved here", e.Seq, rep.Seq)
	}
	if e.Seq != rep.Seq+1 {
		return fmt.Errorf("entry %d follows entry %d", e.Seq, rep.Seq)
	}
	switch e.Kind {
	case KindFire:
		rep.Fires++
	case KindGap:
		rep.Dropped += e.Dropped
	case KindTorn:
		rep.Torn++
	default:
		return fmt.Errorf("unknown kind %q", e.Kind)
	}
	rep.Entries++
	rep.Seq, rep.Head = e.Seq, e.Hash
	if o.Head != "" && e.Hash == o.Head {
		rep.HeadSeq = e.Seq
	}
	return nil
}
