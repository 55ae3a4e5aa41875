package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// contained refuses the write of a project file that would land outside the project. A
// cloned repository can plant .claude/settings.local.json as a link to the user's
// ~/.claude/settings.json (or .claude as a link to ~/.claude): an edit the user makes to "this
// project" would then change every project. A file is a project file when its path, as
// named, is under the project directory; where it is written is that path with every
// symbolic link resolved (for a file not yet there, its nearest existing directory), which
// must be under the project directory, links resolved too. Files outside the project (the
// user's own settings, which may well be links into a dotfiles repository) are not checked.
func contained(path, project string) error {
	if project == "" {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	proj, err := filepath.Abs(project)
	if err != nil {
		return err
	}
	realProj, err := filepath.EvalSymlinks(proj)
	if err != nil {
		return fmt.Errorf("cannot resolve the project directory %s: %v", proj, unwrapPathError(err))
	}
	if !inside(abs, proj) && !inside(abs, realProj) {
		return nil
	}
	dest, err := resolved(abs)
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %v", abs, unwrapPathError(err))
	}
	if !inside(dest, realProj) {
		return fmt.Errorf("refusing to write %s: it is a project file, but it links outside the project, so the edit would be written to %s; "+
			"a repository can plant such a link. Remove the link, or edit %s yourself if that is what you mean", abs, dest, dest)
	}
	return nil
}

// resolved is where a write to path lands: path with every symbolic link resolved. A path
// that does not exist yet resolves through its nearest existing directory; a dangling link
// is replaced in place by the atomic write (a rename over it), so it lands where it is.
func resolved(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	parent := filepath.Dir(path)
	if parent == path {
		return path, nil
	}
	dir, err := resolved(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(path)), nil
}

// inside reports whether path is dir or under it.
func inside(path, dir string) bool {
	_, ok := under(dir, path)
	return ok
}
