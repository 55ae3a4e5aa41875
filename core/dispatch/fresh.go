package dispatch

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"
)

// Whether an engine's files changed since it loaded them is asked before every call, so it
// must cost little: a stat of each file, compared with what the last check saw. Equal stats
// are trusted only once they have settled (the racy-git rule): a file whose change time was
// within settleTime of that check may be written again with the same size and timestamps
// (a timestamp's granularity is a few ms, a second or two on some file systems), so until
// then every check reads and hashes the contents, as it did before there was a shortcut.
// Any change a later write makes moves the change time (ctime, which no program sets),
// so a settled file whose stat is unchanged has not been written since.
const settleTime = 2 * time.Second

// fileStat is what a stat says about one file; the zero value means "absent".
type fileStat struct {
	exists         bool
	dev, ino       uint64
	size           int64
	mode           fs.FileMode
	mtime, ctime   int64 // nanoseconds
	hasCtime       bool  // the platform reports a change time (without one nothing settles)
	statErrorOther bool  // the stat failed for another reason than absence
}

func statOf(path string) fileStat {
	st, err := os.Stat(path)
	if err != nil {
		return fileStat{statErrorOther: !os.IsNotExist(err)}
	}
	s := fileStat{exists: true, size: st.Size(), mode: st.Mode(), mtime: st.ModTime().UnixNano()}
	sysStat(st, &s)
	return s
}

// freshness remembers the stats and the content hash of an engine's files.
type freshness struct {
	paths   []string
	stats   []fileStat
	stamp   string // the content hash that goes with stats
	settled bool   // every stat had settled when it was taken
}

// check reports whether the files' contents differ from the last check (the first check
// reports a change), reading them only when a stat differs or has not settled.
func (f *freshness) check() bool {
	now := time.Now()
	stats := make([]fileStat, len(f.paths))
	for i, p := range f.paths {
		stats[i] = statOf(p)
	}
	if f.settled && slices.Equal(stats, f.stats) {
		return false
	}
	stamp := stampOf(f.paths)
	changed := stamp != f.stamp
	f.stats, f.stamp, f.settled = stats, stamp, settledAt(stats, now)
	return changed
}

// settledAt: every stat is of an absent file or one last changed before now-settleTime.
func settledAt(stats []fileStat, now time.Time) bool {
	limit := now.Add(-settleTime).UnixNano()
	for _, s := range stats {
		if s.statErrorOther || s.exists && (!s.hasCtime || s.ctime >= limit || s.mtime >= limit) {
			return false
		}
	}
	return true
}

// stampOf is a hash of the files' content: any change reloads the engine, even one
// within the file system's timestamp granularity that keeps the size.
func stampOf(paths []string) string {
	h := sha256.New()
	for _, p := range paths {
		b, err := readFile(p)
		if err != nil {
			// A directory's listing (native.Agent.Dirs: a file moved in is a new source).
			if entries, derr := os.ReadDir(p); derr == nil {
				fmt.Fprintf(h, "d%d\x00", len(entries))
				for _, e := range entries {
					fmt.Fprintf(h, "%s\x00%d\x00", e.Name(), e.Type())
				}
				continue
			}
			fmt.Fprintf(h, "-%d\x00", len(p))
			continue
		}
		fmt.Fprintf(h, "%d\x00", len(b))
		h.Write(b)
	}
	return string(h.Sum(nil))
}

// readFile is os.ReadFile; tests count the reads through it.
var readFile = os.ReadFile
