package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
)

// Explanation says, for every configured hook of an event, whether a fire of the event with
// a payload would run it and why. It is what the CLI's explain and test print and what the
// log_file records per fire; it runs nothing.
type Explanation struct {
	Event   string `json:"event"`   // canonical name
	Subject string `json:"subject"` // the payload value matchers are tested against
	// SubjectField is the payload field Subject came from ("" when the event takes no
	// matcher or the payload has none of its fields).
	SubjectField string            `json:"subject_field"`
	Runs         int               `json:"runs"` // hooks that would run
	Hooks        []HookExplanation `json:"hooks"`
}

// HookExplanation is the verdict on one configured hook, in config order.
type HookExplanation struct {
	ID      string `json:"id"`
	Event   string `json:"event"` // as configured (differs from the fired event for "event")
	Source  string `json:"source"`
	Line    int    `json:"line,omitempty"`
	Matcher string `json:"matcher"`
	Runs    bool   `json:"runs"`
	// Check names what decided, one of the Check* constants.
	Check  string `json:"check"`
	Reason string `json:"reason"` // the decision in words
	Exec   string `json:"exec"`
	// Command is what would run after substitution: the shell script, or the argv quoted
	// for reading. Argv is the exact argv. Both are empty for hooks that do not run.
	Command string   `json:"command"`
	Argv    []string `json:"argv,omitempty"`
}

// What decided a HookExplanation, in the order the checks are made.
const (
	CheckEvent      = "event"           // configured under a misspelling of the event
	CheckDuplicate  = "duplicate"       // an identical handler of higher precedence runs instead
	CheckDisableAll = "disableAllHooks" // disableAllHooks is true
	CheckDisabled   = "disabled"        // enabled false, disabledHooks, or a config error
	CheckPolicy     = "policy"          // managed settings: allowManagedHooksOnly, allowedHttpHookUrls, ...
	CheckMatcher    = "matcher"         // the matcher (rejects or accepts the subject)
	CheckFilter     = "filter"          // autohand's tool/path filter
	CheckIf         = "if"              // the hook's "if" permission rule (Claude Code)
	CheckTrust      = "trust"           // a project hook not (or no longer) approved, trust "project"
	CheckOnce       = "once"            // a "once" hook that already ran in the session
)

// Explain says for every hook configured for event (and every hook configured under a
// misspelling of it) whether a fire with payload would run it and why, and renders the
// command lines of those that would. payload is a JSON object as for Fire ("" means {}).
func (e *Engine) Explain(name string, data []byte) (*Explanation, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	if name == "" {
		return nil, fmt.Errorf("%w: empty event name", ErrInvalid)
	}
	if len(data) == 0 {
		data = []byte("{}")
	}
	doc, err := payload.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	defer doc.Release()
	ev := event.Lookup(name)
	p := e.plan.Load()
	x := e.explainFire(p, ev, doc, true)
	f := e.newFire(name, ev, doc, time.Now())
	for i := range x.Hooks {
		hx := &x.Hooks[i]
		if !hx.Runs {
			continue
		}
		j := f.prepare(p.hooks[x.index[i]])
		hx.Argv, hx.Command = j.argv, commandLine(j)
	}
	return &x.Explanation, nil
}

// explainFire is plan.explain followed by the checks Fire makes on the hooks that match:
// trust, then (with once) whether a "once" hook already ran in the payload's session.
func (e *Engine) explainFire(p *plan, ev event.Info, doc *payload.Doc, once bool) *explanation {
	x := p.explain(ev, doc, e.ruleCwd(doc))
	session := e.sessionOf(doc)
	for i := range x.Hooks {
		hx := &x.Hooks[i]
		h := p.hooks[x.index[i]]
		if !hx.Runs {
			continue
		}
		if p.trust != nil && h.approval != nil {
			if _, waiting := e.admit(p.trust, []*hook{h}); len(waiting) > 0 {
				hx.Runs, hx.Check = false, CheckTrust
				hx.Reason = "awaiting approval: " + waiting[0].Reason + " (hookexec trust approve " + h.cfg.ID + ")"
				x.Runs--
				continue
			}
		}
		if once && h.cfg.Once && e.sessions.hasRun(session, h.cfg.ID) {
			hx.Runs, hx.Check = false, CheckOnce
			hx.Reason = fmt.Sprintf("once: already ran in session %q", session)
			x.Runs--
		}
	}
	return x
}

// hasRun reports whether "once" hook id already ran in session, without recording anything.
func (s *sessions) hasRun(session, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ran[session][id]
}

// explanation is an Explanation with the plan index of each hook.
type explanation struct {
	Explanation
	index []int
}

