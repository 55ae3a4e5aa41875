// Package dispatch runs one native hook call of an agent through the engine: the agent's
// payload in, the agent's native answer out (core/native). A Dispatcher keeps one engine
// per agent, project, home, log file and the values of the variables the engine read
// (sessions share it; each call's hooks get that call's environment), reloads it when one of its files changes, and
// remembers per session what a PreToolUse rewrite replaced, so that the PostToolUse hooks
// of the same tool call receive the input the model asked for in OriginalInputField.
// The daemon holds one Dispatcher for all its connections; a dispatch without the daemon
// uses one for a single call (Once).
//
// It does not listen, connect or read stdin: the CLI and core/daemon carry requests.
package dispatch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/bundle"
	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/native"
	"github.com/hookexec/hookexec/core/nomatch"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// OriginalInputField is added to a PostToolUse payload (with the daemon) when a PreToolUse
// hook of the same tool call (same session_id and tool_use_id) rewrote the input: the
// tool_input as the model asked for it, before updatedInput replaced it. tool_input holds
// what ran.
const OriginalInputField = "original_tool_input"

// Request is one hook call of an agent.
type Request struct {
	Agent   string   `json:"agent"`
	Project string   `json:"project"` // "" means the payload's cwd
	Home    string   `json:"home"`
	Env     []string `json:"env"` // the environment the agent gave the hook, KEY=VALUE
	LogFile string   `json:"log_file"`
	// Scope is the dispatcher entry's scope ("user", "project") for an agent that runs
	// every scope's entry (native.Agent.Scoped: Copilot CLI, Cline, Factory Droid): only
	// that scope's hooks run. "" runs every scope's.
	Scope   string          `json:"scope,omitempty"`
	Payload json.RawMessage `json:"payload"`
	// Event is the event as the agent spells it, for an agent whose payloads do not name
	// it (native.Agent.SpelledEvents: Copilot CLI's camelCase ones); "" otherwise.
	Event string `json:"event,omitempty"`
}

// Reply is the native answer plus what the caller must apply on the agent's side.
type Reply struct {
	ExitCode int               `json:"exit_code"`
	Stdout   string            `json:"stdout"`
	Stderr   string            `json:"stderr"`
	Env      map[string]string `json:"env"` // exports for the agent's CLAUDE_ENV_FILE
}

// maxRewrites bounds the rewrites remembered per dispatcher; the oldest go first.
const maxRewrites = 4096

// Dispatcher runs requests on engines it keeps.
type Dispatcher struct {
	keep     bool // keep engines between requests (the daemon)
	mu       sync.Mutex
	engines  map[string][]*entry        // per group (agent, project, home, log file); see engine
	rewrites map[string]json.RawMessage // session\x00tool_use_id → original tool_input
	order    []string                   // rewrites keys, oldest first
	// indexDir and identity: where and for which build the no-match index of each engine
	// is written (IndexTo); "" writes none.
	indexDir, identity string
}

type entry struct {
	sources []string
	dirs    []string          // directories whose listing the sources depend on (native.Agent.Dirs)
	read    map[string]string // engine.EnvRead once loaded, nil before; guarded by Dispatcher.mu
	// whole is the hash of the environment the engine was opened with; perSession (the
	// engine's PerSession) makes a request match only with that same environment.
	// Guarded by Dispatcher.mu.
	whole      string
	perSession bool
	busy       int       // requests using it; guarded by Dispatcher.mu
	used       time.Time // last request; guarded by Dispatcher.mu
	load       sync.Mutex
	eng        *engine.Engine // guarded by load
	fresh      freshness      // the files the engine read, as last seen; guarded by load
	// gen counts the engine's loads; indexed is the gen whose no-match index is written
	// (or cannot be), tried at indexTry. Guarded by load.
	gen, indexed int
	indexTry     time.Time
}

