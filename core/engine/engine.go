// Package engine is hookexec's front: it opens a configuration, compiles it into a
// per-event index once, and fires events through it — match, render, run, decide — into one
// Result. An Engine is safe for concurrent use; Reload swaps the compiled configuration
// atomically, so a fire in flight finishes on the configuration it started with. Close
// waits for the calls in flight and the async hooks they started; every call that starts
// after Close began returns ErrClosed.
//
// It knows nothing about C or Python: capi/ and pybind/ wrap it.
package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/observe"
	"github.com/hookexec/hookexec/core/persist"
	"github.com/hookexec/hookexec/core/telemetry"
	"github.com/hookexec/hookexec/core/trust"
)

// Errors returned by the Engine's methods; test with errors.Is.
var (
	ErrInvalid = errors.New("hookexec: invalid argument") // bad event name, payload or options
	ErrConfig  = errors.New("hookexec: config")           // options name an unusable configuration
	ErrClosed  = errors.New("hookexec: engine is closed") // any call after Close
)

// Options configure an Engine. Every field is optional; the zero value means the default
// documented on the field. They decode from the options JSON of hookexec_open.
type Options struct {
	Profile    string `json:"profile"`     // "" means "cli-agent"
	ProjectDir string `json:"project_dir"` // "" means the current directory
	Home       string `json:"home"`        // "" means $HOME
	// Sources are explicit files replacing the profile's locations. Absent or null means the
	// profile's locations; [] means no files at all (only Config).
	Sources []string        `json:"sources"`
	Config  json.RawMessage `json:"config"` // an inline config object, highest precedence
	// ConfigDialect is the dialect Config is written in ("cursor", "gemini", ...); "" means
	// the profile's own for Claude Code's shape, else as detected from its shape.
	ConfigDialect string `json:"config_dialect"`
	// DefaultTimeoutMs replaces the profile's default hook timeout.
	DefaultTimeoutMs int `json:"default_timeout_ms"`
	KillGraceMs      int `json:"kill_grace_ms"`    // SIGTERM→SIGKILL grace; 0 means 1000
	MaxParallel      int `json:"max_parallel"`     // hooks of one fire running at once; 0 means 8
	OutputCapBytes   int `json:"output_cap_bytes"` // per stream; 0 means 32 KiB
	// CloseTimeoutMs bounds how long Close waits for async hooks before killing them; 0 means 5000.
	CloseTimeoutMs int               `json:"close_timeout_ms"`
	SessionID      string            `json:"session_id"`      // default session_id for payloads without one
	TranscriptPath string            `json:"transcript_path"` // put in the Claude stdin envelope
	Env            map[string]string `json:"env"`             // added to every hook's environment
	// Notifications announces every fire to the listener as a JSON-RPC 2.0 notification
	// (autohand). Unset means on when the profile or any loaded hook is autohand's.
	Notifications *bool `json:"notifications"`
	// Plugins are Claude Code plugin directories: each one's hooks/hooks.json is loaded,
	// its hooks tagged with the plugin in Config and given ${CLAUDE_PLUGIN_ROOT} and
	// ${CLAUDE_PLUGIN_DATA}.
	Plugins []string `json:"plugins"`
	// ManagedSettings is the managed policy settings file; "" means Claude Code's platform
	// location for the claude profile (/etc/claude-code/managed-settings.json on Linux) and
	// none for the others.
	ManagedSettings string `json:"managed_settings"`
	// AgentRuns lists source files whose hooks the agent runs itself (hookexec is the
	// agent's dispatcher): their settings apply but their hooks, and the managed
	// settings' hooks, do not run here. nil: every hook loaded runs.
	AgentRuns []string `json:"agent_runs"`
	// MaxStopBlocks caps consecutive blocked Stop fires per session; past it a block is
	// overridden with a warning. 0 means 8 (Claude Code's cap), -1 no cap.
	MaxStopBlocks int `json:"max_stop_blocks"`
	// Environ returns the host process's environment as it is now, as subprocess reads it:
	// every hook's environment starts from it at the moment of its fire (a persistent hook's
	// at the Open or Reload that configured it, since its process outlives fires). nil means
	// os.Environ. The C library passes the C environ, which a host's setenv (Python's
	// os.environ) changes and Go's own copy does not see. The engine never modifies the
	// slice it returns, so Environ may hand out one snapshot until the environment changes.
	Environ func() []string `json:"-"`
	// LogFile appends one JSON line per fire to this file (see log.go); "" means the file
	// named by $HOOKEXEC_LOG, and none when that is unset too.
	LogFile string `json:"log_file"`
	// Trust is "all" (every hook runs) or "project" (hooks from files inside the project
	// run only once approved). "" means the profile's default; see README "Trust".
	Trust string `json:"trust"`
	// TrustStore is the trust store file; "" means <home>/.config/hookexec/trust.json when
	// Home is set, else $XDG_CONFIG_HOME/hookexec/trust.json, else ~/.config/hookexec/trust.json.
	TrustStore string `json:"trust_store"`
	// BundleConfig is the policy bundle's configuration file (docs/policy.md, "Bundles");
	// "" means bundle.json beside the default trust store. When it exists, the bundle's
	// cached hooks load at managed precedence; "-" means no bundle.
	BundleConfig string `json:"bundle_config"`
	// AuditLog appends every decision to this hash-chained log (core/audit); "" means the
	// file named by $HOOKEXEC_AUDIT_LOG, and none when that is unset too. A relative path is
	// taken from ProjectDir.
	AuditLog string `json:"audit_log"`
	// AuditKeyFile holds the audit log's HMAC key (at least 16 bytes); "" means
	// $HOOKEXEC_AUDIT_KEY_FILE, and plain SHA-256 when that is unset too.
	AuditKeyFile string `json:"audit_key_file"`
	// AuditMaxBytes rotates the audit log before it grows past it; 0 means
	// $HOOKEXEC_AUDIT_MAX_BYTES, else 64 MiB; negative never rotates.
	AuditMaxBytes int64 `json:"audit_max_bytes"`
	// Sinks see every fire once it is decided (core/observe): telemetry, the audit log.
	// The engine closes them in Close.
	Sinks []observe.Sink `json:"-"`
	// SinkCloseTimeout bounds how long Close waits for the sinks to flush (telemetry's queued
	// spans, at most telemetry.FlushBound); 0 means the close timeout. A host whose close
	// timeout only kills hooks fast (hookexec adapt: one sync hook) sets it apart, so its
	// telemetry is not lost with the hooks' wait.
	SinkCloseTimeout time.Duration `json:"-"`
	// Telemetry exports every fire to OpenTelemetry (core/telemetry, docs/observability.md).
	// nil means the environment decides: on with HOOKEXEC_TELEMETRY=1, configured by the
	// OTEL_* variables.
	Telemetry *telemetry.Options `json:"telemetry"`
}

