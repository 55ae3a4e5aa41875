package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/atomicfile"
)

// ErrStore wraps every failure to read or write the trust store.
var ErrStore = errors.New("hookexec: trust store")

// storeVersion is the format written; a newer one is refused rather than rewritten.
const storeVersion = 1

// Approval is one approved hook: its entry and the hashes of the project files it runs,
// as they were when the user approved.
type Approval struct {
	Hook
	Fingerprint string            `json:"fingerprint"`
	Files       map[string]string `json:"files"` // project-relative path → "sha256:…" or "absent"
	ApprovedAt  time.Time         `json:"approved_at"`
}

// Store is the trust store: one JSON file holding every project's approvals, indented for
// a person to read. Reads need no lock (writes replace the file by rename); Update holds an
// exclusive lock on a sibling ".lock" file so two processes approving at once lose nothing.
// Keys it does not know, and other projects' entries, are kept as they were.
type Store struct {
	Path string
}

// DefaultPath is where the store lives: <home>/.config/hookexec/trust.json when the host
// names a home, else $XDG_CONFIG_HOME/hookexec/trust.json, else under $HOME.
func DefaultPath(home string, getenv func(string) string) string {
	if home == "" {
		if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
			return filepath.Join(x, "hookexec", "trust.json")
		}
		home = getenv("HOME")
	}
	return filepath.Join(home, ".config", "hookexec", "trust.json")
}

// file is the store's layout; raw keeps what this version does not know.
type file struct {
	raw      map[string]json.RawMessage
	projects map[string]json.RawMessage
}

func (s Store) read() (*file, error) {
	f := &file{raw: map[string]json.RawMessage{}, projects: map[string]json.RawMessage{}}
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrStore, s.Path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	if err := json.Unmarshal(data, &f.raw); err != nil {
		return nil, fmt.Errorf("%w %s: not valid JSON: %v", ErrStore, s.Path, err)
	}
	var version int
	if v, ok := f.raw["version"]; ok {
		if err := json.Unmarshal(v, &version); err != nil {
			return nil, fmt.Errorf("%w %s: version: %v", ErrStore, s.Path, err)
		}
	}
	if version > storeVersion {
		return nil, fmt.Errorf("%w %s: version %d was written by a newer hookexec (this one reads %d)", ErrStore, s.Path, version, storeVersion)
	}
	if p, ok := f.raw["projects"]; ok {
		if err := json.Unmarshal(p, &f.projects); err != nil {
			return nil, fmt.Errorf("%w %s: projects: %v", ErrStore, s.Path, err)
		}
	}
	return f, nil
}

// project decodes one project's entry; keys other than "approvals" come back in rest.
func (f *file) project(dir string) (approvals []Approval, rest map[string]json.RawMessage, err error) {
	rest = map[string]json.RawMessage{}
	raw, ok := f.projects[dir]
	if !ok {
		return nil, rest, nil
	}
	if err := json.Unmarshal(raw, &rest); err != nil {
		return nil, nil, err
	}
	if a, ok := rest["approvals"]; ok {
		if err := json.Unmarshal(a, &approvals); err != nil {
			return nil, nil, fmt.Errorf("approvals: %v", err)
		}
	}
	return approvals, rest, nil
}

// Approvals returns the approvals recorded for project (an absolute directory). A missing
// store holds none; a store that cannot be read or decoded is an error wrapping ErrStore.
func (s Store) Approvals(project string) ([]Approval, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	a, _, err := f.project(project)
	if err != nil {
		return nil, fmt.Errorf("%w %s: project %s: %v", ErrStore, s.Path, project, err)
	}
	return a, nil
}

// Update replaces project's approvals with fn's answer, under the store's lock, and writes
// the store atomically (temp file, fsync, rename, fsync of the directory). A store that
// cannot be read is not overwritten: the error says why and nothing changes.
func (s Store) Update(project string, fn func([]Approval) []Approval) error {
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("%w %s: %v", ErrStore, s.Path, err)
	}
	unlock, err := lock(s.Path + ".lock")
	if err != nil {
		return fmt.Errorf("%w %s: lock: %v", ErrStore, s.Path, err)
	}
	defer unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	approvals, rest, err := f.project(project)
	if err != nil {
		return fmt.Errorf("%w %s: project %s: %v", ErrStore, s.Path, project, err)
	}
	approvals = fn(approvals)
	slices.SortStableFunc(approvals, func(a, b Approval) int {
		return strings.Compare(a.Source+"\x00"+a.Event+"\x00"+a.ID, b.Source+"\x00"+b.Event+"\x00"+b.ID)
	})
	if len(approvals) == 0 {
		delete(rest, "approvals")
	} else if rest["approvals"], err = json.Marshal(approvals); err != nil {
		return fmt.Errorf("%w: %v", ErrStore, err)
	}
	if len(rest) == 0 {
		delete(f.projects, project)
	} else if f.projects[project], err = json.Marshal(rest); err != nil {
		return fmt.Errorf("%w: %v", ErrStore, err)
	}
	f.raw["version"] = json.RawMessage(fmt.Sprint(storeVersion))
	if f.raw["projects"], err = json.Marshal(f.projects); err != nil {
		return fmt.Errorf("%w: %v", ErrStore, err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f.raw); err != nil {
		return fmt.Errorf("%w: %v", ErrStore, err)
	}
	// The encoder indents the whole output, the RawMessages inside included.
	if err := atomicfile.Write(s.Path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("%w %s: %v", ErrStore, s.Path, err)
	}
	return nil
}
