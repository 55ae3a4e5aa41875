// Package bundle is what every engine knows of a team's policy bundle: where its
// configuration is (bundle.json), what it says (the URL, the verification key, the poll
// interval, what to do before the first fetch), and where the last good bundle is kept
// (the cache: the verified bundle unpacked, and its hooks as a settings file that the
// engine loads at managed precedence).
//
// It does not fetch, verify or unpack anything, and it imports no part of OPA: that is
// core/bundle/fetch's job, run by the daemon and the CLI. Engines, libhookexec included,
// only read the files fetch wrote after verifying them, so an embedder that never uses
// bundles pays for a stat and nothing else.
package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ConfigName is the bundle configuration's file name in hookexec's config directory.
const ConfigName = "bundle.json"

// Algorithms are the signature algorithms a Config may name (OPA's bundle signing).
var Algorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "HS256", "HS384", "HS512"}

// Defaults of Config's optional fields.
const (
	DefaultPollInterval = time.Minute
	MinPollInterval     = time.Second
	DefaultAlgorithm    = "RS256"
	DefaultKeyID        = "hookexec"
	OnMissingClosed     = "closed"
	OnMissingOpen       = "open"
)

// Config is bundle.json. Every field but URL and PublicKey is optional; the zero value
// means the default given per field.
type Config struct {
	// URL is the bundle's http(s) address; the server answers a GET with the .tar.gz.
	URL string `json:"url"`
	// PublicKey verifies the bundle's signature: a PEM public key (or certificate) for the
	// RS*, PS* and ES* algorithms, the shared secret for HS*. A value that does not start
	// with "-----BEGIN" and names a file (relative to bundle.json's directory) is that
	// file's content.
	PublicKey string `json:"public_key"`
	// Algorithm is the signature algorithm the key verifies; "" means RS256. The bundle's
	// JWT header does not choose it.
	Algorithm string `json:"algorithm"`
	// KeyID is the key's id in OPA's verification config; "" means "hookexec". Any id in
	// the signature's header is ignored: this key verifies.
	KeyID string `json:"key_id"`
	// Scope must equal the signature's scope claim; "" means the signature has none.
	Scope string `json:"scope"`
	// PollInterval is how often the daemon asks the server (a Go duration); "" means 1m,
	// and less than 1s is an error.
	PollInterval string `json:"poll_interval"`
	// OnMissing is what engines do while no bundle has been fetched yet: "closed" (the
	// default) blocks every fire that can stop an action, "open" runs without the bundle.
	OnMissing string `json:"on_missing"`
	// CacheDir keeps the last good bundle; "" means "bundle" beside bundle.json. A
	// relative path is relative to bundle.json's directory.
	CacheDir string `json:"cache_dir"`
	// Headers are added to every request (an Authorization header, for example).
	Headers map[string]string `json:"headers"`

	path string // the file this was read from
}

// ConfigPath is bundle.json's default place: <home>/.config/hookexec/bundle.json when home
// is set, else $XDG_CONFIG_HOME/hookexec/bundle.json, else $HOME/.config/hookexec/bundle.json
// (the trust store's directory). getenv reads the host's environment.
func ConfigPath(home string, getenv func(string) string) string {
	if home == "" {
		if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
			return filepath.Join(x, "hookexec", ConfigName)
		}
		home = getenv("HOME")
	}
	return filepath.Join(home, ".config", "hookexec", ConfigName)
}

// ErrConfig wraps every problem of a bundle.json that exists.
var ErrConfig = errors.New("hookexec: bundle config")

// LoadConfig reads bundle.json at path. It returns nil and no error when the file does not
// exist (no bundle is configured).
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return ParseConfig(path, data)
}

// ParseConfig decodes and checks bundle.json's content; path is where it lives (relative
// key files and cache directories start at its directory).
func ParseConfig(path string, data []byte) (*Config, error) {
	c := &Config{path: path}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	return c, nil
}

func (c *Config) check() error {
	switch {
	case c.URL == "":
		return errors.New(`"url" is required`)
	case !hasPrefix(c.URL, "https://") && !hasPrefix(c.URL, "http://"):
		return fmt.Errorf(`"url" %q is not an http(s) URL`, c.URL)
	case c.PublicKey == "":
		return errors.New(`"public_key" is required: a bundle is verified or refused`)
	case c.OnMissing != "" && c.OnMissing != OnMissingClosed && c.OnMissing != OnMissingOpen:
		return fmt.Errorf(`"on_missing" is %q; want "closed" or "open"`, c.OnMissing)
	}
	known := false
	for _, a := range Algorithms {
		known = known || a == c.Alg()
	}
	if !known {
		return fmt.Errorf(`"algorithm" %q is not one of %v`, c.Algorithm, Algorithms)
	}
	if c.PollInterval != "" {
		d, err := time.ParseDuration(c.PollInterval)
		if err != nil {
			return fmt.Errorf(`"poll_interval": %v`, err)
		}
		if d < MinPollInterval {
			return fmt.Errorf(`"poll_interval" %s is below %s`, d, MinPollInterval)
		}
	}
	return nil
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// Path is the file the configuration was read from.
func (c *Config) Path() string { return c.path }

// Alg is the signature algorithm, defaulted.
func (c *Config) Alg() string {
	if c.Algorithm == "" {
		return DefaultAlgorithm
	}
	return c.Algorithm
}

// KID is the key id, defaulted.
func (c *Config) KID() string {
	if c.KeyID == "" {
		return DefaultKeyID
	}
	return c.KeyID
}

// Interval is the poll interval, defaulted.
func (c *Config) Interval() time.Duration {
	if d, err := time.ParseDuration(c.PollInterval); err == nil && d >= MinPollInterval {
		return d
	}
	return DefaultPollInterval
}

// Closed reports whether engines block while no bundle has been fetched.
func (c *Config) Closed() bool { return c.OnMissing != OnMissingOpen }

// Key is the verification key's text: PublicKey itself, or the file it names.
func (c *Config) Key() (string, error) {
	if hasPrefix(c.PublicKey, "-----BEGIN") {
		return c.PublicKey, nil
	}
	p := c.rel(c.PublicKey)
	if data, err := os.ReadFile(p); err == nil {
		return string(data), nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: public_key %s: %v", ErrConfig, p, err)
	}
	return c.PublicKey, nil
}

// Cache is the cache directory.
func (c *Config) Cache() string {
	if c.CacheDir == "" {
		return filepath.Join(filepath.Dir(c.path), "bundle")
	}
	return c.rel(c.CacheDir)
}

func (c *Config) rel(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(c.path), p)
}
