// Package agents installs the pinned versions of the live agents (tests/live/versions.json)
// into a cache directory with npm, once, and finds their binaries. It does not update
// anything: a version moves only when versions.json does. With HOOKEXEC_LIVE_LATEST set
// (make test-latest) it installs each agent's newest release instead, to show what a new
// release changes before the pin moves.
package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// ErrNoNpm is returned when npm is missing or the registry cannot be reached: the one case
// in which a live suite skips instead of failing.
var ErrNoNpm = errors.New("agents: npm or its registry is unreachable")

// Versions reads the pinned versions (package name → version) from versions.json, found
// next to this package's directory (tests/live/versions.json).
func Versions() (map[string]string, error) {
	path, err := versionsPath()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("agents: %w", err)
	}
	var v map[string]string
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("agents: %s: %w", path, err)
	}
	return v, nil
}

func versionsPath() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("agents: cannot locate versions.json")
	}
	return filepath.Join(filepath.Dir(file), "..", "versions.json"), nil
}

// CacheDir is where pkg@version is installed: $HOOKEXEC_AGENT_CACHE, default
// ~/.cache/hookexec/agents, then "<pkg with / as +>@<version>".
func CacheDir(pkg, version string) (string, error) {
	root := os.Getenv("HOOKEXEC_AGENT_CACHE")
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("agents: no cache directory: %w", err)
		}
		root = filepath.Join(home, ".cache", "hookexec", "agents")
	}
	return filepath.Join(root, strings.ReplaceAll(pkg, "/", "+")+"@"+version), nil
}

// Install makes sure the pinned version of pkg is installed in its cache directory and
// returns the path of its executable bin (node_modules/.bin/<bin>; a bin with a slash is a
// path under node_modules, for a package that links no executable, such as Factory's
// platform package @factory/cli-linux-x64, whose binary is bin/droid). An install that is
// already there is reused without touching the network. npm missing or the registry
// unreachable is ErrNoNpm (wrapped with npm's words); any other failure is an error.
func Install(ctx context.Context, pkg, bin string) (string, string, error) {
	versions, err := Versions()
	if err != nil {
		return "", "", err
	}
	version, ok := versions[pkg]
	if !ok {
		return "", "", fmt.Errorf("agents: %s is not pinned in versions.json", pkg)
	}
	if os.Getenv(LatestEnv) != "" {
		if version, err = Latest(ctx, pkg); err != nil {
			return "", "", err
		}
	}
	dir, err := CacheDir(pkg, version)
	if err != nil {
		return "", "", err
	}
	path := binPath(dir, bin)
	done := filepath.Join(dir, ".installed")
	if _, err := os.Stat(done); err == nil {
		return path, version, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "", fmt.Errorf("%w: npm is not installed", ErrNoNpm)
	}
	// Install into a fresh sibling directory and rename it into place, so an interrupted
	// install is never mistaken for a finished one and concurrent installs do not mix.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", "", fmt.Errorf("agents: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".install-*")
	if err != nil {
		return "", "", fmt.Errorf("agents: %w", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", tmp, pkg+"@"+version)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		text := string(out)
		for _, s := range []string{"ENOTFOUND", "ECONNREFUSED", "ETIMEDOUT", "EAI_AGAIN", "ECONNRESET", "network"} {
			if strings.Contains(text, s) {
				return "", "", fmt.Errorf("%w: %s", ErrNoNpm, lastLine(text))
			}
		}
		return "", "", fmt.Errorf("agents: npm install %s@%s: %v: %s", pkg, version, err, text)
	}
	if _, err := os.Stat(binPath(tmp, bin)); err != nil {
		return "", "", fmt.Errorf("agents: %s@%s installed no %s: %w", pkg, version, bin, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".installed"), []byte(pkg+"@"+version+"\n"), 0o644); err != nil {
		return "", "", fmt.Errorf("agents: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(done); statErr == nil {
			return path, version, nil // another run finished the same install first
		}
		return "", "", fmt.Errorf("agents: %w", err)
	}
	return path, version, nil
}

// LatestEnv, set to anything, makes Install install the newest release of a package (its
// "latest" tag on the registry) in place of its pin.
const LatestEnv = "HOOKEXEC_LIVE_LATEST"

// Latest asks the registry for the version pkg's "latest" tag names. npm missing or the
// registry unreachable is ErrNoNpm.
func Latest(ctx context.Context, pkg string) (string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("%w: npm is not installed", ErrNoNpm)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "view", "--json", pkg+"@latest", "version").Output()
	if err != nil {
		text := string(out)
		if ee, ok := err.(*exec.ExitError); ok {
			text += string(ee.Stderr)
		}
		return "", fmt.Errorf("%w: npm view %s: %v: %s", ErrNoNpm, pkg, err, lastLine(text))
	}
	var version string
	if err := json.Unmarshal(out, &version); err != nil || version == "" {
		return "", fmt.Errorf("agents: npm view %s@latest version: unexpected answer %q", pkg, strings.TrimSpace(string(out)))
	}
	return version, nil
}

// binPath is where an install in dir keeps bin: node_modules/.bin/<bin>, or
// node_modules/<bin> when bin is a path.
func binPath(dir, bin string) string {
	if strings.Contains(bin, "/") {
		return filepath.Join(dir, "node_modules", filepath.FromSlash(bin))
	}
	return filepath.Join(dir, "node_modules", ".bin", bin)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
