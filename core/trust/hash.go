package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"
)

// Absent is the hash recorded for a pinned path where nothing is; Directory for a pinned
// file path where a directory is.
const (
	Absent    = "absent"
	Directory = "directory"
)

// MaxTreeEntries bounds a pinned tree: an approval that would pin more entries than this
// is refused (hashing a tree costs a stat per entry on every fire). A variable for tests.
var MaxTreeEntries = 20000

// ErrTreeTooLarge is returned by HashTree for a tree of more than MaxTreeEntries entries.
var ErrTreeTooLarge = errors.New("too many files to pin")

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

// Hash returns "sha256:<hex>" of the file at path (following symlinks), Absent when
// nothing is there, Directory for a directory, or an error when the file cannot be read
// or is neither (a FIFO or a device has no content to pin).
func (h *Hasher) Hash(path string) (string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR) {
		return Absent, nil
	}
	if err != nil {
		return "", err
	}
	switch {
	case fi.IsDir():
		return Directory, nil
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file (%s): its content cannot be pinned", path, fi.Mode().Type())
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

// HashPin hashes one pin: a file's content, or a tree's (HashTree).
func (h *Hasher) HashPin(p Pin) (string, error) {
	if p.Tree {
		return h.HashTree(p.Path)
	}
	return h.Hash(p.Path)
}

// HashAll hashes pins, keyed by Pin.Key. The first error wins.
func (h *Hasher) HashAll(pins []Pin) (map[string]string, error) {
	out := make(map[string]string, len(pins))
	for _, p := range pins {
		sum, err := h.HashPin(p)
		if err != nil {
			return nil, err
		}
		out[p.Key] = sum
	}
	return out, nil
}

// HashTree returns "sha256:<hex>" of a directory tree: every entry's path, kind and
// content hash (a symlink's target too; a symlinked directory is walked once), .git
// directories left out. Absent when nothing is at root; the file's hash when root is a
// file. An unchanged file costs a stat (Hash); an added, removed or renamed entry changes
// the listing.
func (h *Hasher) HashTree(root string) (string, error) {
	fi, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR):
		return Absent, nil
	case err != nil:
		return "", err
	case !fi.IsDir():
		sum, err := h.Hash(root)
		return "file:" + sum, err
	}
	t := treeWalk{h: h, d: sha256.New(), seen: map[string]bool{}}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		t.seen[real] = true
	}
	if err := t.walk(root, ""); err != nil {
		return "", fmt.Errorf("%s: %w", root, err)
	}
	return "sha256:" + hex.EncodeToString(t.d.Sum(nil)), nil
}

type treeWalk struct {
	h    *Hasher
	d    hash.Hash
	n    int
	seen map[string]bool // real paths of directories walked, so a symlink loop ends
}

func (t *treeWalk) walk(dir, rel string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if t.n++; t.n > MaxTreeEntries {
			return fmt.Errorf("%w: more than %d entries", ErrTreeTooLarge, MaxTreeEntries)
		}
		p, r := filepath.Join(dir, e.Name()), path.Join(rel, e.Name())
		kind := e.Type()
		if kind&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			fmt.Fprintf(t.d, "L %q %q\n", r, target)
			fi, err := os.Stat(p)
			if err != nil {
				fmt.Fprintf(t.d, "- %q\n", r) // dangling
				continue
			}
			kind = fi.Mode().Type()
		}
		switch {
		case kind.IsDir():
			real, err := filepath.EvalSymlinks(p)
			if err != nil || t.seen[real] {
				fmt.Fprintf(t.d, "D %q seen\n", r)
				continue
			}
			t.seen[real] = true
			fmt.Fprintf(t.d, "D %q\n", r)
			if err := t.walk(p, r); err != nil {
				return err
			}
		case !kind.IsRegular():
			fmt.Fprintf(t.d, "O %q %s\n", r, kind) // a FIFO, socket or device: its kind
		default:
			sum, err := t.h.Hash(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(t.d, "F %q %s\n", r, sum)
		}
	}
	return nil
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