// New makes a Dispatcher that keeps its engines (warm persistent hooks, per-session
// memory) until Close or CloseIdle.
func New() *Dispatcher {
	return &Dispatcher{keep: true, engines: map[string][]*entry{}, rewrites: map[string]json.RawMessage{}}
}

// IndexTo makes d write the no-match index (core/nomatch) of every engine it loads into
// dir, a private directory of this user, for the hookexec build identity: the C client
// reads it to answer calls no hook can match without the daemon. Call it before Dispatch.
func (d *Dispatcher) IndexTo(dir, identity string) { d.indexDir, d.identity = dir, identity }

// Once runs one request on an engine of its own and closes it (async hooks finish first).
// afterAnswer is called with the reply before the engine closes, so the agent's answer
// does not wait for async hooks.
func Once(req Request, afterAnswer func(Reply)) (Reply, error) {
	return OnceIndexed(req, "", "", afterAnswer)
}

// OnceIndexed is Once writing the engine's no-match index into indexDir (IndexTo).
func OnceIndexed(req Request, indexDir, identity string, afterAnswer func(Reply)) (Reply, error) {
	d := &Dispatcher{engines: map[string][]*entry{}, rewrites: map[string]json.RawMessage{}, indexDir: indexDir, identity: identity}
	r, err := d.Dispatch(req)
	if err == nil && afterAnswer != nil {
		afterAnswer(r)
	}
	d.Close()
	return r, err
}

// Dispatch runs one request. An error means no hook ran: the caller answers with Refuse.
func (d *Dispatcher) Dispatch(req Request) (Reply, error) {
	ag, err := native.Lookup(req.Agent)
	if err != nil {
		return Reply{}, err
	}
	if err := CheckEvent(ag, req.Event); err != nil {
		return Reply{}, err
	}
	raw := req.Payload
	if ag.SpelledEvents {
		if raw, err = readSpelled(ag, req.Event, raw); err != nil {
			return Reply{}, err
		}
	}
	doc, err := payload.Parse(raw)
	if err != nil {
		return Reply{}, err
	}
	defer doc.Release()
	event := ag.EventOf(doc.String)
	if event == "" {
		return Reply{}, fmt.Errorf("hookexec: the payload names no %s event", ag.Display)
	}
	if req.Scope != "" && req.Scope != native.User.String() && req.Scope != native.Project.String() {
		return Reply{}, fmt.Errorf("hookexec: unknown scope %q (user or project)", req.Scope)
	}
	if req.Scope != "" && !ag.Scoped {
		return Reply{}, fmt.Errorf("hookexec: a scope is for an agent that runs every scope's dispatcher entry; %s runs one", ag.Display)
	}
	project := req.Project
	if project == "" {
		project = projectOf(ag, doc)
	}
	if project == "" {
		return Reply{}, errors.New(`hookexec: no project: neither the agent's project dir nor the payload's`)
	}
	e, err := d.engine(ag, project, req)
	if err != nil {
		return Reply{}, err
	}
	defer d.release(e)
	root := doc.Root()
	data := raw
	key := rewriteKey(doc)
	if event == "PostToolUse" || event == "PostToolUseFailure" {
		if orig := d.takeRewrite(key); orig != nil {
			if data, err = withField(root, OriginalInputField, orig); err != nil {
				return Reply{}, err
			}
		}
	}
	env, call := perCall(req.Env)
	res, err := e.eng.FireAs(event, data, env, call)
	if err != nil {
		return Reply{}, err
	}
	if event == "PreToolUse" && res.UpdatedInput != nil && d.keep && key != "" {
		if in := root.Get("tool_input"); in != nil {
			d.remember(key, payload.AppendJSON(nil, in))
		}
	}
	if event == "SessionEnd" {
		d.forgetSession(doc.String("session_id"))
	}
	ans := ag.Answer(res)
	return Reply{ExitCode: ans.ExitCode, Stdout: string(ans.Stdout), Stderr: string(ans.Stderr), Env: res.Env}, nil
}

