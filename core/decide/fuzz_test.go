package decide

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/event"
)

// FuzzRead reads arbitrary hook output for every event. Properties: Read never panics; what
// it passes on as raw JSON (output, updated_input, modified_args) is valid JSON and valid
// UTF-8; only events that can block are blocked; exit 2 blocks every event that can; and the
// aggregate of the verdict is valid too. Under plain go test only the seeds run.
func FuzzRead(f *testing.F) {
	for _, s := range []struct {
		out, errs string
		code      int
	}{
		{"", "", 0},
		{`{"decision":"block","reason":"no"}`, "", 0},
		{`{"hookSpecificOutput":{"permissionDecision":"deny","updatedInput":{"a":1}}}`, "", 0},
		{`{"continue":false,"stopReason":"x","systemMessage":"m","suppressOutput":true}`, "", 1},
		{`{"modified_args":{"path":"/tmp/x"},"feedback":"f"}`, "", 0},
		{`{"decision":7,"reason":[],"hookSpecificOutput":"s"}`, "", 0},
		{"{\"reason\":\"\xff\xfe\"}", "\x00", 2},
		{`{"a":`, "boom", 3},
		{"plain text context", "", 0},
		{`{"permissionDecision":"allow"}`, "", 2},
	} {
		f.Add([]byte(s.out), []byte(s.errs), s.code, uint8(0), false)
	}
	names := event.CanonicalNames()
	f.Fuzz(func(t *testing.T, stdout, stderr []byte, code int, ev uint8, failClosed bool) {
		info := event.Lookup(names[int(ev)%len(names)])
		v := Read(Input{Event: info, ExitCode: code, Stdout: stdout, Stderr: stderr, FailClosed: failClosed})
		for name, raw := range map[string][]byte{"output": v.Output, "updated_input": v.UpdatedInput, "modified_args": v.ModifiedArgs} {
			if raw != nil {
				require.True(t, json.Valid(raw), "%s %q", name, raw)
				require.True(t, utf8.Valid(raw), "%s %q", name, raw)
			}
		}
		if v.Blocked {
			require.True(t, info.CanBlock, "%s cannot block", info.Name)
		}
		if code == 2 && info.CanBlock {
			require.True(t, v.Blocked, "exit 2 blocks %s", info.Name)
		}
		sum := Aggregate([]byte(`{"command":"ls"}`), []Verdict{v, {Continue: true}})
		require.Equal(t, v.Blocked, sum.Blocked)
		if sum.UpdatedInput != nil {
			require.True(t, json.Valid(sum.UpdatedInput), "aggregated updated_input %q", sum.UpdatedInput)
		}
	})
}