// explain judges every hook of ev against the payload. It mirrors selectHooks, which stays
// the fast path of Fire; a test checks that both choose the same hooks.
func (p *plan) explain(ev event.Info, doc *payload.Doc, cwd string) *explanation {
	x := &explanation{Explanation: Explanation{Event: ev.Name, Hooks: []HookExplanation{}}}
	for _, f := range ev.Subject {
		if doc.Has(f) {
			x.Subject, x.SubjectField = ev.SubjectOf(doc.String(f)), f
			break
		}
	}
	var tool, path string
	looked := false
	for i, h := range p.hooks {
		c := h.cfg
		hx := HookExplanation{ID: c.ID, Event: c.Event, Source: c.Source, Line: c.Line, Matcher: c.Matcher, Exec: h.exec()}
		switch {
		case h.event.Name != ev.Name:
			if h.event.Known || event.Suggest(c.Event) != ev.Name {
				continue
			}
			hx.Check, hx.Reason = CheckEvent, fmt.Sprintf("configured under %q, not %q: %s", c.Event, ev.Name, c.Disabled)
		case c.DuplicateOf != "":
			hx.Check, hx.Reason = CheckDuplicate, c.Disabled
		case p.set.DisableAll:
			hx.Check, hx.Reason = CheckDisableAll, "disableAllHooks is true"
		case c.Disabled != "" && byPolicy(c.Disabled):
			hx.Check, hx.Reason = CheckPolicy, c.Disabled
		case c.Disabled != "":
			hx.Check, hx.Reason = CheckDisabled, c.Disabled
		case !c.Match.Match(x.Subject):
			hx.Check, hx.Reason = CheckMatcher, fmt.Sprintf("matcher %s does not match %s", quoteMatcher(c.Matcher), subjectText(ev, x))
		default:
			hx.Check, hx.Runs = CheckMatcher, true
			hx.Reason = fmt.Sprintf("matcher %s matches %s", quoteMatcher(c.Matcher), subjectText(ev, x))
			if c.Filter != nil {
				if !looked {
					tool, path, looked = doc.String("tool_name"), filePath(doc), true
				}
				hx.Check = CheckFilter
				if c.Filter.Match(tool, path) {
					hx.Reason += fmt.Sprintf("; filter accepts tool %q, path %q", tool, path)
				} else {
					hx.Runs = false
					hx.Reason = fmt.Sprintf("filter (tool %s, path %s) rejects tool %q, path %q",
						listText(c.FilterTools), listText(c.FilterPaths), tool, path)
				}
			}
			if hx.Runs && len(c.FileEvents) > 0 {
				hx.Check = CheckFilter
				if ev := doc.String("event"); slices.Contains(c.FileEvents, ev) {
					hx.Reason += fmt.Sprintf("; file event %q is one of %s", ev, listText(c.FileEvents))
				} else {
					hx.Runs = false
					hx.Reason = fmt.Sprintf("file event %q is not one of %s", ev, listText(c.FileEvents))
				}
			}
			if hx.Runs && c.Rule != nil {
				hx.Check = CheckIf
				if c.Rule.Match(doc.String("tool_name"), toolInput(doc), cwd) {
					hx.Reason += fmt.Sprintf("; if %q holds", c.If)
				} else {
					hx.Runs = false
					hx.Reason = fmt.Sprintf("if %q does not hold for this %s call", c.If, doc.String("tool_name"))
				}
			}
		}
		if hx.Runs {
			x.Runs++
		}
		x.Hooks = append(x.Hooks, hx)
		x.index = append(x.index, i)
	}
	return x
}

// byPolicy reports whether a hook was turned off by managed settings (core/config's policy).
func byPolicy(reason string) bool {
	for _, s := range []string{"allowManagedHooksOnly", "allowedHttpHookUrls", "(managed hooks still run)"} {
		if strings.Contains(reason, s) {
			return true
		}
	}
	return false
}

func quoteMatcher(m string) string {
	if strings.TrimSpace(m) == "" || m == "*" {
		return "(match-all)"
	}
	return fmt.Sprintf("%q", m)
}

func subjectText(ev event.Info, x *explanation) string {
	switch {
	case !ev.TakesMatcher():
		return "(the event takes no matcher)"
	case x.SubjectField == "":
		return "(no " + strings.Join(ev.Subject, "/") + " in the payload)"
	}
	return fmt.Sprintf("%s %q", x.SubjectField, x.Subject)
}

func listText(l []string) string {
	if len(l) == 0 {
		return "any"
	}
	return strings.Join(l, ",")
}

// commandLine is what a job would run, for reading: the script of a shell command, the
// quoted argv of the others, the built-in's description, or the rendered prompt.
func commandLine(j *job) string {
	switch {
	case j.h.cfg.Type == "prompt":
		return j.prompt
	case j.h.cfg.Type == "policy":
		return policyLine(j.h.cfg.Policy, j.h.cfg.PolicyError)
	case len(j.argv) == 0 && !j.h.git() && j.h.cfg.Type != "git-commit":
		return j.h.command() // http, agent, mcp_tool and persistent hooks run no argv here
	case j.h.cfg.Type == "git-commit":
		flag := ""
		if j.h.cfg.NoVerify {
			flag = " --no-verify"
		}
		return "git add -A && git commit" + flag + " -m " + shellQuote(j.prompt)
	case j.h.git():
		return j.h.gitCommand()
	case len(j.argv) == 3 && j.argv[0] == "/bin/sh" && j.argv[1] == "-c" && j.h.exec() == "shell":
		return j.argv[2]
	}
	q := make([]string, len(j.argv))
	for i, a := range j.argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellQuote quotes s for reading as one shell word.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
