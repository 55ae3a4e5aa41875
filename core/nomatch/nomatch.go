// Package nomatch writes the no-match index: a small text file per agent, project and home
// that lets the C client (capi/hook/hookexec-hook.c) answer a hook call no hook can match
// without reaching the daemon. It lists, per event whose no-match the subject alone decides,
// the native answer of a fire that matches nothing and every subject some hook matches; it
// records every file the configuration depends on (read, or looked for and absent) with
// its stat, the environment variables the load read, and the hookexec build. The client
// trusts it only when all of that is unchanged; anything else (no index, a stale stat, an
// event not listed, a subject it cannot read exactly) goes to the daemon as before.
//
// The format (one record a line, fields separated by one space, every field encoded by
// Encode; docs/performance.md "The no-match path"):
//
//	hookexec-nomatch 1
//	identity ID
//	agent NAME
//	project DIR
//	home DIR
//	scope SCOPE                         (only for a dispatcher entry of one scope)
//	env NAME VALUE                      (each variable the load read)
//	file PATH -                         (absent)
//	file PATH DEV INO SIZE MTIME CTIME  (times in nanoseconds; a directory's too)
//	event NAME EXIT STDOUT STDERR       (the answer when nothing matches)
//	subject FIELD                       (the payload fields the matcher sees, in order)
//	may SUBJECT                         (a subject some hook matches; none: nothing matches)
//	end
//
// It decides nothing about a call itself and writes only into the directory it is given.
package nomatch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hookexec/hookexec/core/atomicfile"
	"github.com/hookexec/hookexec/core/engine"
)

// Version is the format's version, the first line's number. The client reads no other.
const Version = 1

// Settle is how long ago a file must have last changed for its stat to stand for its
// contents (the racy-git rule, as core/dispatch's freshness check): a file written twice
// within one timestamp tick keeping its size has the same stat, but a write after the
// index was made moves the change time past every time recorded in it. Tests shorten it.
var Settle = 2 * time.Second

// ErrUnsettled: a file changed too recently, or not to what was loaded; try again later.
var ErrUnsettled = errors.New("hookexec: nomatch: the configuration files changed too recently")

// Key names the index of one agent, project, home and scope: the dispatch request's values
// as the client sends them. Scope is "" but for an agent whose dispatcher entries name
// their scope (native.Agent.Scoped): each scope's entry runs other hooks.
type Key struct{ Agent, Project, Home, Scope string }

// DirStatus is the Status of a directory in NoMatch.Files whose listing the configuration
// depends on (Cline's hookexec-hooks directories): its stat is recorded, which any file
// added or removed there changes.
const DirStatus = "directory"

// Path is the index file of k in dir: "nomatch-" and the FNV-1a 64 hash of the key's
// fields (each followed by a NUL byte), in hex. A collision only makes the client ask the
// daemon: the index repeats the key, and the client compares it.
func Path(dir string, k Key) string {
	h := uint64(14695981039346656037)
	parts := []string{k.Agent, k.Project, k.Home}
	if k.Scope != "" {
		parts = append(parts, k.Scope)
	}
	for _, s := range parts {
		for _, c := range []byte(s + "\x00") {
			h ^= uint64(c)
			h *= 1099511628211
		}
	}
	return filepath.Join(dir, fmt.Sprintf("nomatch-%016x", h))
}

// Answer is the native answer of a fire's result (core/native Agent.Answer).
type Answer func(*engine.Result) (code int, stdout, stderr []byte)

// Write writes the index of k into dir, a private directory of this user, for the
// configuration nm describes. It writes nothing (and says why) when a fire that matches
// nothing does more than answer (nm.Why), and returns ErrUnsettled when a file changed
// less than Settle ago or no longer holds what was loaded: the stats it records are taken
// before the contents are compared with the loaded ones, so an index is never written for
// files that changed after they were loaded.
func Write(dir, identity string, k Key, nm *engine.NoMatch, answer Answer) error {
	if nm.Why != "" {
		return fmt.Errorf("hookexec: nomatch: not indexed: %s", nm.Why)
	}
	limit := time.Now().Add(-Settle).UnixNano()
	var b bytes.Buffer
	fmt.Fprintf(&b, "hookexec-nomatch %d\nidentity %s\nagent %s\nproject %s\nhome %s\n", Version,
		Encode(identity), Encode(k.Agent), Encode(k.Project), Encode(k.Home))
	if k.Scope != "" {
		fmt.Fprintf(&b, "scope %s\n", Encode(k.Scope))
	}
	for _, name := range slices.Sorted(maps.Keys(nm.Env)) {
		fmt.Fprintf(&b, "env %s %s\n", Encode(name), Encode(nm.Env[name]))
	}
	seen := map[string]bool{}
	for _, f := range nm.Files {
		if seen[f.Path] {
			continue
		}
		seen[f.Path] = true
		line, err := fileLine(f.Path, f.Status == "missing", f.Status == DirStatus, f.Digest, limit)
		if err != nil {
			return err
		}
		b.WriteString(line)
	}
	for _, name := range slices.Sorted(maps.Keys(nm.Events)) {
		ev := nm.Events[name]
		code, stdout, stderr := answer(ev.Result)
		fmt.Fprintf(&b, "event %s %d %s %s\n", Encode(name), code, Encode(string(stdout)), Encode(string(stderr)))
		for _, s := range ev.Subject {
			fmt.Fprintf(&b, "subject %s\n", Encode(s))
		}
		for _, s := range ev.Subjects {
			fmt.Fprintf(&b, "may %s\n", Encode(s))
		}
	}
	b.WriteString("end\n")
	path := Path(dir, k)
	if st, err := os.Lstat(path); err == nil {
		if st.Mode().IsRegular() && st.Mode().Perm() == 0o600 {
			if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
				return nil
			}
		} else if err := os.Remove(path); err != nil { // a link, or a mode atomicfile would keep
			return err
		}
	}
	return atomicfile.Write(path, b.Bytes(), 0o600)
}

// fileLine stats path (following links, as the loader reads it) and, when it exists,
// checks that it last changed before limit and still holds digest.
func fileLine(path string, missing, dir bool, digest string, limit int64) (string, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && (missing || dir):
		return "file " + Encode(path) + " -\n", nil
	case err != nil || missing:
		return "", ErrUnsettled
	}
	if dir && !st.IsDir() {
		return "", fmt.Errorf("hookexec: nomatch: %s is not a directory", path)
	}
	if !dir && !st.Mode().IsRegular() {
		return "", fmt.Errorf("hookexec: nomatch: %s is not a regular file", path)
	}
	dev, ino, ctime, ok := fileID(st)
	if !ok {
		return "", fmt.Errorf("hookexec: nomatch: no device, inode and change time for %s on this system", path)
	}
	mtime := st.ModTime().UnixNano()
	if mtime >= limit || ctime >= limit {
		return "", ErrUnsettled
	}
	if !dir { // a directory's stat is its record; a file must still hold what was loaded
		data, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != digest {
			return "", ErrUnsettled
		}
	}
	return fmt.Sprintf("file %s %d %d %d %d %d\n", Encode(path), dev, ino, st.Size(), mtime, ctime), nil
}

// Encode spells s as one field: "%" for the empty string, every byte outside "!" to "~"
// and every "%" as %XX.
func Encode(s string) string {
	if s == "" {
		return "%"
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c > '~' || c == '%' {
			b = append(b, '%', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}