// projectOf is the project a payload names: the first string of the agent's
// ProjectField array (Cline's workspaceRoots), else its "cwd".
func projectOf(ag *native.Agent, doc *payload.Doc) string {
	if ag.ProjectField == "" {
		return doc.String("cwd")
	}
	if v := doc.Root().Get(ag.ProjectField, "0"); v != nil && v.Type() == fastjson.TypeString {
		return string(v.GetStringBytes())
	}
	return ""
}

// withField is the payload root with key set to the JSON value raw, as JSON text. root
// points into a released document afterwards: it must not be read again.
func withField(root *fastjson.Value, key string, raw []byte) ([]byte, error) {
	wrap, err := payload.Parse(append(append([]byte(`{"v":`), raw...), '}'))
	if err != nil {
		return nil, err
	}
	defer wrap.Release()
	root.Set(key, wrap.Root().Get("v"))
	return payload.AppendJSON(nil, root), nil
}

// The two answers to a call whose hooks did not run here: Lost (the daemon read it and
// never answered: its hooks may have run) and Refuse (it could not be run: a payload that
// cannot be read, a configuration that cannot be loaded). Either way a guard did not get its
// say, so an event that can block is blocked, in the agent's own form, with the reason; an
// event that cannot block gets a non-blocking error (exit 1), as a broken hook does; and a
// payload whose event cannot be told gets exit 2 with the reason on stderr, the block every
// supported agent reads on every event that can block. The event is read from the payload's
// top level even when the rest of it cannot be parsed (payload.TopString).

// LostMessage begins the reason Lost gives.
const LostMessage = "hookexec: the daemon dropped this hook call before answering; its hooks may have run, so they were not run again"

// Lost is the answer to a call the daemon read but never answered (it died, or the
// connection dropped while the hooks ran). Its hooks may have run, some of them perhaps
// not idempotent, so they are not run again; and a deny one of them gave must not be lost.
func Lost(req Request) Reply { return failClosed(req, LostMessage) }

// Refuse is the answer to a call Dispatch returned err for: no hook ran.
func Refuse(req Request, err error) Reply {
	return failClosed(req, "hookexec: the hooks of this call could not run: "+strings.TrimPrefix(err.Error(), "hookexec: "))
}

func failClosed(req Request, msg string) Reply {
	ag, err := native.Lookup(req.Agent)
	name := ""
	if err == nil {
		name = ag.EventOf(func(key string) string { return payload.TopString(req.Payload, key) })
		// An agent whose payloads do not name their event reads the answer as the entry's
		// event's (--event): a payload claiming another must not choose a laxer answer.
		if ag.SpelledEvents {
			name = ""
			if e, ok := vocab.EventOf(ag.Name, req.Event); ok && CheckEvent(ag, req.Event) == nil {
				name = e.Canonical
			}
		}
	}
	ev := event.Lookup(name)
	switch {
	case err != nil || name == "" || !ev.Known && !ev.CanBlock:
		msg += "; blocked to be safe (the event cannot be told)"
		return Reply{ExitCode: 2, Stderr: msg + "\n"}
	case !ev.CanBlock:
		return Reply{ExitCode: 1, Stderr: msg + "\n"}
	}
	msg += "; blocked to be safe"
	ans := ag.Answer(&engine.Result{Event: ev.Name, Blocked: true, Decision: "deny", Reason: msg, Continue: true})
	stderr := string(ans.Stderr)
	if !strings.Contains(stderr, msg) {
		stderr += msg + "\n"
	}
	return Reply{ExitCode: ans.ExitCode, Stdout: string(ans.Stdout), Stderr: stderr}
}

func rewriteKey(doc *payload.Doc) string {
	s, id := doc.String("session_id"), doc.String("tool_use_id")
	if id == "" {
		return ""
	}
	return s + "\x00" + id
}

func (d *Dispatcher) remember(key string, orig []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.rewrites[key]; !ok {
		d.order = append(d.order, key)
	}
	d.rewrites[key] = orig
	for len(d.order) > maxRewrites {
		delete(d.rewrites, d.order[0])
		d.order = d.order[1:]
	}
}

