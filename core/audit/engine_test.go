package audit_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/audit"
	"github.com/hookexec/hookexec/core/engine"
)

// guardConfig denies rm in Bash, rewrites Write's input and lets the rest through.
const guardConfig = `{"hooks":{"PreToolUse":[
	{"matcher":"Bash","hooks":[{"type":"command","command":"grep -q 'rm ' && { echo 'no rm' >&2; exit 2; } || exit 0"}]},
	{"matcher":"Write","hooks":[{"type":"command","command":"echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\",\"updatedInput\":{\"file_path\":\"/tmp/x\",\"content\":\"safe\"}}}'"}]}],
	"PostToolUse":[{"hooks":[{"type":"command","command":"true"}]}]}}`

// fires are payloads of the PreToolUse/PostToolUse fires the tests make, by session.
var fires = []struct{ event, payload string }{
	{"PreToolUse", `{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`},
	{"PreToolUse", `{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"}}`},
	{"PreToolUse", `{"session_id":"s2","tool_name":"Write","tool_input":{"file_path":"/etc/passwd","content":"x"}}`},
	{"PostToolUse", `{"session_id":"s2","tool_name":"Read","tool_input":{},"tool_response":{}}`},
}

// openEngine opens a claude engine on guardConfig writing the audit log at path.
func openEngine(t testing.TB, path string, more ...func(*engine.Options)) *engine.Engine {
	t.Helper()
	o := engine.Options{Profile: "claude", ProjectDir: t.TempDir(), Home: t.TempDir(), Sources: []string{},
		Config: []byte(guardConfig), AuditLog: path}
	for _, m := range more {
		m(&o)
	}
	e, err := engine.Open(o)
	require.NoError(t, err)
	return e
}

// writeLog has a real engine write n fires (cycling through fires) to a new log.
func writeLog(t testing.TB, n int, more ...func(*engine.Options)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	e := openEngine(t, path, more...)
	for i := 0; i < n; i++ {
		f := fires[i%len(fires)]
		_, err := e.Fire(f.event, []byte(f.payload))
		require.NoError(t, err)
	}
	require.NoError(t, e.Close())
	return path
}

func readAll(t testing.TB, path string) []audit.Entry {
	t.Helper()
	var got []audit.Entry
	require.NoError(t, audit.ReadFiles(path, func(e audit.Entry) error { got = append(got, e); return nil }))
	return got
}

func TestEngineWritesEveryDecision(t *testing.T) {
	path := writeLog(t, len(fires))
	rep := verifyOK(t, path)
	assert.EqualValues(t, 4, rep.Entries)
	assert.EqualValues(t, 4, rep.Fires)

	got := readAll(t, path)
	require.Len(t, got, 4)
	deny := got[0]
	assert.Equal(t, audit.KindFire, deny.Kind)
	assert.EqualValues(t, 1, deny.Seq)
	assert.Equal(t, audit.Genesis, deny.Prev)
	assert.Equal(t, "claude", deny.Profile)
	assert.Equal(t, "s1", deny.Session)
	assert.Equal(t, "PreToolUse", deny.Event)
	assert.Equal(t, "Bash", deny.Tool)
	assert.Equal(t, "deny", deny.Decision)
	assert.True(t, deny.Blocked)
	assert.Contains(t, deny.Reason, "no rm")
	assert.Equal(t, os.Getpid(), deny.PID)
	assert.Equal(t, sha256hex(fires[0].payload), deny.InputSHA256)
	assert.Empty(t, deny.UpdatedInputSHA256)
	require.Len(t, deny.Hooks, 1)
	h := deny.Hooks[0]
	assert.Equal(t, "<inline>", h.Source)
	assert.NotEmpty(t, h.ID)
	assert.True(t, h.Ran)
	assert.Equal(t, 2, h.ExitCode)
	assert.Equal(t, "deny", h.Decision)
	assert.Positive(t, h.DurationMs)
	assert.False(t, h.TimedOut)

	assert.Equal(t, "allow", got[2].Decision)
	assert.Equal(t, sha256hex(`{"file_path":"/tmp/x","content":"safe"}`), got[2].UpdatedInputSHA256)
	assert.Equal(t, "Read", got[3].Tool)
	for i := 1; i < len(got); i++ {
		assert.Equal(t, got[i-1].Hash, got[i].Prev)
		assert.Equal(t, got[i-1].Seq+1, got[i].Seq)
	}
	assert.Equal(t, got[3].Hash, rep.Head)
}

func TestAuditOffByDefault(t *testing.T) {
	t.Setenv(engine.AuditLogEnv, "")
	dir := t.TempDir()
	e := openEngine(t, "", func(o *engine.Options) { o.ProjectDir = dir })
	_, err := e.Fire("PreToolUse", []byte(fires[1].payload))
	require.NoError(t, err)
	require.NoError(t, e.Close())
	ents, _ := os.ReadDir(dir)
	assert.Empty(t, ents)
}

func TestAuditFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	// relative: taken from the project, as the daemon's engines do
	e := openEngine(t, "", func(o *engine.Options) {
		o.ProjectDir = dir
		o.Env = map[string]string{engine.AuditLogEnv: "audit.jsonl"}
	})
	_, err := e.Fire("PreToolUse", []byte(fires[1].payload))
	require.NoError(t, err)
	require.NoError(t, e.Close())
	got := readAll(t, filepath.Join(dir, "audit.jsonl"))
	require.Len(t, got, 1)
	assert.Equal(t, "none", got[0].Decision)
}

func TestAuditAskedForAndUnusableFailsOpen(t *testing.T) {
	_, err := engine.Open(engine.Options{Sources: []string{}, AuditLog: "/nonexistent/dir/audit.jsonl"})
	require.ErrorIs(t, err, engine.ErrConfig)
	key := filepath.Join(t.TempDir(), "key")
	require.NoError(t, os.WriteFile(key, []byte("short\n"), 0o600))
	_, err = engine.Open(engine.Options{Sources: []string{}, AuditLog: filepath.Join(t.TempDir(), "a"), AuditKeyFile: key})
	require.ErrorIs(t, err, engine.ErrConfig)
	_, err = engine.Open(engine.Options{Sources: []string{}, Env: map[string]string{engine.AuditLogEnv: filepath.Join(t.TempDir(), "a"), engine.AuditMaxBytesEnv: "lots"}})
	require.ErrorIs(t, err, engine.ErrInvalid)
}
