package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
)

// Absent is the hash recorded for a script path that names no regular file.
const Absent = "absent"

// Hasher hashes files, remembering each file's hash under its stat identity (device,
// inode, size, mtime, ctime) so a fire pays a stat, not a read, for an unchanged script.
// A file whose ctime is within racyWindow of the moment it was hashed is hashed again on
// every call (git's "racily clean" rule): timestamps are coarse, and a write landing in
// the same tick as the hash would otherwise leave the stat identity unchanged. ctime
// cannot be set back by a user, so touching mtime back does not hide an edit. Safe for
// concurrent use.
type Hasher struct {
	mu     sync.Mutex
	cache  map[string]cached
	hashed int64 // files read and hashed, for Count
}

type cached struct {
	id  statID
	sum string
}

const racyWindow = 2 * time.Second

// Hash returns "sha256:<hex>" of the file at path (following symlinks), Absent when no
// regular file is there, or an error when the file exists but cannot be read.
func (h *Hasher) Hash(path string) (string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR) {
		return Absent, nil
	}
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return Absent, nil
	}
	id, ok := identity(fi)
	if ok {
		h.mu.Lock()
		c, hit := h.cache[path]
		h.mu.Unlock()
		if hit && c.id == id {
			return c.sum, nil
		}
	}
	sum, err := hashFile(path)
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	h.hashed++
	if ok && time.Since(id.ctime()) > racyWindow {
		if h.cache == nil {
			h.cache = map[string]cached{}
		}
		h.cache[path] = cached{id: id, sum: sum}
	}
	h.mu.Unlock()
	return sum, nil
}

// HashAll hashes paths, keyed by path relative to project. The first error wins.
func (h *Hasher) HashAll(paths []string, project string) (map[string]string, error) {
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		sum, err := h.Hash(p)
		if err != nil {
			return nil, err
		}
		out[Rel(p, project)] = sum
	}
	return out, nil
}

// Count returns how many files were read and hashed so far.
func (h *Hasher) Count() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hashed
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	d := sha256.New()
	if _, err := io.Copy(d, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(d.Sum(nil)), nil
}