// ParseOptions decodes options JSON. Unknown fields are an error so that typos surface.
func ParseOptions(data []byte) (Options, error) {
	var o Options
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return o, fmt.Errorf("%w: options: %v", ErrInvalid, err)
	}
	if o.DefaultTimeoutMs < 0 || o.KillGraceMs < 0 || o.MaxParallel < 0 || o.OutputCapBytes < 0 || o.CloseTimeoutMs < 0 {
		return o, fmt.Errorf("%w: options: numbers must not be negative", ErrInvalid)
	}
	if o.MaxStopBlocks < -1 {
		return o, fmt.Errorf("%w: options: max_stop_blocks is a count, or -1 for no cap", ErrInvalid)
	}
	if err := o.Telemetry.Validate(); err != nil {
		return o, fmt.Errorf("%w: options: %v", ErrInvalid, err)
	}
	return o, nil
}

// Listener receives what happens outside a fire's return value: results of async hooks
// (kind "async") and notifications (kind "notification"). It is called from a goroutine of
// the engine, never while the engine holds a lock; it must not block for long.
type Listener func(kind string, data []byte)

// Engine fires events through a compiled configuration.
type Engine struct {
	opts        Options
	sinks       []observe.Sink  // Options.Sinks (observe.go)
	environ     func() []string // the host's environment now (Options.Environ)
	env         []string        // Options.Env, sorted: added after the host's environment
	grace       time.Duration
	cap         int
	maxParallel int // hooks of one fire running at once
	plan        atomic.Pointer[plan]
	reload      sync.Mutex      // serialises Reload
	gate        gate            // every public call passes it; Close shuts it and waits
	ctx         context.Context // cancelled when Close gives up waiting
	cancel      context.CancelFunc
	async       sync.WaitGroup
	mu          sync.Mutex // guards listener, evaluator, pending, notes, delivering
	listen      Listener
	eval        Evaluator
	pending     []string // piped output waiting for the next pre_iteration or Drain
	notes       []note   // notifications and status messages waiting for the listener, in order
	delivering  bool     // a goroutine is delivering notes
	sessions    sessions // per-session "once" record and Stop-block count
	// maxStopBlocks is the cap on consecutive blocked Stop fires; -1: none.
	maxStopBlocks int
	log           *fireLog      // nil: fires are not logged
	logWarning    string        // why $HOOKEXEC_LOG could not be opened
	telWarning    string        // why telemetry the environment asked for is off (telemetry.go)
	policy        trust.Policy  // its hasher caches script hashes by stat identity across reloads
	procs         *persist.Pool // processes of persistent hooks, kept across reloads
	readMu        sync.Mutex
	read          map[string]string // what getenv was asked and answered (EnvRead); guarded by readMu
}

