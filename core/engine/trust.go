package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
	"github.com/hookexec/hookexec/core/trust"
)

// ErrTrust is returned when the trust store cannot be read or written (approve, revoke).
var ErrTrust = trust.ErrStore

// defaultTrust is the trust mode of each profile when neither the host nor the user's
// HOOKEXEC_TRUST chooses one. Every profile keeps running project hooks ("all"): the hosts
// these profiles serve run them today, and turning them off in a library upgrade would
// silently stop every existing host's hooks (README "Trust" says why, per profile).
func defaultTrust(string) trust.Mode { return trust.All }

// trustMode resolves the mode: the host's option, else the profile's default; the user's
// HOOKEXEC_TRUST=project tightens either (a user can protect themselves from any host).
func trustMode(o Options) (trust.Mode, error) {
	m := defaultTrust(o.Profile)
	if o.Trust != "" {
		var err error
		if m, err = trust.ParseMode(o.Trust); err != nil {
			return m, fmt.Errorf("%w: options: %v", ErrInvalid, err)
		}
	}
	if os.Getenv("HOOKEXEC_TRUST") == "project" {
		m = trust.Project
	}
	return m, nil
}

// trustGate is the trust decision about one project-level hook.
type trustGate struct {
	h       *hook
	entry   trust.Hook
	files   []string // absolute paths of the project files the hook runs
	rels    []string // the same, relative to the project: the keys of an approval's files
	verdict atomic.Pointer[trust.Verdict]
	hashes  map[string]string // at the last judgement; nil when they could not be read
}

