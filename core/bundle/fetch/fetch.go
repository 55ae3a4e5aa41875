// Package fetch keeps the last good policy bundle in core/bundle's cache: it asks the
// configured server for the bundle (If-None-Match with the ETag it has), verifies the
// answer with OPA's bundle reader (github.com/open-policy-agent/opa/v1/bundle: the
// .signatures.json JWT against the configured key, then every file's digest), unpacks it
// into a new revision directory and switches the cache's "current" link to it.
//
// A bundle that fails any step (unsigned, signed by another key, a file changed after
// signing, no hookexec settings, settings that do not read) is refused and the last good
// one stays, as it does when the server cannot be reached: the error is in the cache's
// state.json for `hookexec status`. A signed bundle of a revision seen before is applied,
// as OPA does (revisions are opaque strings: the server's answer is the team's choice),
// and recorded as a rollback in the state.
//
// It is for the daemon and the CLI; engines only read the cache (core/bundle).
package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	opabundle "github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/keys"

	"github.com/hookexec/hookexec/core/atomicfile"
	"github.com/hookexec/hookexec/core/bundle"
	"github.com/hookexec/hookexec/core/dialect"
)

// MaxSize bounds a bundle's .tar.gz and each file in it.
const MaxSize = 32 << 20

// Timeout bounds one check when the caller's context has no deadline.
const Timeout = 30 * time.Second

// maxSeen is how many applied revisions the state remembers to tell a rollback.
const maxSeen = 32

// ErrRefused wraps every reason a served bundle was not applied.
var ErrRefused = errors.New("hookexec: bundle refused")

// Check asks the server once and updates the cache and its state.json. The error says why
// the check did not succeed (unreachable, refused); the cache's active bundle is then the
// one before. client nil means http.DefaultClient.
func Check(ctx context.Context, c *bundle.Config, client *http.Client) (bundle.Status, error) {
	if client == nil {
		client = http.DefaultClient
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, Timeout)
		defer cancel()
	}
	dir := c.Cache()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return bundle.Status{}, fmt.Errorf("hookexec: bundle cache: %w", err)
	}
	unlock, err := lock(filepath.Join(dir, bundle.Lock))
	if err != nil {
		return bundle.Status{}, fmt.Errorf("hookexec: bundle cache lock: %w", err)
	}
	defer unlock()
	st, err := c.ReadStatus()
	if err != nil {
		st = bundle.Status{} // unreadable state: start over; the next install rewrites it
	}
	now := time.Now().UTC()
	st.TriedAt = now
	err = check(ctx, c, client, &st, now)
	if err != nil {
		st.LastError, st.LastErrorAt = err.Error(), now
	} else {
		st.LastError, st.CheckedAt = "", now
	}
	data, _ := json.MarshalIndent(st, "", "  ")
	if werr := atomicfile.Write(filepath.Join(dir, bundle.State), append(data, '\n'), 0o600); werr != nil && err == nil {
		err = fmt.Errorf("hookexec: bundle state: %w", werr)
	}
	return st, err
}

func check(ctx context.Context, c *bundle.Config, client *http.Client, st *bundle.Status, now time.Time) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL, nil)
	if err != nil {
		return fmt.Errorf("hookexec: bundle fetch: %w", err)
	}
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	active := c.Active()
	if active && st.ETag != "" && st.URL == c.URL {
		req.Header.Set("If-None-Match", st.ETag)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("hookexec: bundle fetch: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && active:
		return nil
	case resp.StatusCode == http.StatusNotModified:
		return fmt.Errorf("hookexec: bundle fetch: %s answered 304 Not Modified, but no bundle is cached", c.URL)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("hookexec: bundle fetch: %s answered %s", c.URL, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxSize+1))
	if err != nil {
		return fmt.Errorf("hookexec: bundle fetch: %w", err)
	}
	if len(body) > MaxSize {
		return fmt.Errorf("%w: larger than %d bytes", ErrRefused, MaxSize)
	}
	sum := sha256.Sum256(body)
	hexSum := hex.EncodeToString(sum[:])
	b, err := verify(c, body)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	rev := b.Manifest.Revision
	settings, err := settingsOf(&b, c.URL, rev, hexSum)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	etag := resp.Header.Get("ETag")
	if active && hexSum == st.SHA256 && st.URL == c.URL {
		st.ETag = etag // the same bundle (a server without ETags, or a new ETag for it)
		return nil
	}
	name, err := install(c.Cache(), &b, body, settings, hexSum)
	if err != nil {
		return fmt.Errorf("hookexec: bundle cache: %w", err)
	}
	previous := st.Dir
	st.RolledBackFrom = ""
	if st.Revision != rev && slices.Contains(st.Seen, rev) {
		st.RolledBackFrom = st.Revision
	}
	st.Seen = append(slices.DeleteFunc(st.Seen, func(s string) bool { return s == rev }), rev)
	if len(st.Seen) > maxSeen {
		st.Seen = st.Seen[len(st.Seen)-maxSeen:]
	}
	st.URL, st.Revision, st.ETag, st.SHA256, st.Dir, st.FetchedAt = c.URL, rev, etag, hexSum, name, now
	prune(c.Cache(), name, previous)
	return nil
}

// verify reads the .tar.gz with OPA's reader: the signature must verify with the
// configured key (the algorithm is the configuration's, never the JWT header's) and
// every file must match its signed digest; a bundle without .signatures.json is refused.
func verify(c *bundle.Config, body []byte) (opabundle.Bundle, error) {
	key, err := c.Key()
	if err != nil {
		return opabundle.Bundle{}, err
	}
	kc := map[string]*keys.Config{c.KID(): {Key: key, Algorithm: c.Alg()}}
	vc := opabundle.NewVerificationConfig(kc, c.KID(), c.Scope, nil)
	return opabundle.NewReader(bytes.NewReader(body)).
		WithBundleVerificationConfig(vc).
		WithSizeLimitBytes(MaxSize).
		Read()
}

// settingsOf is the settings file written for engines: the bundle's hookexec settings,
// stamped with the revision, after checking that they read as Claude Code settings.
func settingsOf(b *opabundle.Bundle, url, rev, sum string) ([]byte, error) {
	var v any = b.Data
	for _, k := range bundle.SettingsKey {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("no hookexec settings: want an object at data.%s (hookexec/data.json holding {\"settings\": {...}})", strings.Join(bundle.SettingsKey, "."))
		}
		v = m[k]
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no hookexec settings: want an object at data.%s (hookexec/data.json holding {\"settings\": {...}})", strings.Join(bundle.SettingsKey, "."))
	}
	out := make(map[string]any, len(m)+1)
	for k, x := range m {
		out[k] = x
	}
	out[bundle.StampKey] = map[string]string{"url": url, "revision": rev, "sha256": sum}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	f, err := dialect.Read("hookexec/data.json", data, dialect.Claude)
	if err != nil {
		return nil, fmt.Errorf("hookexec settings: %v", err)
	}
	// A team's bundle reads cleanly or not at all: a hook the reader would switch off or
	// a setting it ignores keeps the last good revision (and shows in hookexec status).
	if len(f.Warnings) > 0 {
		return nil, fmt.Errorf("hookexec settings: %s", f.Warnings[0])
	}
	return append(data, '\n'), nil
}
