package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// The cache directory's layout. Current is a symbolic link to the active revision's
// directory, replaced by a rename, so a reader sees the old bundle or the new one whole.
// A revision directory holds the bundle's .rego modules at their paths in the bundle, the
// bundle as served (Archive) and its hooks (Settings), a Claude-shaped settings file.
const (
	Current  = "current"
	Settings = "settings.json"
	Archive  = "bundle.tar.gz"
	State    = "state.json"
	Lock     = "lock"
)

// SettingsKey is where the team's settings live in the bundle's data: the file
// hookexec/data.json holds {"settings": {...}}, a Claude Code settings object ("hooks",
// "disableAllHooks", "allowManagedHooksOnly", ...).
var SettingsKey = []string{"hookexec", "settings"}

// StampKey is the settings file's top-level key naming the revision it came from, so that
// a new revision with the same hooks (new .rego only) still changes the file engines watch.
const StampKey = "hookexecBundle"

// SettingsPath is the active bundle's settings file, through the Current link.
func (c *Config) SettingsPath() string { return filepath.Join(c.Cache(), Current, Settings) }

// Status is state.json: what the last checks found. Times are UTC; zero means never.
type Status struct {
	URL      string `json:"url"`
	Revision string `json:"revision"` // the active bundle's manifest revision; "" none yet
	ETag     string `json:"etag"`     // the server's ETag of the active bundle
	SHA256   string `json:"sha256"`   // of the active bundle's .tar.gz
	Dir      string `json:"dir"`      // the active revision's directory name in the cache
	// FetchedAt is when the active bundle was downloaded; CheckedAt when the server last
	// answered (200 or 304); TriedAt when it was last asked.
	FetchedAt time.Time `json:"fetched_at"`
	CheckedAt time.Time `json:"checked_at"`
	TriedAt   time.Time `json:"tried_at"`
	// LastError is why the last check did not succeed (server down, a refused bundle); ""
	// when it did. LastErrorAt is when.
	LastError   string    `json:"last_error"`
	LastErrorAt time.Time `json:"last_error_at"`
	// RolledBackFrom is the revision replaced when the server served one seen before;
	// "" when the last change went forward.
	RolledBackFrom string `json:"rolled_back_from"`
	// Seen lists the revisions applied, oldest first (at most 32): how a rollback is told.
	Seen []string `json:"seen"`
}

// ReadStatus reads the cache's state.json; a missing file is the zero Status.
func (c *Config) ReadStatus() (Status, error) {
	var s Status
	data, err := os.ReadFile(filepath.Join(c.Cache(), State))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("hookexec: bundle state %s: %v", filepath.Join(c.Cache(), State), err)
	}
	return s, nil
}

// Active reports whether the cache holds a bundle engines can load.
func (c *Config) Active() bool {
	_, err := os.Stat(c.SettingsPath())
	return err == nil
}

// ClosedReason is what engines answer while they block for want of a bundle.
func (c *Config) ClosedReason() string {
	return fmt.Sprintf("hookexec: blocked until the policy bundle from %s is fetched (on_missing is closed in %s; see `hookexec status`)", c.URL, c.path)
}

// Report is what `hookexec status --bundle` shows of one bundle.json.
type Report struct {
	Config       string `json:"config"`     // bundle.json's path
	Configured   bool   `json:"configured"` // it exists
	Error        string `json:"error"`      // it does not read, or its state.json does not
	URL          string `json:"url"`
	OnMissing    string `json:"on_missing"`
	PollInterval string `json:"poll_interval"`
	Cache        string `json:"cache"`
	Active       bool   `json:"active"` // a verified bundle is cached: engines load it
	State        Status `json:"state"`
}

// Describe reports on the bundle.json at path and its cache.
func Describe(path string) Report {
	r := Report{Config: path}
	c, err := LoadConfig(path)
	if err != nil {
		r.Configured, r.Error = true, err.Error()
		return r
	}
	if c == nil {
		return r
	}
	r.Configured, r.URL, r.Cache, r.Active = true, c.URL, c.Cache(), c.Active()
	r.PollInterval = c.Interval().String()
	r.OnMissing = OnMissingClosed
	if !c.Closed() {
		r.OnMissing = OnMissingOpen
	}
	if r.State, err = c.ReadStatus(); err != nil {
		r.Error = err.Error()
	}
	return r
}
