package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A process of another uid that reaches the daemon's socket (here the runtime directory and
// the socket are opened up by hand, as a wrong umask or a shared directory could) is
// refused by the SO_PEERCRED check: its connection is closed unread. Needs root, to run
// the client as nobody with setpriv; skipped otherwise (core/daemon's TestPeerAllowed checks
// the function on a real socket without root).
func TestDaemonRefusesOtherUID(t *testing.T) {
	t.Parallel()
	setpriv, err := exec.LookPath("setpriv")
	if os.Getuid() != 0 || err != nil {
		t.Skip("needs root and setpriv to connect as another user")
	}
	s := daemonScenario(t, "10m")
	// A copy of the binary that the other user can run, in directories it can enter.
	shared := filepath.Join(s.root, "shared")
	require.NoError(t, os.Mkdir(shared, 0o755))
	for _, d := range []string{filepath.Dir(s.root), s.root, shared} {
		require.NoError(t, os.Chmod(d, 0o755))
	}
	data, err := os.ReadFile(binary)
	require.NoError(t, err)
	bin := filepath.Join(shared, "hookexec")
	require.NoError(t, os.WriteFile(bin, data, 0o755))

	d := exec.Command(binary, "daemon")
	d.Env = append(append(os.Environ(), "HOME="+s.home), s.env...)
	require.NoError(t, d.Start())
	t.Cleanup(func() { _ = d.Process.Kill(); _ = d.Wait() })
	eventually(t, "the daemon", func() bool { _, ok := s.status(); return ok })
	run := filepath.Join(s.root, "run")
	require.NoError(t, os.Chmod(run, 0o711))
	require.NoError(t, os.Chmod(filepath.Join(run, "daemon.sock"), 0o666))

	ask := func(asNobody bool) (string, error) {
		args := []string{bin, "daemon", "--ask", "status"}
		if asNobody {
			args = append([]string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"}, args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = []string{"HOOKEXEC_RUNTIME_DIR=" + run, "HOME=/", "PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := ask(false)
	require.NoError(t, err, "this user is answered: %s", out)
	assert.Contains(t, out, `"identity"`)
	out, err = ask(true)
	assert.Error(t, err, "nobody is refused")
	assert.NotContains(t, out, `"identity"`)
	assert.Contains(t, out, "no daemon", "closed unread: as if no daemon ran")
}
