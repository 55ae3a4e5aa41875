package audit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookexec/hookexec/core/observe"
)

// The writer: Observe, on the firing goroutine, only offers the fire to a bounded queue
// (a non-blocking channel send) and counts it as dropped when the queue is full; one
// goroutine per Log takes fires off the queue in batches and appends them. A fire
// therefore never waits on the disk, on the lock, or on another process. Decisions
// dropped (queue full, or a failed write) are recorded by a gap entry in the chain before
// the next entries written.
//
// Several processes (and several engines of one process) may append to one log: each
// batch is appended under an exclusive lock on PATH.lock, after reading where the chain
// stands from the file itself, in one write. A write that fails is cut back off, so the
// file holds whole entries only, unless the machine stops mid-write; the next writer then
// finds a partial last line, cuts it and records that with a torn entry.

// Defaults of Options.
const (
	DefaultMaxBytes = 64 << 20 // rotate past 64 MiB
	DefaultQueue    = 1024     // fires waiting to be written
	maxBatch        = 256      // fires appended under one lock
)

// Options configure a Log.
type Options struct {
	Path string // the log file; rotated files are Path.1, Path.2, ...
	// Key, when not nil, makes each entry's hash an HMAC-SHA-256 under it; nil means
	// plain SHA-256.
	Key []byte
	// MaxBytes rotates the file before it would grow past it; 0 means DefaultMaxBytes,
	// negative never rotates.
	MaxBytes int64
	Queue    int // fires waiting to be written; 0 means DefaultQueue
}

// Stats counts what a Log did.
type Stats struct {
	Written uint64 // fires appended
	Dropped uint64 // fires not appended (queue full, a failed write, after Close)
	Err     string // the last write error, "" when none
}

// Log is an observe.Sink appending every fire to the audit log.
type Log struct {
	path, lockPath string
	key            []byte
	maxBytes       int64
	pid            int

	q      chan *observe.Fire
	quit   chan struct{}
	done   chan struct{}
	closed atomic.Bool

	pending atomic.Uint64 // dropped, not yet recorded by a gap entry
	written atomic.Uint64
	dropped atomic.Uint64
	mu      sync.Mutex // guards lastErr
	lastErr error

	// the writer goroutine's own
	lk    *os.File // Path.lock
	f     *os.File // Path, as last opened
	cache head     // where the chain stood after our last write to f ...
	size  int64    // ... when f was this long; -1: unknown
}

// Open opens (creating if needed) the log and its lock file and starts the writer. The
// directory must exist.
func Open(o Options) (*Log, error) {
	if o.Path == "" {
		return nil, errors.New("audit: no log file")
	}
	path, err := filepath.Abs(o.Path)
	if err != nil {
		return nil, fmt.Errorf("audit: %v", err)
	}
	l := &Log{path: path, lockPath: path + ".lock", key: o.Key, maxBytes: o.MaxBytes, pid: os.Getpid(), size: -1}
	if l.maxBytes == 0 {
		l.maxBytes = DefaultMaxBytes
	}
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	if l.lk, err = os.OpenFile(l.lockPath, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return nil, fmt.Errorf("audit: %v", err)
	}
	if l.f, err = openFile(path); err != nil {
		l.lk.Close()
		return nil, fmt.Errorf("audit: %v", err)
	}
	l.q = make(chan *observe.Fire, o.Queue)
	l.quit, l.done = make(chan struct{}), make(chan struct{})
	go l.run()
	return l, nil
}

func openFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
}

// Path is the log file.
func (l *Log) Path() string { return l.path }

// Observe queues the fire, or counts it dropped when the queue is full. It never blocks.
func (l *Log) Observe(f *observe.Fire) {
	if !l.closed.Load() {
		select {
		case l.q <- f:
			return
		default:
		}
	}
	l.pending.Add(1)
	l.dropped.Add(1)
}

// MaxCloseWait bounds how long Close waits for the queue to be written, whatever the
// deadline: a hook call dispatched in-process closes its engine before its process exits,
// and the agent waits for that exit.
const MaxCloseWait = time.Second

