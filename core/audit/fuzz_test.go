package audit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/audit"
	"github.com/hookexec/hookexec/core/observe"
)

// Any bytes as a log: Verify and Read never panic or hang, a log that verifies has as many
// entries as lines, each read back, and Verify fails on anything that is not whole.
func FuzzVerify(f *testing.F) {
	// seeded without an engine: hooks' processes under the fuzzing worker stall it
	path := filepath.Join(f.TempDir(), "seed.jsonl")
	l, err := audit.Open(audit.Options{Path: path})
	require.NoError(f, err)
	for _, fi := range fires {
		l.Observe(&observe.Fire{Event: fi.event, Payload: []byte(fi.payload), Decision: "deny", Reason: "r",
			Hooks: []observe.Hook{{ID: "h", Source: "s.json", Line: 3, Ran: true}}})
	}
	require.NoError(f, l.Close(time.Now().Add(10*time.Second)))
	good, err := os.ReadFile(path)
	require.NoError(f, err)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(append(append([]byte(nil), good...), good...))
	f.Add([]byte("{}\n"))
	f.Add([]byte(""))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "audit.jsonl")
		require.NoError(t, os.WriteFile(p, data, 0o600))
		rep, err := audit.Verify(p, audit.VerifyOptions{})
		require.NoError(t, err)
		n := 0
		rerr := audit.Read(bytes.NewReader(data), func(audit.Entry) error { n++; return nil })
		if rep.OK() {
			lines := bytes.Count(data, []byte("\n"))
			require.EqualValues(t, lines, rep.Entries)
			require.True(t, len(data) == 0 || data[len(data)-1] == '\n')
			require.NoError(t, rerr)
			require.Equal(t, lines, n)
		}
	})
}