// trustState is a plan's view of the trust store: gates are judged again when the store
// file changes (another process approved or revoked), checked with one stat per fire
// that selects a gated hook.
type trustState struct {
	gates []*trustGate
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

// awaiting reports whether the hook is held back for approval, as judged at the last load
// or store change (a fire also checks the files of an approved one).
func (h *hook) awaiting() bool { return h.approval != nil && !h.approval.verdict.Load().Approved }

// home is the user's home directory as the engine sees it.
func (e *Engine) home() string {
	if e.opts.Home != "" {
		return e.opts.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// storeKey is the project's key in the trust store: its real path, so that approvals hold
// whichever symlinked spelling a host opens it by.
func (e *Engine) storeKey() string {
	if real, err := filepath.EvalSymlinks(e.opts.ProjectDir); err == nil {
		return real
	}
	return e.opts.ProjectDir
}

// gatesOf finds the plan's project-level hooks and the files each runs.
func (e *Engine) gatesOf(p *plan) []*trustGate {
	project, home := e.opts.ProjectDir, e.home()
	var out []*trustGate
	for _, h := range p.hooks {
		c := h.cfg
		if c.DuplicateOf != "" || !trust.ProjectLevel(c.Source, project, home) {
			continue
		}
		g := &trustGate{h: h, entry: entryOf(h, project)}
		if c.Type == "command" {
			dir := c.Cwd
			if dir == "" {
				dir = project
			}
			g.files = trust.Scripts(c.Command, c.Args, dir, project, home)
			if len(c.Env) > 0 { // LD_PRELOAD=./x.so runs x.so as surely as the command
				g.files = append(g.files, trust.Scripts("", append([]string{"env"}, c.Env...), dir, project, home)...)
				slices.Sort(g.files)
				g.files = slices.Compact(g.files)
			}
			for _, f := range g.files {
				g.rels = append(g.rels, trust.Rel(f, project))
			}
		}
		out = append(out, g)
	}
	return out
}

// entryOf is what an approval of h names.
func entryOf(h *hook, project string) trust.Hook {
	c := h.cfg
	t := trust.Hook{
		ID: c.ID, Source: trust.Rel(c.Source, project), Event: c.Event, Matcher: c.Matcher,
		Type: c.Type, Args: c.Args, Env: c.Env, If: c.If,
	}
	switch {
	case c.Type == "http":
		t.URL = c.URL
	case len(c.Args) == 0:
		t.Command = h.command()
	}
	if c.Cwd != "" {
		t.Cwd = trust.Rel(c.Cwd, project)
	}
	if len(c.FilterTools)+len(c.FilterPaths) > 0 {
		t.Filter = append(append([]string{}, prefixed("tool:", c.FilterTools)...), prefixed("path:", c.FilterPaths)...)
	}
	t.Settings = settingsDigest(c.Hook)
	return t
}

// settingsDigest hashes every field of the entry not named above, except those that do not
// change what runs (id, name, description, status message, timeout) or that say where and
// how it was read (file, position, dialect, the handler's text as written).
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

func prefixed(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}

// judge reads the store once and decides every gate. A store that cannot be read approves
// nothing: fail closed, and say why.
func (e *Engine) judge(gates []*trustGate) error {
	approvals, err := e.store.Approvals(e.storeKey())
	for _, g := range gates {
		v := &trust.Verdict{}
		g.hashes = nil
		switch hashes, herr := e.hasher.HashAll(g.files, e.opts.ProjectDir); {
		case err != nil:
			v.Reason = "trust store unreadable: " + err.Error()
		case herr != nil:
			v.Reason = "script cannot be read: " + herr.Error()
		default:
			g.hashes = hashes
			*v = trust.Check(g.entry, hashes, approvals)
		}
		g.verdict.Store(v)
	}
	return err
}

// gateProjectHooks builds the plan's trust state when the mode asks for approvals.
func (e *Engine) gateProjectHooks(p *plan) {
	if e.trust != trust.Project {
		return
	}
	ts := &trustState{gates: e.gatesOf(p)}
	if len(ts.gates) == 0 {
		return
	}
	for _, g := range ts.gates {
		g.h.approval = g
	}
	ts.seen.Store(e.stampStore())
	if err := e.judge(ts.gates); err != nil {
		p.warnings = append(p.warnings, config.Warning{Source: e.store.Path, Error: true,
			Message: "cannot be read, so no project-level hook runs: " + err.Error()})
	}
	p.trust = ts
}

func (e *Engine) stampStore() *storeStamp {
	fi, err := os.Stat(e.store.Path)
	if err != nil {
		return &storeStamp{}
	}
	return &storeStamp{fi: fi}
}

// refresh judges the gates again when the store file changed since they were judged.
func (e *Engine) refresh(ts *trustState) {
	now := e.stampStore()
	if ts.seen.Load().same(now.fi) {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.seen.Load().same(now.fi) {
		return
	}
	e.judge(ts.gates)
	ts.seen.Store(now)
}

// Awaiting is a hook a fire selected but did not run: it is project-level and not approved.
type Awaiting struct {
	ID      string `json:"id"`
	Source  string `json:"source"`
	Event   string `json:"event"`
	Matcher string `json:"matcher"`
	Command string `json:"command"`
	Reason  string `json:"reason"` // "new hook", "command changed", "script x changed", ...
}

// admit keeps the selected hooks that may run. An approved hook that names files is
// checked again here, so a script edited after the load never runs unapproved; a stat
// per file answers when nothing changed (trust.Hasher).
func (e *Engine) admit(ts *trustState, selected []*hook) ([]*hook, []Awaiting) {
	gated := false
	for _, h := range selected {
		gated = gated || h.approval != nil
	}
	if !gated {
		return selected, nil
	}
	e.refresh(ts)
	run := selected[:0:0]
	var waiting []Awaiting
	for _, h := range selected {
		g := h.approval
		if g == nil {
			run = append(run, h)
			continue
		}
		v := g.verdict.Load()
		why := v.Reason
		if v.Approved && len(g.files) > 0 {
			why = e.recheck(g, v.Approval.Files)
		}
		if why == "" {
			run = append(run, h)
			continue
		}
		waiting = append(waiting, Awaiting{ID: h.cfg.ID, Source: h.cfg.Source, Event: h.cfg.Event,
			Matcher: h.cfg.Matcher, Command: h.command(), Reason: why})
	}
	return run, waiting
}

// recheck compares the files of an approved hook with its approval: "" when unchanged,
// else what changed. The load compared the set of paths; here only contents can differ.
func (e *Engine) recheck(g *trustGate, approved map[string]string) string {
	for i, f := range g.files {
		sum, err := e.hasher.Hash(f)
		if err != nil {
			return "script cannot be read: " + err.Error()
		}
		if sum != approved[g.rels[i]] {
			now, err := e.hasher.HashAll(g.files, e.opts.ProjectDir)
			if err != nil {
				return "script cannot be read: " + err.Error()
			}
			return trust.FilesChanged(approved, now)
		}
	}
	return ""
}

// TrustReport is every project-level hook of the configuration and whether it is approved.
type TrustReport struct {
	Mode       string       `json:"mode"` // "all" (approvals not enforced) or "project"
	Store      string       `json:"store"`
	ProjectDir string       `json:"project_dir"`
	Error      string       `json:"error"` // why the store cannot be read; "" when it can
	Hooks      []TrustEntry `json:"hooks"`
}

// TrustEntry is one project-level hook: what would run, and its approval state.
type TrustEntry struct {
	trust.Hook
	Source     string      `json:"source"` // absolute path of the file (the entry's own is relative)
	Enabled    bool        `json:"enabled"`
	Status     string      `json:"status"` // "approved" or "awaiting approval"
	Reason     string      `json:"reason"` // what changed; "" when approved
	Files      []TrustFile `json:"files"`
	ApprovedAt *time.Time  `json:"approved_at"`
}

// TrustFile is one project file the hook runs.
type TrustFile struct {
	Path     string `json:"path"`     // relative to the project
	SHA256   string `json:"sha256"`   // now ("absent" when no file is there)
	Approved string `json:"approved"` // as approved; "" when never
}

// JSON encodes the report.
func (r *TrustReport) JSON() ([]byte, error) { return marshal(r) }

const (
	statusApproved = "approved"
	statusAwaiting = "awaiting approval"
)

// TrustList reports the project-level hooks of the configuration in force, judged now
// against the store and the files on disk. It works in mode "all" too, so approvals can
// be made before a host turns enforcement on.
func (e *Engine) TrustList() (*TrustReport, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	r, _, _ := e.trustReport(e.plan.Load())
	return r, nil
}

// trustReport judges the plan's project-level hooks now; its error is the store's.
func (e *Engine) trustReport(p *plan) (*TrustReport, []*trustGate, error) {
	gates := e.gatesOf(p)
	r := &TrustReport{Mode: e.trust.String(), Store: e.store.Path, ProjectDir: e.opts.ProjectDir, Hooks: []TrustEntry{}}
	storeErr := e.judge(gates)
	if storeErr != nil {
		r.Error = storeErr.Error()
	}
	for _, g := range gates {
		v := g.verdict.Load()
		ent := TrustEntry{Hook: g.entry, Source: g.h.cfg.Source, Enabled: g.h.cfg.Enabled() && !p.set.DisableAll,
			Status: statusAwaiting, Reason: v.Reason, Files: []TrustFile{}}
		if v.Approved {
			ent.Status = statusApproved
		}
		if v.Approval != nil && v.Approval.Fingerprint == g.entry.Fingerprint() {
			at := v.Approval.ApprovedAt
			ent.ApprovedAt = &at
		}
		for _, f := range g.files {
			rel := trust.Rel(f, e.opts.ProjectDir)
			tf := TrustFile{Path: rel, SHA256: g.hashes[rel]}
			if v.Approval != nil {
				tf.Approved = v.Approval.Files[rel]
			}
			ent.Files = append(ent.Files, tf)
		}
		r.Hooks = append(r.Hooks, ent)
	}
	return r, gates, storeErr
}

// Approve records approvals for the project-level hooks named by ids (all hooks awaiting
// approval when ids is empty) as they are now: entry and file hashes. It returns the
// report after the configuration reloaded. An id that names no project-level hook is
// ErrInvalid; a store that cannot be read or written is ErrTrust, and nothing changes.
func (e *Engine) Approve(ids ...string) (*TrustReport, error) {
	return e.changeTrust(ids, true)
}

// Revoke removes the approvals of the hooks named by ids (at least one).
func (e *Engine) Revoke(ids ...string) (*TrustReport, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: revoke needs a hook id", ErrInvalid)
	}
	return e.changeTrust(ids, false)
}

func (e *Engine) changeTrust(ids []string, approve bool) (*TrustReport, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	e.reload.Lock()
	defer e.reload.Unlock()
	_, gates, err := e.trustReport(e.plan.Load())
	if err != nil {
		return nil, err // approving against a store we cannot read would overwrite it
	}
	byID := map[string]*trustGate{}
	for _, g := range gates {
		byID[g.entry.ID] = g
	}
	var targets []*trustGate
	if len(ids) == 0 {
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
		return nil, fmt.Errorf("%w: no project-level hook with id %s (trust list shows them)", ErrInvalid, strings.Join(quoted(unknown), ", "))
	}
	for _, g := range targets {
		if approve && g.hashes == nil {
			return nil, fmt.Errorf("%w: hook %q: %s", ErrInvalid, g.entry.ID, g.verdict.Load().Reason)
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	removed := 0
	err = e.store.Update(e.storeKey(), func(list []trust.Approval) []trust.Approval {
		drop := func(a trust.Approval) bool {
			for _, id := range ids {
				if !approve && a.ID == id {
					return true
				}
			}
			for _, g := range targets {
				if a.Fingerprint == g.entry.Fingerprint() || (a.ID == g.entry.ID && a.Source == g.entry.Source && a.Event == g.entry.Event) {
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
				list = append(list, trust.Approval{Hook: g.entry, Fingerprint: g.entry.Fingerprint(), Files: g.hashes, ApprovedAt: now})
			}
		}
		return list
	})
	if err != nil {
		return nil, err
	}
	if !approve && removed == 0 {
		return nil, fmt.Errorf("%w: no approval for %s in %s", ErrInvalid, strings.Join(quoted(ids), ", "), e.storeKey())
	}
	if p, err := e.load(); err == nil {
		e.plan.Store(p)
	}
	r, _, err := e.trustReport(e.plan.Load())
	return r, err
}

func quoted(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// trustOf reports a hook's trust state for config(): "" when it runs without approval.
func trustOf(live map[*config.Hook]*trust.Verdict, c *config.Hook) (string, string) {
	v, ok := live[c]
	switch {
	case !ok:
		return "", ""
	case v.Approved:
		return statusApproved, ""
	}
	return statusAwaiting, v.Reason
}

// liveVerdicts judges the plan's gates now, for config().
func (e *Engine) liveVerdicts(p *plan) map[*config.Hook]*trust.Verdict {
	if p.trust == nil {
		return nil
	}
	gates := e.gatesOf(p)
	e.judge(gates)
	out := make(map[*config.Hook]*trust.Verdict, len(gates))
	for _, g := range gates {
		out[g.h.cfg] = g.verdict.Load()
	}
	return out
}