// Close writes what is queued and stops the writer, waiting at most until the deadline or
// MaxCloseWait. A writer still stuck then goes on in the background while the process lives.
func (l *Log) Close(deadline time.Time) error {
	if l.closed.Swap(true) {
		return nil
	}
	close(l.quit)
	t := time.NewTimer(min(time.Until(deadline), MaxCloseWait))
	defer t.Stop()
	select {
	case <-l.done:
	case <-t.C:
		return fmt.Errorf("audit: %s: the writer did not finish in time; %d fires still queued", l.path, len(l.q))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lastErr != nil {
		return fmt.Errorf("audit: %s: %v", l.path, l.lastErr)
	}
	return nil
}

// Stats says what was written and dropped so far.
func (l *Log) Stats() Stats {
	s := Stats{Written: l.written.Load(), Dropped: l.dropped.Load()}
	l.mu.Lock()
	if l.lastErr != nil {
		s.Err = l.lastErr.Error()
	}
	l.mu.Unlock()
	return s
}

func (l *Log) run() {
	defer close(l.done)
	defer func() {
		l.f.Close()
		l.lk.Close()
	}()
	batch := make([]*observe.Fire, 0, maxBatch)
	for {
		select {
		case f := <-l.q:
			batch = l.drain(append(batch[:0], f))
			l.write(batch)
		case <-l.quit:
			for {
				batch = l.drain(batch[:0])
				if len(batch) == 0 {
					break
				}
				l.write(batch)
			}
			l.write(nil) // a gap for the last drops
			return
		}
	}
}

// drain adds to batch what is queued, up to maxBatch.
func (l *Log) drain(batch []*observe.Fire) []*observe.Fire {
	for len(batch) < maxBatch {
		select {
		case f := <-l.q:
			batch = append(batch, f)
		default:
			return batch
		}
	}
	return batch
}

// write appends the batch, preceded by a gap entry when fires were dropped since the last
// write. A failed write counts the batch as dropped, to be recorded by the next gap.
func (l *Log) write(batch []*observe.Fire) {
	lost := l.pending.Swap(0)
	if len(batch) == 0 && lost == 0 {
		return
	}
	err := l.append(batch, lost)
	l.mu.Lock()
	l.lastErr = err
	l.mu.Unlock()
	if err != nil {
		l.pending.Add(lost + uint64(len(batch)))
		l.dropped.Add(uint64(len(batch)))
		return
	}
	l.written.Add(uint64(len(batch)))
}

// append writes the entries under the lock, linked to where the chain stands in the file.
func (l *Log) append(batch []*observe.Fire, lost uint64) error {
	if err := lock(l.lk); err != nil {
		return fmt.Errorf("locking %s: %v", l.lockPath, err)
	}
	defer unlock(l.lk)
	if err := l.current(); err != nil {
		return err
	}
	st, err := l.f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	h, torn, err := l.head(size)
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	var entries []Entry
	if torn > 0 {
		if err := l.f.Truncate(size - torn); err != nil {
			return fmt.Errorf("cutting a torn last line: %v", err)
		}
		size -= torn
		entries = append(entries, Entry{Kind: KindTorn, Time: now, TornBytes: torn,
			Reason: "the file ended in a partial line (a writer stopped mid-write); it was cut"})
	}
	if lost > 0 {
		entries = append(entries, Entry{Kind: KindGap, Time: now, Dropped: lost,
			Reason: strconv.FormatUint(lost, 10) + " decisions were not written (the queue was full or a write failed)"})
	}
	for _, f := range batch {
		entries = append(entries, entryOf(f))
	}
	var buf []byte
	for i := range entries {
		e := &entries[i]
		e.V, e.PID, e.Seq, e.Prev = Version, l.pid, h.seq+1, h.hash
		e.Alg = AlgSHA256
		if l.key != nil {
			e.Alg = AlgHMACSHA256
		}
		line, err := seal(e, l.key)
		if err != nil {
			return err
		}
		buf = append(buf, line...)
		h = head{seq: e.Seq, hash: e.Hash}
	}
	if l.maxBytes > 0 && size > 0 && size+int64(len(buf)) > l.maxBytes {
		if err := l.rotate(); err != nil {
			return err
		}
		size = 0
	}
	if n, err := l.f.Write(buf); err != nil || n != len(buf) {
		l.size = -1
		if terr := l.f.Truncate(size); terr != nil {
			return fmt.Errorf("writing: %v; and cutting the partial write back: %v", err, terr)
		}
		if err == nil {
			err = errors.New("short write")
		}
		return fmt.Errorf("writing: %v", err)
	}
	l.cache, l.size = h, size+int64(len(buf))
	return nil
}

// current reopens Path when another writer rotated it (or it was removed) since we opened it.
func (l *Log) current() error {
	ps, err := os.Stat(l.path)
	if err == nil {
		fs, ferr := l.f.Stat()
		if ferr == nil && os.SameFile(ps, fs) {
			return nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := openFile(l.path)
	if err != nil {
		return err
	}
	l.f.Close()
	l.f, l.size = f, -1
	return nil
}

// head is where the chain stands in Path (size bytes long): from our last write when no
// one wrote since, else read from its last line, or from the newest rotated file when
// Path is empty. torn is the length of a partial last line.
func (l *Log) head(size int64) (h head, torn int64, err error) {
	if size == l.size {
		return l.cache, 0, nil
	}
	line, torn, err := tail(l.f, size)
	if err != nil {
		return head{}, 0, err
	}
	if line == nil {
		h, err = lastRotated(l.path)
		return h, torn, err
	}
	h, err = headOf(line)
	return h, torn, err
}

// rotate renames Path to the next Path.N and starts a new Path.
func (l *Log) rotate() error {
	nums, err := rotated(l.path)
	if err != nil {
		return err
	}
	n := 1
	if len(nums) > 0 {
		n = nums[len(nums)-1] + 1
	}
	if err := os.Rename(l.path, l.path+"."+strconv.Itoa(n)); err != nil {
		return fmt.Errorf("rotating: %v", err)
	}
	f, err := openFile(l.path)
	if err != nil {
		return fmt.Errorf("rotating: %v", err)
	}
	l.f.Close()
	l.f, l.size = f, -1
	return nil
}

// entryOf is the entry of a fire, without its chain fields.
func entryOf(f *observe.Fire) Entry {
	e := Entry{Kind: KindFire, Time: f.Start.UTC(), Profile: f.Profile, Session: f.SessionID,
		Event: f.Event, FiredAs: f.FiredAs, Subject: f.Subject, SubjectField: f.SubjectField,
		Matched: f.Matched, Decision: f.Decision, Blocked: f.Blocked, Reason: f.Reason,
		DurationMs: ms(f.Duration), InputSHA256: sha(f.Payload), UpdatedInputSHA256: sha(f.UpdatedInput)}
	if f.SubjectField == "tool_name" {
		e.Tool = f.Subject
	}
	if len(f.Hooks) > 0 {
		e.Hooks = make([]Hook, len(f.Hooks))
		for i, h := range f.Hooks {
			e.Hooks[i] = Hook{ID: h.ID, Source: h.Source, Line: h.Line, Type: h.Type, Ran: h.Ran,
				Async: h.Async, Decision: h.Decision, ExitCode: h.ExitCode, TimedOut: h.TimedOut,
				DurationMs: ms(h.Duration), Error: h.Error}
		}
	}
	return e
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// MinKey is the shortest HMAC key ReadKey accepts.
const MinKey = 16

// ReadKey reads an HMAC key from a file: its contents without surrounding white space, at
// least MinKey bytes.
func ReadKey(path string) ([]byte, error) {
	k, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("audit key: %v", err)
	}
	if k = bytes.TrimSpace(k); len(k) < MinKey {
		return nil, fmt.Errorf("audit key %s: shorter than %d bytes", path, MinKey)
	}
	return k, nil
}
