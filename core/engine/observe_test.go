package engine

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/observe"
)

// recorder is a sink keeping every fire it sees.
type recorder struct {
	mu     sync.Mutex
	fires  []*observe.Fire
	closed int
}

func (r *recorder) Observe(f *observe.Fire) {
	r.mu.Lock()
	r.fires = append(r.fires, f)
	r.mu.Unlock()
}

func (r *recorder) Close(time.Time) error {
	r.mu.Lock()
	r.closed++
	r.mu.Unlock()
	return nil
}

func TestSinksSeeEveryDecidedFire(t *testing.T) {
	rec := &recorder{}
	e, _ := open(t, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
		{"type":"command","command":"sleep 0.05"},
		{"type":"command","command":"echo no >&2; exit 2"}]}]}}`,
		func(o *Options) {
			o.Profile = "claude"
			o.Sinks = []observe.Sink{rec}
			o.Env = map[string]string{"TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
		})
	payload := `{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`
	res := fireT(t, e, "PreToolUse", payload)
	require.True(t, res.Blocked)
	fireT(t, e, "PreToolUse", `{"session_id":"s1","tool_name":"Read","tool_input":{}}`)

	require.Len(t, rec.fires, 2)
	f := rec.fires[0]
	assert.Equal(t, "PreToolUse", f.Event)
	assert.Equal(t, "claude", f.Profile)
	assert.Equal(t, "s1", f.SessionID)
	assert.Equal(t, "Bash", f.Subject)
	assert.Equal(t, "tool_name", f.SubjectField)
	assert.JSONEq(t, payload, string(f.Payload))
	assert.True(t, f.Blocked)
	assert.Equal(t, res.Decision, f.Decision)
	assert.Equal(t, res.Reason, f.Reason)
	assert.Equal(t, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", f.TraceParent)
	require.Len(t, f.Hooks, 2)
	for i, h := range f.Hooks {
		assert.Equal(t, res.Hooks[i].ID, h.ID)
		assert.Equal(t, "command", h.Type)
		assert.Equal(t, "<inline>", h.Source)
		assert.Equal(t, "Bash", h.Matcher)
		assert.True(t, h.Ran)
		assert.False(t, h.Start.Before(f.Start), "a hook starts within its fire")
		assert.LessOrEqual(t, h.Duration, f.Duration)
	}
	assert.GreaterOrEqual(t, f.Hooks[0].Duration, 50*time.Millisecond)
	assert.Equal(t, 0, f.Hooks[0].ExitCode)
	assert.Equal(t, 2, f.Hooks[1].ExitCode)

	// A fire that selects no hook is observed too, with none.
	assert.Equal(t, "Read", rec.fires[1].Subject)
	assert.Empty(t, rec.fires[1].Hooks)
	assert.Zero(t, rec.fires[1].Matched)

	require.NoError(t, e.Close())
	assert.Equal(t, 1, rec.closed)
}
