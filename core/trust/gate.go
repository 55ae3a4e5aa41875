package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/dialect"
)

// ErrUnknownHook is returned by Policy.Change for an id that names no project-level hook,
// or a revoke that finds no approval.
var ErrUnknownHook = errors.New("hookexec: trust: no project-level hook")

// ErrRefused is returned by Policy.Change when a hook cannot be approved as it is now
// (a pinned file cannot be read, a pinned tree is too large); the error says why.
var ErrRefused = errors.New("hookexec: trust: cannot approve")

// ResolveMode is the mode in force: the host's option ("" for the default, All), which
// the user's HOOKEXEC_TRUST=project (read with getenv) can tighten but never loosen.
func ResolveMode(option string, getenv func(string) string) (Mode, error) {
	m := All
	if option != "" {
		var err error
		if m, err = ParseMode(option); err != nil {
			return m, err
		}
	}
	if getenv("HOOKEXEC_TRUST") == "project" {
		m = Project
	}
	return m, nil
}

// Policy is an engine's trust: its mode, its store, where the project is, and the hasher
// whose stat cache outlives reloads. The engine asks it; it runs nothing.
type Policy struct {
	Mode    Mode
	Store   Store
	Project string // the project directory as the host opened it, absolute
	Home    string
	// Path is the host's PATH when the configuration loaded (bare program names).
	Path   string
	Hasher Hasher
}

// Untrusted reports whether a configuration source awaits approval under this policy
// (config.Options.Untrusted); nil in mode All.
func (p *Policy) Untrusted() func(source string) bool {
	if p.Mode != Project {
		return nil
	}
	project, home := p.Project, p.Home
	return func(source string) bool { return ProjectLevel(source, project, home) }
}

// StoreKey is the project's key in the store: its real path, so that approvals hold
// whichever symlinked spelling a host opens it by.
func (p *Policy) StoreKey() string {
	if real, err := filepath.EvalSymlinks(p.Project); err == nil {
		return real
	}
	return p.Project
}

// Gate is the trust decision about one project-level hook: what its approval names, what
// of the project it pins, and the verdict of the last judgement.
type Gate struct {
	Config   *config.Hook
	Entry    Hook
	Analysis Analysis
	verdict  atomic.Pointer[Verdict]
	hashes   map[string]string // at the last judgement; nil when they could not be read
}

// Verdict is the gate's verdict at the last judgement.
func (g *Gate) Verdict() *Verdict { return g.verdict.Load() }

// Gates finds the project-level hooks among hooks (duplicates left out: their original
// decides) and what each runs. command describes a hook as results show it.
func (p *Policy) Gates(hooks []*config.Hook, command func(*config.Hook) string) []*Gate {
	var out []*Gate
	for _, c := range hooks {
		if c.DuplicateOf != "" || c.Managed || !ProjectLevel(c.Source, p.Project, p.Home) {
			continue
		}
		g := &Gate{Config: c, Entry: p.entry(c, command(c))}
		switch c.Type {
		case "command":
			dir := c.Cwd
			if dir == "" {
				dir = p.Project
			}
			g.Analysis = Analyse(Command{Shell: c.Command, Args: c.Args, Env: c.Env, Dir: dir,
				Project: p.Project, Home: p.Home, Path: p.Path})
		case "policy":
			g.Analysis = policyPins(c.Policy, p.Project)
		case "git-commit", "git-push":
			// git runs the repository's hooks and reads its config; the tracked files it
			// commits are data.
			g.Analysis.Pins = []Pin{
				{Path: filepath.Join(p.Project, ".git", "config"), Key: ".git/config"},
				{Path: filepath.Join(p.Project, ".git", "hooks"), Key: ".git/hooks/", Tree: true, Why: "git runs the repository's hooks"},
			}
		}
		out = append(out, g)
	}
	return out
}

// entry is what an approval of c names.
func (p *Policy) entry(c *config.Hook, command string) Hook {
	t := Hook{
		ID: c.ID, Source: Rel(c.Source, p.Project), Event: c.Event, Matcher: c.Matcher,
		Type: c.Type, Args: c.Args, Env: c.Env, If: c.If,
	}
	switch {
	case c.Type == "http":
		t.URL = c.URL
	case len(c.Args) == 0:
		t.Command = command
	}
	if c.Cwd != "" {
		t.Cwd = Rel(c.Cwd, p.Project)
	}
	for _, x := range c.FilterTools {
		t.Filter = append(t.Filter, "tool:"+x)
	}
	for _, x := range c.FilterPaths {
		t.Filter = append(t.Filter, "path:"+x)
	}
	t.Settings = settingsDigest(c.Hook)
	return t
}

