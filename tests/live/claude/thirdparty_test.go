package claude

// Real third-party hooks: hooks people publish for Claude Code, installed from PyPI with pip
// at the versions pinned in tests/live/versions.json ("pypi:<name>"), into a virtualenv in
// the agent cache (~/.cache/hookexec/agents/pypi+<name>@<version>), once. Nothing of theirs
// is copied into this repository: vectors name the installed commands ($PYCLAUDE,
// $CLAUDEHOOKS) and run them unchanged under Claude Code and under hookexec.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hookexec/hookexec/tests/live/agents"
	"github.com/hookexec/hookexec/tests/live/suite"
)

// thirdParty are the PyPI packages vectors may use: the variable, the package and the
// console script it installs.
var thirdParty = []struct{ variable, pkg, script string }{
	{"$PYCLAUDE", "python-claude", "python-claude"},
	{"$CLAUDEHOOKS", "claude-hooks-template", "claude-hooks"},
}

var pypiInstalls sync.Map // package → *pypiInstall

type pypiInstall struct {
	once sync.Once
	path string
	err  error
}

// pypiScript installs the pinned version of pkg from PyPI (once per run, cached across
// runs) and returns the path of its console script. pip unable to reach PyPI is
// suite.ErrSkip: the vector is skipped, saying so.
func pypiScript(pkg, script string) (string, error) {
	v, _ := pypiInstalls.LoadOrStore(pkg, &pypiInstall{})
	in := v.(*pypiInstall)
	in.once.Do(func() { in.path, in.err = installPyPI(pkg, script) })
	return in.path, in.err
}

func installPyPI(pkg, script string) (string, error) {
	versions, err := agents.Versions()
	if err != nil {
		return "", err
	}
	version, ok := versions["pypi:"+pkg]
	if !ok {
		return "", fmt.Errorf("pypi:%s is not pinned in tests/live/versions.json", pkg)
	}
	dir, err := agents.CacheDir("pypi/"+pkg, version)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "bin", script)
	done := filepath.Join(dir, ".installed")
	if _, err := os.Stat(done); err == nil {
		return path, nil
	}
	// A virtualenv cannot be moved (its scripts name its path), so it is built in place
	// under a lock; a directory without .installed is an interrupted install, redone.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(done); err == nil {
		return path, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := func(name string, args ...string) error {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			text := out.String()
			for _, s := range []string{"Could not find a version", "NewConnectionError", "Temporary failure in name resolution", "Network is unreachable", "No matching distribution"} {
				if strings.Contains(text, s) {
					return fmt.Errorf("%w: pip cannot install %s==%s from PyPI: %s", suite.ErrSkip, pkg, version, lastLine(text))
				}
			}
			return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, text)
		}
		return nil
	}
	if err := run("python3", "-m", "venv", dir); err != nil {
		return "", err
	}
	if err := run(filepath.Join(dir, "bin", "pip"), "install", "--no-input", "--disable-pip-version-check", "-q", pkg+"=="+version); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s==%s installed no %s: %w", pkg, version, script, err)
	}
	return path, os.WriteFile(done, []byte(pkg+"=="+version+"\n"), 0o644)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// thirdPartyVars installs the packages whose variables the vector uses.
func thirdPartyVars(raw []byte, vars map[string]string) error {
	var errs []error
	for _, tp := range thirdParty {
		if !bytes.Contains(raw, []byte(tp.variable)) {
			continue
		}
		path, err := pypiScript(tp.pkg, tp.script)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		vars[tp.variable] = path
	}
	return errors.Join(errs...)
}
