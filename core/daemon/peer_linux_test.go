package daemon

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The uid check reads the kernel's record of the connecting process (SO_PEERCRED) from a
// real socket: this process's uid is let in, any other refused. (A connection from a
// process of another uid is refused end to end in cmd/hookexec's TestDaemonRefusesOtherUID,
// which needs root to run a client as another user.)
func TestPeerAllowed(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	require.NoError(t, err)
	defer ln.Close()
	client, err := net.Dial("unix", ln.Addr().String())
	require.NoError(t, err)
	defer client.Close()
	server, err := ln.Accept()
	require.NoError(t, err)
	defer server.Close()
	assert.True(t, peerAllowed(server, os.Getuid()))
	assert.False(t, peerAllowed(server, os.Getuid()+1))
	assert.False(t, peerAllowed(fakeConn{server}, os.Getuid()), "not a Unix socket: refused")
}

type fakeConn struct{ net.Conn }
