//go:build unix

package daemon

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/hookexec/hookexec/core/atomicfile"
)

// The HTTP transport: the daemon also serves hook calls as HTTP POSTs on 127.0.0.1, for
// agents that can send a hook to a URL themselves (Claude Code's "http" hooks), so that no
// process starts per call. Its settings live in a private directory of the user (HTTPDir):
// the port (HTTPPortName) and the secret the agent sends in its Authorization header
// (HTTPSecretName, 0600). The daemon serves HTTP only when the port file exists (install
// --transport http writes it) and only on Linux, where it can check the uid of each
// connecting socket (/proc/net/tcp): another user is refused even with the secret.

// LoadHTTP reads the HTTP directory, which must be private (0700, this user's). A missing
// port file is ErrNoHTTP; a missing or unreadable secret is an error.
func LoadHTTP(dir string) (HTTPConfig, error) {
	var c HTTPConfig
	if dir == "" {
		return c, ErrNoHTTP
	}
	raw, err := os.ReadFile(filepath.Join(dir, HTTPPortName))
	if errors.Is(err, fs.ErrNotExist) {
		return c, ErrNoHTTP
	}
	if err != nil {
		return c, err
	}
	if err := checkPrivate(dir); err != nil {
		return c, err
	}
	if c.Port, err = strconv.Atoi(strings.TrimSpace(string(raw))); err != nil || c.Port <= 0 || c.Port > 65535 {
		return c, fmt.Errorf("hookexec: %s: not a port: %q", filepath.Join(dir, HTTPPortName), raw)
	}
	secret, err := readSecret(filepath.Join(dir, HTTPSecretName))
	if err != nil {
		return c, err
	}
	c.Secret = secret
	return c, nil
}

// SetupHTTP makes the HTTP directory (0700) and, where missing, its secret (32 random
// bytes, hex, 0600, written atomically) and its port (a free port of 127.0.0.1 chosen
// now); existing ones are kept, so every install of the user names the same URL.
func SetupHTTP(dir string) (HTTPConfig, error) {
	if dir == "" {
		return HTTPConfig{}, errors.New("hookexec: no directory for the http transport: set HOME or " + EnvHTTPDir)
	}
	if err := PrivateDir(dir); err != nil {
		return HTTPConfig{}, err
	}
	secretPath := filepath.Join(dir, HTTPSecretName)
	if _, err := os.Lstat(secretPath); errors.Is(err, fs.ErrNotExist) {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return HTTPConfig{}, err
		}
		if err := atomicfile.Write(secretPath, []byte(hex.EncodeToString(b)+"\n"), 0o600); err != nil {
			return HTTPConfig{}, err
		}
	}
	portPath := filepath.Join(dir, HTTPPortName)
	if _, err := os.Lstat(portPath); errors.Is(err, fs.ErrNotExist) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return HTTPConfig{}, err
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if err := atomicfile.Write(portPath, []byte(strconv.Itoa(port)+"\n"), 0o600); err != nil {
			return HTTPConfig{}, err
		}
	}
	return LoadHTTP(dir)
}

// readSecret reads the secret file, refusing one that is not a regular file of this user
// closed to others.
func readSecret(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return "", fmt.Errorf("hookexec: the http secret: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o077 != 0 || !ownedByMe(st) {
		return "", fmt.Errorf("hookexec: %s: want a regular file of this user, mode 0600 (mode %o)", path, st.Mode().Perm())
	}
	b := make([]byte, 256)
	n, _ := f.Read(b)
	s := strings.TrimSpace(string(b[:n]))
	if len(s) < 32 {
		return "", fmt.Errorf("hookexec: %s: the secret is too short", path)
	}
	return s, nil
}

const noFollow = syscall.O_NOFOLLOW

func ownedByMe(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}
