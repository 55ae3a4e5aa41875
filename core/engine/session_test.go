package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Without max_stop_blocks, Claude Code's cap applies: 8 blocked Stop fires in a row, then
// the 9th is let through with a warning.
func TestStopCapDefaultsToEight(t *testing.T) {
	e, _ := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":"echo again >&2; exit 2"}]}]}}`)
	for i := 1; i <= DefaultMaxStopBlocks; i++ {
		require.True(t, fireT(t, e, "Stop", `{"session_id":"s"}`).Blocked, "fire %d", i)
	}
	r := fireT(t, e, "Stop", `{"session_id":"s"}`)
	require.False(t, r.Blocked)
	require.Contains(t, strings.Join(r.Warnings, "\n"), "past the cap of 8")
}
