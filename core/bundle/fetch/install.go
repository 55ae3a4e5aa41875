package fetch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	opabundle "github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hookexec/hookexec/core/bundle"
)

// install writes a verified bundle into a revision directory of the cache (complete
// before it gets its name) and points the current link at it with a rename, so engines
// see the old revision or the new one, never a mix. It returns the directory's name.
func install(cache string, b *opabundle.Bundle, archive, settings []byte, sum string) (string, error) {
	name := "rev-" + sum[:16]
	final := filepath.Join(cache, name)
	if _, err := os.Stat(filepath.Join(final, bundle.Settings)); err != nil {
		tmp, err := os.MkdirTemp(cache, ".rev-*")
		if err != nil {
			return "", err
		}
		if err := fill(tmp, b, archive, settings); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		if err := os.Chmod(tmp, 0o755); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		os.RemoveAll(final) // a partial directory of this name left by a crash
		if err := os.Rename(tmp, final); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
	}
	link, err := os.MkdirTemp(cache, ".current-*")
	if err != nil {
		return "", err
	}
	// MkdirTemp reserved a unique name; the link takes it.
	if err := os.Remove(link); err != nil {
		return "", err
	}
	if err := os.Symlink(name, link); err != nil {
		return "", err
	}
	if err := os.Rename(link, filepath.Join(cache, bundle.Current)); err != nil {
		os.Remove(link)
		return "", err
	}
	return name, nil
}

// fill writes the bundle's modules at their paths, the archive and the settings file.
func fill(dir string, b *opabundle.Bundle, archive, settings []byte) error {
	files := map[string][]byte{bundle.Settings: settings, bundle.Archive: archive}
	for _, m := range b.Modules {
		rel := filepath.FromSlash(strings.TrimPrefix(m.Path, "/"))
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("%w: module path %q leaves the bundle", ErrRefused, m.Path)
		}
		if _, dup := files[rel]; dup {
			return fmt.Errorf("%w: module path %q collides with hookexec's own file", ErrRefused, m.Path)
		}
		files[rel] = m.Raw
	}
	for rel, data := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// prune removes the revision directories other than the active one and the one before
// (an engine may still be loading from it), and what an interrupted install left.
func prune(cache, active, previous string) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		stale := strings.HasPrefix(n, ".rev-") || strings.HasPrefix(n, ".current-") ||
			strings.HasPrefix(n, "rev-") && n != active && n != previous
		if stale {
			os.RemoveAll(filepath.Join(cache, n))
		}
	}
}
