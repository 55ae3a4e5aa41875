// Package atomicfile writes a file so that readers see the old content or the new, never a
// part: the data goes to a temporary file in the same directory, is synced, and is renamed
// over the target. A failed write leaves the target as it was and no temporary file behind.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data. perm applies to a new file; an existing file keeps its
// mode. Missing parent directories are created (0755). A path that is a symbolic link is
// written through: the file it points to is replaced and the link stays.
func Write(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// WritePrivate replaces path with data as Write does, but the file has mode perm whatever
// mode it had, from the first byte written: for content others must never read (a secret),
// which a file that was 0644 would otherwise show them until a chmod after the rename.
func WritePrivate(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm os.FileMode, keepMode bool) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil && keepMode {
		perm = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	// The rename is durable once the directory is synced.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
