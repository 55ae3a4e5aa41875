package engine

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Without max_stop_blocks, Claude Code's cap applies: 8 blocked Stop fires in a row, then
// the 9th is let through with a warning, as a plain "not blocked": no decision, no reason a
// host could hand back to the model.
func TestStopCapDefaultsToEight(t *testing.T) {
	for _, hook := range []string{
		`echo again >&2; exit 2`,
		`echo '{"decision":"block","reason":"again"}'`,
	} {
		e, _ := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":`+strconv.Quote(hook)+`}]}]}}`)
		for i := 1; i <= DefaultMaxStopBlocks; i++ {
			r := fireT(t, e, "Stop", `{"session_id":"s"}`)
			require.True(t, r.Blocked, "fire %d", i)
			require.Equal(t, "again", strings.TrimSpace(r.Reason))
		}
		r := fireT(t, e, "Stop", `{"session_id":"s"}`)
		require.False(t, r.Blocked, hook)
		require.Equal(t, "none", r.Decision, hook)
		require.Empty(t, r.Reason, hook)
		require.Contains(t, strings.Join(r.Warnings, "\n"), "past the cap of 8")
	}
}
