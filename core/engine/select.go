package engine

import (
	"fmt"
	"slices"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/valyala/fastjson"
)

// selectHooks returns the enabled hooks of the event whose matcher accepts the payload's
// subject and whose filter (autohand) accepts its tool and file path.
func (p *plan) selectHooks(ev event.Info, doc *payload.Doc, subject, cwd string) []*hook {
	hooks := p.byEvent[ev.Name]
	if len(hooks) == 0 {
		return nil
	}
	var out []*hook
	var tool, path string
	looked := false
	for _, h := range hooks {
		if !h.cfg.Match.Match(subject) {
			continue
		}
		if h.cfg.Filter != nil {
			if !looked {
				tool, path, looked = doc.String("tool_name"), filePath(doc), true
			}
			if !h.cfg.Filter.Match(tool, path) {
				continue
			}
		}
		if len(h.cfg.FileEvents) > 0 && !slices.Contains(h.cfg.FileEvents, doc.String("event")) {
			continue // Kiro's fileEdited is not run for a created file
		}
		if h.cfg.Rule != nil && !h.cfg.Rule.Match(doc.String("tool_name"), toolInput(doc), cwd) {
			continue
		}
		if d := h.cfg.Dialect; d != nil && d.OwnEvent != nil {
			if own := d.OwnEvent(doc.String); own != "" && own != h.cfg.Spelling {
				continue // Cline's TaskResume hook on a TaskStart fire
			}
		}
		out = append(out, h)
	}
	return out
}

// ruleCwd is where relative paths of "if" rules start: the payload's cwd, else the project.
func (e *Engine) ruleCwd(doc *payload.Doc) string {
	if cwd := doc.String("cwd"); cwd != "" {
		return cwd
	}
	return e.opts.ProjectDir
}

// once leaves out the "once" hooks that already ran in session, and records the others.
func (e *Engine) once(hs []*hook, session string) []*hook {
	out := hs[:0:0]
	for _, h := range hs {
		if !h.cfg.Once || e.sessions.claimOnce(session, h.cfg.ID) {
			out = append(out, h)
		}
	}
	return out
}

// toolInput is the payload's tool input object (cli-agent names it tool_args), or nil.
func toolInput(doc *payload.Doc) *fastjson.Value {
	if v := doc.Root().Get("tool_input"); v != nil {
		return v
	}
	return doc.Root().Get("tool_args")
}

// filePathKeys are where a payload names the file a fire is about, first present wins.
var filePathKeys = []payload.Path{mustPath("file_path"), mustPath("path"), mustPath("tool_input.file_path"), mustPath("tool_input.path")}

func filePath(doc *payload.Doc) string {
	for _, p := range filePathKeys {
		if s := payload.Render(doc.Get(p)); s != "" {
			return s
		}
	}
	return ""
}

func mustPath(expr string) payload.Path {
	p, err := payload.Compile(expr)
	if err != nil {
		panic("hookexec: bad built-in path " + expr) // a programming error, caught by tests
	}
	return p
}

// Match returns how many enabled hooks would run for event and subject, without running any.
// Hooks awaiting approval (as judged at load) do not count.
func (e *Engine) Match(name, subject string) (int, error) {
	if !e.gate.enter() {
		return 0, ErrClosed
	}
	defer e.gate.leave()
	if name == "" {
		return 0, fmt.Errorf("%w: empty event name", ErrInvalid)
	}
	return len(e.plan.Load().matching(name, subject)), nil
}

// matching lists the enabled hooks of event name whose matcher accepts subject, leaving
// out those awaiting approval.
func (p *plan) matching(name, subject string) []*hook {
	ev := event.Lookup(name)
	subject = ev.SubjectOf(subject)
	var out []*hook
	for _, h := range p.byEvent[ev.Name] {
		if h.cfg.Match.Match(subject) && !h.awaiting() {
			out = append(out, h)
		}
	}
	return out
}

// MatchIDs returns the ids of the enabled hooks that would run for event and subject, in
// config order, without running any: the hooks Match counts (matchers only; autohand's
// tool/path filters need a payload and are applied by Fire). Never nil.
func (e *Engine) MatchIDs(name, subject string) ([]string, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	if name == "" {
		return nil, fmt.Errorf("%w: empty event name", ErrInvalid)
	}
	ids := []string{}
	for _, h := range e.plan.Load().matching(name, subject) {
		ids = append(ids, h.cfg.ID)
	}
	return ids, nil
}