func (d *Dispatcher) takeRewrite(key string) []byte {
	if key == "" {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	orig := d.rewrites[key]
	delete(d.rewrites, key)
	return orig
}

func (d *Dispatcher) forgetSession(session string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	prefix := session + "\x00"
	kept := d.order[:0]
	for _, k := range d.order {
		if strings.HasPrefix(k, prefix) {
			delete(d.rewrites, k)
		} else {
			kept = append(kept, k)
		}
	}
	d.order = kept
}

// engine returns the entry for the request, loaded from its files as they are now, and
// marked busy until release. The engine fires concurrently; a reload swaps its
// configuration without disturbing fires in flight.
//
// Engines are kept per agent, project, home and log file (the group), and within a group
// per the values of the variables the engine read while loading (engine.EnvRead): a
// request takes the group's engine whose values its environment has, else opens one. So
// an agent's sessions, whose environments differ in variables no configuration reads,
// share one engine and its persistent processes, while a different trust mode, system
// settings path or audit log gets an engine of its own. An engine with a hook declared
// "persistent": "session" (engine.PerSession) is shared only by requests of the very
// environment it was opened with.
func (d *Dispatcher) engine(ag *native.Agent, project string, req Request) (*entry, error) {
	env, _ := perCall(req.Env)
	sources := ag.SourcesEnv(project, req.Home, req.Scope, func(k string) string { v, _ := lookupEnv(env, k); return v })
	h := sha256.New()
	// The scope (a scope's entry runs other hooks) and the sources (Copilot CLI's depend on
	// the agent's $COPILOT_HOME).
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s", ag.Name, project, req.Home, req.LogFile, req.Scope, strings.Join(sources, "\x00"))
	group := hex.EncodeToString(h.Sum(nil))
	whole := sync.OnceValue(func() string { return wholeEnv(env) }) // only per-session engines need it
	for {
		e, err := d.engineOnce(ag, project, group, sources, env, whole, req)
		if e != nil || err != nil {
			return e, err
		}
		// The engine reloaded and now reads a variable this request has another value of.
	}
}

// engineOnce is engine's one try: nil, nil when the entry it took no longer matches env.
func (d *Dispatcher) engineOnce(ag *native.Agent, project, group string, sources, env []string, whole func() string, req Request) (*entry, error) {
	d.mu.Lock()
	var e *entry
	for _, c := range d.engines[group] {
		if c.read != nil && matches(c.read, env) && (!c.perSession || c.whole == whole()) {
			e = c
			break
		}
	}
	if e == nil {
		e = &entry{sources: sources, dirs: ag.Dirs(project, req.Home), whole: whole()}
		d.engines[group] = append(d.engines[group], e)
	}
	e.busy++
	e.used = time.Now()
	d.mu.Unlock()
	e.load.Lock()
	defer e.load.Unlock()
	if e.fresh.paths == nil {
		// bundle.json too, present or not: writing it reloads the engine with the bundle;
		// and the directories the sources are listed from (their listing is hashed).
		e.fresh.paths = append(append(slices.Clip(e.sources), BundleConfig(req)), e.dirs...)
	}
	changed := e.fresh.check()
	if changed && e.eng != nil && len(e.dirs) > 0 {
		if now := ag.Sources(project, req.Home); !slices.Equal(now, e.sources) {
			// A file was moved into or out of a listed directory: the engine loads the
			// new list (sources is read under e.load only).
			if err := e.eng.ReloadSources(now, ag.SettingsOutside(req.Scope, project, req.Home)); err != nil {
				d.release(e)
				return nil, err
			}
			e.sources = now
			e.fresh = freshness{paths: append(append(slices.Clip(now), BundleConfig(req)), e.dirs...)}
			e.fresh.check()
			changed = false
			if !d.reloaded(e, env, whole) {
				return nil, nil
			}
		}
	}
	switch {
	case e.eng == nil:
		envMap := map[string]string{}
		for _, kv := range env {
			if k, v, ok := strings.Cut(kv, "="); ok {
				envMap[k] = v
			}
		}
		eng, err := engine.Open(engine.Options{Profile: ag.Profile, ProjectDir: project, Home: req.Home,
			Sources: e.sources, AgentRuns: ag.SettingsOutside(req.Scope, project, req.Home), Env: envMap, LogFile: req.LogFile})
		if err != nil {
			d.drop(group, e)
			return nil, err
		}
		e.eng = eng
		e.gen++
		e.watch(eng)
		if twin := d.settle(group, e, eng.EnvRead(), eng.PerSession()); twin != nil {
			// Another request opened the same engine meanwhile: keep one. Nothing has
			// fired on this one, so no persistent process started.
			_ = eng.Close()
			e.eng = nil
			return nil, nil
		}
	case changed:
		if err := e.eng.Reload(); err != nil {
			d.release(e)
			return nil, err
		}
		if !d.reloaded(e, env, whole) {
			return nil, nil
		}
	}
	d.writeIndex(e, ag, project, req.Home, req.Scope, env)
	return e, nil
}

// reloaded records a reload of e's engine (e.load held): a new generation, the watch, the
// variables it reads now. false, e released, when the call's environment no longer
// selects this engine: the caller looks again.
func (d *Dispatcher) reloaded(e *entry, env []string, whole func() string) bool {
	e.gen++
	e.watch(e.eng)
	d.mu.Lock()
	e.read, e.perSession = e.eng.EnvRead(), e.eng.PerSession()
	ok := matches(e.read, env) && (!e.perSession || e.whole == whole())
	d.mu.Unlock()
	if !ok {
		d.release(e)
	}
	return ok
}

// indexRetry is how long after a try that found the files unsettled the next one is made.
const indexRetry = 250 * time.Millisecond

// writeIndex writes e's no-match index once per load, when d writes them (IndexTo);
// e.load held. Files changed too recently are tried again on a later call.
func (d *Dispatcher) writeIndex(e *entry, ag *native.Agent, project, home, scope string, env []string) {
	if d.indexDir == "" || e.indexed == e.gen || time.Since(e.indexTry) < indexRetry {
		return
	}
	e.indexTry = time.Now()
	nm, err := e.eng.NoMatch()
	if err == nil && ag.SpelledEvents {
		nm = spelledIndex(ag, nm, env)
	}
	if err == nil {
		for _, dir := range e.dirs {
			nm.Files = append(nm.Files, config.SourceInfo{Path: dir, Status: nomatch.DirStatus})
		}
		err = nomatch.Write(d.indexDir, d.identity, nomatch.Key{Agent: ag.Name, Project: project, Home: home, Scope: scope}, nm,
			func(r *engine.Result) (int, []byte, []byte) {
				ans := ag.Answer(r)
				return ans.ExitCode, ans.Stdout, ans.Stderr
			})
	}
	if !errors.Is(err, nomatch.ErrUnsettled) {
		e.indexed = e.gen
	}
}

// settle records what the new engine of e read, unless the group already has a loaded
// engine that read the same (and, per session, was opened with the same environment):
// then e leaves the group and that one is returned.
func (d *Dispatcher) settle(group string, e *entry, read map[string]string, perSession bool) *entry {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.engines[group] {
		if c != e && c.read != nil && maps.Equal(c.read, read) && c.perSession == perSession && (!perSession || c.whole == e.whole) {
			d.remove(group, e)
			e.busy--
			return c
		}
	}
	e.read, e.perSession = read, perSession
	return nil
}

// wholeEnv is the hash of an environment (KEY=VALUE entries) in any order.
func wholeEnv(env []string) string {
	sorted := slices.Sorted(slices.Values(env))
	h := sha256.New()
	for _, kv := range sorted {
		h.Write([]byte(kv))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// drop releases e, which failed to open, and takes it out of its group.
func (d *Dispatcher) drop(group string, e *entry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e.busy--
	d.remove(group, e)
}

// remove takes e out of its group; d.mu held.
func (d *Dispatcher) remove(group string, e *entry) {
	rest := slices.DeleteFunc(d.engines[group], func(c *entry) bool { return c == e })
	if len(rest) == 0 {
		delete(d.engines, group)
	} else {
		d.engines[group] = rest
	}
}

// matches says whether env (KEY=VALUE entries) gives every variable of read the value the
// engine read; a variable env lacks is read from this process, as the engine would.
func matches(read map[string]string, env []string) bool {
	for k, v := range read {
		got, ok := lookupEnv(env, k)
		if !ok {
			got = os.Getenv(k)
		}
		if got != v {
			return false
		}
	}
	return true
}

func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// perCallVars are the agent's variables that belong to one call, not to the engine: the
// trace context an agent passes each tool call (W3C's TRACEPARENT and TRACESTATE). Keyed
// into the engine, each call would open an engine of its own (cold persistent hooks, no
// per-session memory); they go to the fire instead (engine.FireEnv).
var perCallVars = map[string]bool{"TRACEPARENT": true, "TRACESTATE": true}

// perCall splits the request's environment into the engine's part and the call's.
func perCall(env []string) (kept, call []string) {
	kept = make([]string, 0, len(env))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); perCallVars[k] {
			call = append(call, kv)
		} else {
			kept = append(kept, kv)
		}
	}
	return kept, call
}

// watch adds the files the engine read beyond its sources (the managed policy settings)
// to those checked before each call, taking their state as of now as the loaded one.
func (e *entry) watch(eng *engine.Engine) {
	rep, err := eng.Config()
	if err != nil {
		return
	}
	added := false
	for _, src := range rep.Sources {
		if !slices.Contains(e.fresh.paths, src.Path) {
			e.fresh.paths = append(slices.Clip(e.fresh.paths), src.Path)
			added = true
		}
	}
	if added {
		e.fresh.settled = false
		e.fresh.check()
	}
}

func (d *Dispatcher) release(e *entry) {
	d.mu.Lock()
	e.busy--
	e.used = time.Now()
	d.mu.Unlock()
}

// Engines is the number of engines kept.
func (d *Dispatcher) Engines() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, g := range d.engines {
		n += len(g)
	}
	return n
}

