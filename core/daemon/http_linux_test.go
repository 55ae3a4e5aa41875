package daemon

import (
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/dispatch"
)

// The uid of both ends of a real loopback connection, and of a listener, as the kernel
// lists them in /proc/net/tcp: this process's, and no other uid's.
func TestTCPPeerUID(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	uid, err := ListenerUID(port)
	require.NoError(t, err)
	assert.Equal(t, os.Getuid(), uid)
	client, err := net.Dial("tcp4", ln.Addr().String())
	require.NoError(t, err)
	defer client.Close()
	server, err := ln.Accept()
	require.NoError(t, err)
	defer server.Close()
	// The kernel's exact lookup and the /proc/net/tcp scan agree on the peer's owner.
	peer, _ := netip.ParseAddrPort(client.LocalAddr().String())
	ours, _ := netip.ParseAddrPort(server.LocalAddr().String())
	viaDiag, err := sockDiagUID(peer, ours)
	require.NoError(t, err)
	viaProc, err := tcpUID(peer, ours)
	require.NoError(t, err)
	assert.Equal(t, os.Getuid(), viaDiag)
	assert.Equal(t, viaProc, viaDiag)
	assert.True(t, tcpPeerAllowed(server, os.Getuid()))
	assert.False(t, tcpPeerAllowed(server, os.Getuid()+1))
	ln.Close()
	_, err = ListenerUID(port)
	assert.ErrorIs(t, err, ErrNoSocket, "nothing listens any more")
}

// An answer an http hook cannot carry is never a 2xx: Claude Code reads an empty 2xx as
// an allow, a non-2xx (with onFailure block) as a block.
func TestHTTPAnswer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		reply  dispatch.Reply
		status int
	}{
		{"allow, nothing said", dispatch.Reply{}, http.StatusOK},
		{"JSON decision", dispatch.Reply{Stdout: `{"decision":"block","reason":"no"}` + "\n"}, http.StatusOK},
		{"exit 2 block", dispatch.Reply{ExitCode: 2, Stderr: "no\n"}, http.StatusInternalServerError},
		{"exit 2, nothing said", dispatch.Reply{ExitCode: 2}, http.StatusInternalServerError},
		{"exit 1", dispatch.Reply{ExitCode: 1, Stderr: "oops"}, http.StatusInternalServerError},
		{"plain text on exit 0", dispatch.Reply{Stdout: "context"}, http.StatusOK},
		{"broken JSON", dispatch.Reply{Stdout: `{"decision":`}, http.StatusInternalServerError},
		{"a JSON array", dispatch.Reply{Stdout: `[1]`}, http.StatusInternalServerError},
	} {
		body, status := HTTPAnswer("PreToolUse", c.reply)
		assert.Equal(t, c.status, status, c.name)
		if status != http.StatusOK {
			assert.NotEmpty(t, body, c.name+": a refusal says why")
		}
	}
	// A command's plain stdout is context on UserPromptSubmit: the JSON form of it.
	body, status := HTTPAnswer("UserPromptSubmit", dispatch.Reply{Stdout: "shell-is-bash\n"})
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"shell-is-bash"}}`, string(body))
}

// The transport's files: made private, kept across setups, refused when open to others.
func TestSetupHTTP(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "http")
	_, err := LoadHTTP(dir)
	assert.ErrorIs(t, err, ErrNoHTTP)
	a, err := SetupHTTP(dir)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(a.Secret), 32, "at least 128 bits, hex")
	b, err := SetupHTTP(dir)
	require.NoError(t, err)
	assert.Equal(t, a, b, "a second setup keeps port and secret")
	st, err := os.Stat(filepath.Join(dir, HTTPSecretName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	require.NoError(t, os.Chmod(filepath.Join(dir, HTTPSecretName), 0o644))
	_, err = LoadHTTP(dir)
	assert.Error(t, err, "a secret others can read is refused")
	require.NoError(t, os.Chmod(filepath.Join(dir, HTTPSecretName), 0o600))
	require.NoError(t, os.Chmod(dir, 0o755))
	_, err = LoadHTTP(dir)
	assert.Error(t, err, "a directory open to others is refused")
}

// The uid check's cost per accepted connection: one scan of /proc/net/tcp.
func BenchmarkTCPPeerUID(b *testing.B) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(b, err)
	defer ln.Close()
	client, err := net.Dial("tcp4", ln.Addr().String())
	require.NoError(b, err)
	defer client.Close()
	server, err := ln.Accept()
	require.NoError(b, err)
	defer server.Close()
	for i := 0; i < b.N; i++ {
		if !tcpPeerAllowed(server, os.Getuid()) {
			b.Fatal("refused")
		}
	}
}
