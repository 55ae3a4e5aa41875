package claude

// Managed settings for the live suite. Claude Code 2.1.330 reads managed settings from
// /etc/claude-code on Linux, a path it hard-codes (no variable moves it). A vector that
// writes root/etc/claude-code/… gets that directory at /etc/claude-code for the Claude Code
// process only: the process runs in a new mount namespace (unshare(1); a user namespace
// too when not root) where an overlay puts the vector's files over the machine's /etc.
// Nothing outside the process sees them, and the machine's /etc is never written.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

// overlayScript mounts $1 (an upper directory holding claude-code/) over /etc with $2 as
// the overlay's work directory, then runs the rest of the arguments.
const overlayScript = `mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc && shift 2 && exec "$@"`

var (
	namespaceOnce sync.Once
	namespaceErr  error
)

// unshareArgs is how to start a process in its own mount namespace.
func unshareArgs() []string {
	if os.Getuid() == 0 {
		return []string{"unshare", "--mount", "--propagation", "private"}
	}
	return []string{"unshare", "--map-root-user", "--mount", "--propagation", "private"}
}

// namespacesWork says why a managed-settings vector cannot run here (nil: it can): it
// mounts an overlay over /etc in a throwaway namespace once and checks a file shows.
func namespacesWork() error {
	namespaceOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hookexec-live-ns-")
		if err != nil {
			namespaceErr = err
			return
		}
		defer os.RemoveAll(dir)
		upper, work := filepath.Join(dir, "upper"), filepath.Join(dir, "work")
		probe := filepath.Join(upper, "claude-code", "probe")
		if err := os.MkdirAll(filepath.Dir(probe), 0o755); err != nil {
			namespaceErr = err
			return
		}
		if err := os.MkdirAll(work, 0o755); err != nil {
			namespaceErr = err
			return
		}
		if err := os.WriteFile(probe, []byte("ok"), 0o644); err != nil {
			namespaceErr = err
			return
		}
		args := append(unshareArgs(), "sh", "-c", overlayScript, "sh", upper, work, "cat", "/etc/claude-code/probe")
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil || string(out) != "ok" {
			namespaceErr = fmt.Errorf("cannot put a directory at /etc/claude-code for Claude Code alone: %s in a new mount namespace failed: %v: %s",
				"an overlay mount over /etc", err, out)
		}
	})
	return namespaceErr
}

// withManaged returns the command that runs Claude Code for a vector: cmd itself, or, when
// the vector has files under root/etc/claude-code, cmd in a mount namespace where that
// directory is /etc/claude-code. Such a vector is skipped (suite.ErrSkip), saying why,
// where namespaces cannot do it.
func withManaged(tree livetest.Tree, cmd *exec.Cmd) (*exec.Cmd, error) {
	etc := filepath.Join(tree.Root, "etc")
	if _, err := os.Stat(filepath.Join(etc, "claude-code")); err != nil {
		return cmd, nil
	}
	if err := namespacesWork(); err != nil {
		return nil, fmt.Errorf("%w: managed settings: %v", suite.ErrSkip, err)
	}
	work := filepath.Join(tree.Root, "etc-work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	full := append(unshareArgs(), "sh", "-c", overlayScript, "sh", etc, work)
	full = append(full, cmd.Args...)
	wrapped := exec.Command(full[0], full[1:]...)
	wrapped.Dir, wrapped.Env = cmd.Dir, cmd.Env
	return wrapped, nil
}