// settingsDigest hashes every field of the entry not named in Hook, except those that do
// not change what runs (id, name, description, status message, timeout) or that say where
// and how it was read (file, position, dialect, the handler's text as written).
func settingsDigest(h dialect.Hook) string {
	h.ID, h.Name, h.Description, h.StatusMessage, h.Timeout, h.TimeoutSet = "", "", "", "", 0, false
	h.Event, h.Matcher, h.FilterTools, h.FilterPaths, h.Type, h.Command, h.Args, h.URL, h.If, h.Cwd, h.Env = "", "", nil, nil, "", "", nil, "", "", "", nil
	h.Source, h.Path, h.Group, h.Line, h.Definition = "", "", "", 0, nil
	h.Dialect, h.Disabled, h.DuplicateOf = nil, "", ""
	b, err := json.Marshal(h)
	if err != nil { // a field JSON cannot encode: its printed form still changes with it
		b = []byte(fmt.Sprintf("%+v", h))
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Judge reads the store once and decides every gate. A store that cannot be read
// approves nothing: fail closed, and the error says why.
func (p *Policy) Judge(gates []*Gate) error {
	approvals, err := p.Store.Approvals(p.StoreKey())
	for _, g := range gates {
		v := &Verdict{}
		g.hashes = nil
		switch hashes, herr := p.Hasher.HashAll(g.Analysis.Pins); {
		case err != nil:
			v.Reason = "trust store unreadable: " + err.Error()
		case herr != nil:
			v.Reason = "cannot be pinned: " + herr.Error()
		default:
			g.hashes = hashes
			*v = Check(g.Entry, hashes, approvals)
		}
		g.verdict.Store(v)
	}
	return err
}

// State is one configuration's gates, judged again when the store file changes (another
// process approved or revoked): one stat of the store per fire that selects a gated hook.
type State struct {
	Gates []*Gate
	mu    sync.Mutex // serialises judging
	seen  atomic.Pointer[storeStamp]
}

type storeStamp struct{ fi os.FileInfo } // nil fi: no store file

func (s *storeStamp) same(fi os.FileInfo) bool {
	if s.fi == nil || fi == nil {
		return s.fi == nil && fi == nil
	}
	return os.SameFile(s.fi, fi) && s.fi.Size() == fi.Size() && s.fi.ModTime().Equal(fi.ModTime())
}

func (p *Policy) stamp() *storeStamp {
	fi, err := os.Stat(p.Store.Path)
	if err != nil {
		return &storeStamp{}
	}
	return &storeStamp{fi: fi}
}

// NewState judges gates and keeps them for the fires of one configuration. Its error is
// the store's (every gate then awaits approval).
func (p *Policy) NewState(gates []*Gate) (*State, error) {
	s := &State{Gates: gates}
	s.seen.Store(p.stamp())
	return s, p.Judge(gates)
}

// Admit says whether a gated hook may run now: "" when it may, else why not. An approved
// hook's pins are checked again, so a file edited or added after the load never runs
// unapproved: a stat per pinned file (and per entry of a pinned tree) answers when
// nothing changed.
func (p *Policy) Admit(s *State, g *Gate) string {
	p.refresh(s)
	v := g.verdict.Load()
	if !v.Approved || len(g.Analysis.Pins) == 0 {
		return v.Reason
	}
	for _, pin := range g.Analysis.Pins {
		sum, err := p.Hasher.HashPin(pin)
		if err != nil {
			return "cannot be pinned: " + err.Error()
		}
		if sum != v.Approval.Files[pin.Key] {
			now, err := p.Hasher.HashAll(g.Analysis.Pins)
			if err != nil {
				return "cannot be pinned: " + err.Error()
			}
			return FilesChanged(v.Approval.Files, now)
		}
	}
	return ""
}

// refresh judges the gates again when the store file changed since they were judged.
func (p *Policy) refresh(s *State) {
	now := p.stamp()
	if s.seen.Load().same(now.fi) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen.Load().same(now.fi) {
		return
	}
	_ = p.Judge(s.Gates) // an unreadable store is in every verdict's reason
	s.seen.Store(now)
}

// Report is every project-level hook of a configuration and whether it is approved.
type Report struct {
	Mode       string  `json:"mode"` // "all" (approvals not enforced) or "project"
	Store      string  `json:"store"`
	ProjectDir string  `json:"project_dir"`
	Error      string  `json:"error"` // why the store cannot be read; "" when it can
	Hooks      []Entry `json:"hooks"`
}

// JSON encodes the report as hosts receive it (no HTML escaping, no trailing newline).
func (r *Report) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Entry is one project-level hook: what would run, what its approval pins, and its state.
type Entry struct {
	Hook
	Source  string `json:"source"` // absolute path of the file (the entry's own is relative)
	Enabled bool   `json:"enabled"`
	Status  string `json:"status"` // "approved" or "awaiting approval"
	Reason  string `json:"reason"` // what changed; "" when approved
	Files   []File `json:"files"`
	// Unpinned is what the command uses that no approval holds fixed (values from the
	// payload); files outside the project are the user's and are not listed.
	Unpinned   []string   `json:"unpinned"`
	ApprovedAt *time.Time `json:"approved_at"`
}

// File is one pin of a hook: a project file, or a directory tree pinned whole.
type File struct {
	Path     string `json:"path"`           // relative to the project; a tree's ends in "/"
	Tree     bool   `json:"tree,omitempty"` // every entry under Path is pinned
	Why      string `json:"why,omitempty"`  // for a tree: why it is pinned whole
	SHA256   string `json:"sha256"`         // now ("absent" when nothing is there)
	Approved string `json:"approved"`       // as approved; "" when never
}

// Statuses of an Entry.
const (
	StatusApproved = "approved"
	StatusAwaiting = "awaiting approval"
)

// Report judges gates now against the store and the files on disk. enabled says whether
// a hook would run were it approved. The error is the store's.
func (p *Policy) Report(gates []*Gate, enabled func(*config.Hook) bool) (*Report, error) {
	r := &Report{Mode: p.Mode.String(), Store: p.Store.Path, ProjectDir: p.Project, Hooks: []Entry{}}
	storeErr := p.Judge(gates)
	if storeErr != nil {
		r.Error = storeErr.Error()
	}
	for _, g := range gates {
		v := g.verdict.Load()
		ent := Entry{Hook: g.Entry, Source: g.Config.Source, Enabled: enabled(g.Config),
			Status: StatusAwaiting, Reason: v.Reason, Files: []File{}, Unpinned: g.Analysis.Unpinned}
		if ent.Unpinned == nil {
			ent.Unpinned = []string{}
		}
		if v.Approved {
			ent.Status = StatusApproved
		}
		if v.Approval != nil && v.Approval.Fingerprint == g.Entry.Fingerprint() {
			at := v.Approval.ApprovedAt
			ent.ApprovedAt = &at
		}
		for _, pin := range g.Analysis.Pins {
			f := File{Path: pin.Key, Tree: pin.Tree, Why: pin.Why, SHA256: g.hashes[pin.Key]}
			if v.Approval != nil {
				f.Approved = v.Approval.Files[pin.Key]
			}
			ent.Files = append(ent.Files, f)
		}
		r.Hooks = append(r.Hooks, ent)
	}
	return r, storeErr
}

// Change records approvals of the gates named by ids (every gate awaiting approval when
// ids is empty) as they are now, or removes the approvals of ids (revoke, at least one).
// A store that cannot be read is not written (ErrStore); an unknown id is
// ErrUnknownHook; a hook whose pins cannot be hashed is ErrRefused.
func (p *Policy) Change(gates []*Gate, ids []string, approve bool) error {
	if err := p.Judge(gates); err != nil {
		return err // approving against a store we cannot read would overwrite it
	}
	byID := map[string]*Gate{}
	for _, g := range gates {
		byID[g.Entry.ID] = g
	}
	var targets []*Gate
	if len(ids) == 0 && approve {
		for _, g := range gates {
			if !g.verdict.Load().Approved {
				targets = append(targets, g)
			}
		}
	}
	var unknown []string
	for _, id := range ids {
		if g := byID[id]; g != nil {
			targets = append(targets, g)
		} else if approve {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%w with id %s (trust list shows them)", ErrUnknownHook, strings.Join(quoted(unknown), ", "))
	}
	for _, g := range targets {
		if approve && g.hashes == nil {
			return fmt.Errorf("%w %q: %s", ErrRefused, g.Entry.ID, g.verdict.Load().Reason)
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	removed := 0
	err := p.Store.Update(p.StoreKey(), func(list []Approval) []Approval {
		drop := func(a Approval) bool {
			if !approve && slices.Contains(ids, a.ID) {
				return true
			}
			for _, g := range targets {
				if a.Fingerprint == g.Entry.Fingerprint() || (a.ID == g.Entry.ID && a.Source == g.Entry.Source && a.Event == g.Entry.Event) {
					return true
				}
			}
			return false
		}
		n := len(list)
		list = slices.DeleteFunc(list, drop)
		removed = n - len(list)
		if approve {
			for _, g := range targets {
				list = append(list, Approval{Hook: g.Entry, Fingerprint: g.Entry.Fingerprint(), Files: g.hashes, ApprovedAt: now})
			}
		}
		return list
	})
	if err != nil {
		return err
	}
	if !approve && removed == 0 {
		return fmt.Errorf("%w: no approval for %s in %s", ErrUnknownHook, strings.Join(quoted(ids), ", "), p.StoreKey())
	}
	return nil
}

func quoted(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}
