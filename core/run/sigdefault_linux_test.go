package run

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestChildrenGetDefaultSIGXFSZWhenTheHostIgnoresIt(t *testing.T) {
	var old, ign kernelSigaction
	require.NoError(t, sigaction(syscall.SIGXFSZ, nil, &old))
	ign = old
	ign[0] = sigIgn
	require.NoError(t, sigaction(syscall.SIGXFSZ, &ign, nil)) // what a Python host does
	t.Cleanup(func() { _ = sigaction(syscall.SIGXFSZ, &old, nil) })

	r := Run(context.Background(), Spec{Argv: []string{"/bin/sh", "-c", "grep SigIgn /proc/self/status"}})
	require.NoError(t, r.Err)
	mask, err := strconv.ParseUint(strings.Fields(string(r.Stdout))[1], 16, 64)
	require.NoError(t, err)
	require.Zero(t, mask&(1<<(syscall.SIGXFSZ-1)), "the child inherited an ignored SIGXFSZ: %s", r.Stdout)

	var now kernelSigaction
	require.NoError(t, sigaction(syscall.SIGXFSZ, nil, &now))
	require.Equal(t, ign, now, "the host's disposition is back as it was")
}
