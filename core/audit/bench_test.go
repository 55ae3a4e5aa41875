package audit_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
)

// What the audit log adds to a fire: off and on, for a fire whose hook matches nothing (no
// process: the worst case in proportion) and for one running a command. The writer
// goroutine's work happens beside the fire, on the other core.
func BenchmarkFireAudit(b *testing.B) {
	for _, c := range []struct {
		name string
		on   bool
		tool string
	}{{"nomatch/off", false, "Read"}, {"nomatch/on", true, "Read"}, {"command/off", false, "Bash"}, {"command/on", true, "Bash"}} {
		on := c.on
		b.Run(c.name, func(b *testing.B) {
			b.Setenv(engine.AuditLogEnv, "")
			path := ""
			if on {
				path = filepath.Join(b.TempDir(), "audit.jsonl")
			}
			e := openEngine(b, path, func(o *engine.Options) {
				o.Config = []byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]}}`)
			})
			payload := []byte(`{"session_id":"s","tool_name":"` + c.tool + `","tool_input":{"command":"ls -la"}}`)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Fire("PreToolUse", payload); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			require.NoError(b, e.Close())
		})
	}
}