// CloseIdle closes the engines no request used for longer than idle (their persistent
// hooks stop).
func (d *Dispatcher) CloseIdle(idle time.Duration) {
	d.mu.Lock()
	var stale []*entry
	for k, g := range d.engines {
		kept := make([]*entry, 0, len(g))
		for _, e := range g {
			if e.busy == 0 && time.Since(e.used) > idle {
				stale = append(stale, e)
			} else {
				kept = append(kept, e)
			}
		}
		if len(kept) == 0 {
			delete(d.engines, k)
		} else {
			d.engines[k] = kept
		}
	}
	d.mu.Unlock()
	closeAll(stale)
}

// Close closes every engine (async hooks finish, persistent hooks stop).
func (d *Dispatcher) Close() {
	d.mu.Lock()
	var all []*entry
	for _, g := range d.engines {
		all = append(all, g...)
	}
	d.engines = map[string][]*entry{}
	d.mu.Unlock()
	closeAll(all)
}

func closeAll(es []*entry) {
	for _, e := range es {
		e.load.Lock()
		if e.eng != nil {
			_ = e.eng.Close()
		}
		e.load.Unlock()
	}
}

// BundleConfig is the bundle.json the request's engine reads: the default place for its
// home, or (no home) for the environment the agent gave, then this process's.
func BundleConfig(req Request) string {
	return bundle.ConfigPath(req.Home, func(key string) string {
		for i := len(req.Env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(req.Env[i], "="); ok && k == key {
				return v
			}
		}
		return os.Getenv(key)
	})
}