// Open loads and compiles the configuration. Problems in config files are warnings in
// Config(); Open fails only for unusable options (ErrInvalid, ErrConfig).
func Open(o Options) (*Engine, error) {
	if o.ProjectDir != "" {
		abs, err := filepath.Abs(o.ProjectDir)
		if err != nil {
			return nil, fmt.Errorf("%w: project_dir: %v", ErrInvalid, err)
		}
		o.ProjectDir = abs
	} else {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("%w: project_dir: %v", ErrInvalid, err)
		}
		o.ProjectDir = wd
	}
	if err := o.Telemetry.Validate(); err != nil {
		return nil, fmt.Errorf("%w: options: %v", ErrInvalid, err)
	}
	e := &Engine{opts: o, grace: time.Second, cap: 32 << 10}
	e.environ = o.Environ
	if e.environ == nil {
		e.environ = os.Environ
	}
	for _, k := range slices.Sorted(maps.Keys(o.Env)) {
		e.env = append(e.env, k+"="+o.Env[k])
	}
	getenv := e.getenv()
	var err error
	if e.policy.Mode, err = trust.ResolveMode(o.Trust, getenv); err != nil {
		return nil, fmt.Errorf("%w: options: %v", ErrInvalid, err)
	}
	e.policy.Project, e.policy.Home, e.policy.Path = o.ProjectDir, e.home(), getenv("PATH")
	e.policy.Store.Path = o.TrustStore
	if e.policy.Store.Path == "" {
		e.policy.Store.Path = trust.DefaultPath(o.Home, getenv)
	} else if e.policy.Store.Path, err = filepath.Abs(e.policy.Store.Path); err != nil {
		return nil, fmt.Errorf("%w: trust_store: %v", ErrInvalid, err)
	}
	if o.KillGraceMs > 0 {
		e.grace = time.Duration(o.KillGraceMs) * time.Millisecond
	}
	if o.OutputCapBytes > 0 {
		e.cap = o.OutputCapBytes
	} else if prof, err := config.LookupProfile(o.Profile); err == nil && prof.OutputCap > 0 {
		e.cap = prof.OutputCap
	}
	n := o.MaxParallel
	if n == 0 {
		n = 8
	}
	e.maxParallel = n
	e.sinks = slices.Clip(o.Sinks)
	e.maxStopBlocks = o.MaxStopBlocks
	if e.maxStopBlocks == 0 {
		e.maxStopBlocks = DefaultMaxStopBlocks
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.procs = persist.NewPool()
	p, err := e.load()
	if err != nil {
		e.cancel()
		return nil, err
	}
	if e.log, e.logWarning, err = openLog(o); err != nil {
		e.cancel()
		return nil, err
	}
	if al, err := e.openAudit(); err != nil {
		e.log.close()
		e.cancel()
		return nil, err
	} else if al != nil {
		e.sinks = append(e.sinks, al)
	}
	e.plan.Store(p)
	e.keepPersistent(p)
	e.telWarning = e.openTelemetry() // last: nothing after it can fail and leak the sink
	return e, nil
}

func (e *Engine) load() (*plan, error) {
	co := config.Options{
		Profile:    e.opts.Profile,
		ProjectDir: e.opts.ProjectDir,
		Home:       e.opts.Home,
		Sources:    e.opts.Sources,
		Inline:     e.opts.Config,
		Plugins:    e.opts.Plugins,

		ManagedSettings: e.opts.ManagedSettings,
		AgentRuns:       e.opts.AgentRuns,
		Getenv:          e.getenv(),
	}
	if e.opts.ConfigDialect != "" {
		if co.InlineDialect = dialect.ByName(e.opts.ConfigDialect); co.InlineDialect == nil {
			return nil, fmt.Errorf("%w: config_dialect: unknown dialect %q", ErrInvalid, e.opts.ConfigDialect)
		}
	}
	co.Untrusted = e.policy.Untrusted()
	if e.opts.DefaultTimeoutMs > 0 {
		co.DefaultTimeout = time.Duration(e.opts.DefaultTimeoutMs) * time.Millisecond
	}
	if len(co.Inline) > 0 && string(bytes.TrimSpace(co.Inline)) == "null" {
		co.Inline = nil
	}
	bun := e.bundle()
	co.Bundle = bun.settings
	set, err := config.Load(co)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	bun.report(set)
	getenv := e.getenv()
	sessionEndDefaults(set, getenv)
	p := index(set)
	p.closed = bun.closed
	p.bundleConfig, p.bundlePresent = bun.config, bun.present
	p.notify = notifies(set, e.opts.Notifications)
	p.sessionEnd = sessionEndBudget(set, getenv)
	e.gateProjectHooks(p)
	e.attachPersistent(p)
	return p, nil
}

// Reload re-reads every source and swaps the configuration atomically. On error the old
// configuration stays in force.
func (e *Engine) Reload() error {
	if !e.gate.enter() {
		return ErrClosed
	}
	defer e.gate.leave()
	e.reload.Lock()
	defer e.reload.Unlock()
	p, err := e.load()
	if err != nil {
		return err
	}
	e.plan.Store(p)
	e.keepPersistent(p)
	return nil
}

// ReloadSources is Reload with new Sources and AgentRuns: a dispatcher whose sources are
// listed from directories (Cline's hook files) gives the list it finds now. On an error
// the engine keeps its configuration and its lists.
func (e *Engine) ReloadSources(sources, agentRuns []string) error {
	if !e.gate.enter() {
		return ErrClosed
	}
	defer e.gate.leave()
	e.reload.Lock()
	defer e.reload.Unlock()
	oldSources, oldRuns := e.opts.Sources, e.opts.AgentRuns
	e.opts.Sources, e.opts.AgentRuns = slices.Clone(sources), slices.Clone(agentRuns)
	p, err := e.load()
	if err != nil {
		e.opts.Sources, e.opts.AgentRuns = oldSources, oldRuns
		return err
	}
	e.plan.Store(p)
	e.keepPersistent(p)
	return nil
}

// SetListener registers fn for async results and notifications (nil removes it).
func (e *Engine) SetListener(fn Listener) error {
	if !e.gate.enter() {
		return ErrClosed
	}
	defer e.gate.leave()
	e.mu.Lock()
	e.listen = fn
	e.mu.Unlock()
	return nil
}

// Drain returns and clears the piped output waiting for the next pre_iteration: iteratr's
// final delivery, after its loop ends.
func (e *Engine) Drain() ([]string, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	return e.takePending(), nil
}

func (e *Engine) takePending() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.pending
	e.pending = nil
	return out
}

// Close stops accepting calls (they return ErrClosed from now on), waits up to
// close_timeout_ms for the calls in flight and the async hooks and notifications they
// started, then kills the hooks that still run, so their fires return at once. A second
// Close returns ErrClosed and does nothing else. Close must not be called from a listener
// or prompt evaluator of the same engine: it would wait for itself.
func (e *Engine) Close() error {
	if !e.gate.shut() {
		return ErrClosed
	}
	wait := e.closeTimeout()
	done := make(chan struct{})
	go func() {
		// Fires first: once none is in flight, nothing adds to async any more.
		e.gate.wait()
		e.async.Wait()
		close(done)
	}()
	timer := time.NewTimer(wait)
	select {
	case <-done:
		timer.Stop()
	case <-timer.C:
		e.cancel()
		<-done
	}
	e.cancel()
	e.procs.Close(wait)
	e.mu.Lock()
	e.listen, e.eval = nil, nil
	e.mu.Unlock()
	e.log.close()
	if e.opts.SinkCloseTimeout > 0 {
		wait = e.opts.SinkCloseTimeout
	}
	e.closeSinks(wait)
	return nil
}
