package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `hookexec audit verify|show` end to end: fires of the built binary write the log
// (HOOKEXEC_AUDIT_LOG), the verbs read it, and a change to it is found.
func TestAuditVerbs(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "grep -q 'rm ' && { echo 'no rm' >&2; exit 2; } || exit 0", "name": "no-rm"}]}]}}`)
	log := filepath.Join(s.root, "audit.jsonl")
	s.env = append(s.env, "HOOKEXEC_AUDIT_LOG="+log)
	for _, f := range []struct{ session, command string }{{"s1", "rm -rf /"}, {"s1", "ls"}, {"s2", "rm x"}, {"s2", "pwd"}} {
		out := s.run("--profile", "claude", "fire", "PreToolUse", "--payload",
			`{"session_id": "`+f.session+`", "tool_name": "Bash", "tool_input": {"command": "`+f.command+`"}}`)
		require.Contains(t, []int{0, 2}, out.code, out.stderr)
	}
	out := s.run("--profile", "claude", "fire", "UserPromptSubmit", "--payload", `{"session_id": "s3", "prompt": "hi"}`)
	require.Equal(t, 0, out.code, out.stderr)

	v := s.run("audit", "verify")
	require.Equal(t, 0, v.code, v.stderr)
	assert.Contains(t, v.stdout, log+": verified: 5 entries in 1 file (5 decisions, 0 dropped, 0 torn lines cut)")
	head := strings.Fields(strings.Split(v.stdout, "\n")[1])[3]
	require.Len(t, head, 64)

	show := s.run("audit", "show", log)
	require.Equal(t, 0, show.code, show.stderr)
	lines := strings.Split(strings.TrimSpace(show.stdout), "\n")
	require.Len(t, lines, 6, show.stdout)
	assert.Regexp(t, `^SEQ +TIME +SESSION +EVENT +TOOL +DECISION +HOOKS +REASON$`, lines[0])
	assert.Regexp(t, `^ +1 .* s1 +PreToolUse +Bash +deny +no-rm:deny +no rm$`, lines[1])
	assert.Regexp(t, `^ +5 .* s3 +UserPromptSubmit +none`, lines[5])

	denied := s.run("audit", "show", "--decision", "deny", "--session", "s2", "--tool", "Bash", "--event", "PreToolUse", "--json")
	require.Equal(t, 0, denied.code, denied.stderr)
	var got []struct {
		Seq     int
		Session string
		Reason  string
		Hooks   []struct {
			ID         string
			Source     string
			DurationMs float64 `json:"duration_ms"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(denied.stdout), &got), denied.stdout)
	require.Len(t, got, 1)
	assert.Equal(t, 3, got[0].Seq)
	assert.Equal(t, "no rm", got[0].Reason)
	require.Len(t, got[0].Hooks, 1)
	assert.Equal(t, "no-rm", got[0].Hooks[0].ID)
	assert.Equal(t, filepath.Join(s.project, ".claude", "settings.json"), got[0].Hooks[0].Source)
	last := s.run("audit", "show", "--last", "2", "--json")
	require.NoError(t, json.Unmarshal([]byte(last.stdout), &got))
	assert.Len(t, got, 2)
	assert.Equal(t, 4, got[0].Seq)

	// edited
	data, err := os.ReadFile(log)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(log, []byte(strings.Replace(string(data), `"reason":"no rm"`, `"reason":"ok!!"`, 1)), 0o600))
	bad := s.run("audit", "verify", log)
	assert.Equal(t, exitFail, bad.code)
	assert.Contains(t, bad.stderr, "does not verify at "+log+":1: the hash does not match the entry")
	var rep struct {
		OK      bool
		Problem struct{ Line int }
	}
	j := s.run("audit", "verify", "--json")
	assert.Equal(t, exitFail, j.code)
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &rep), j.stdout)
	assert.False(t, rep.OK)
	assert.Equal(t, 1, rep.Problem.Line)

	// the last entry removed: the chain alone is fine, the head recorded before is not
	cut := data[:strings.LastIndex(strings.TrimSuffix(string(data), "\n"), "\n")+1]
	require.NoError(t, os.WriteFile(log, cut, 0o600))
	assert.Equal(t, 0, s.run("audit", "verify").code)
	h := s.run("audit", "verify", "--head", head)
	assert.Equal(t, exitFail, h.code)
	assert.Contains(t, h.stderr, "is not in the chain")
	// torn
	require.NoError(t, os.WriteFile(log, append(data, `{"v":1,"seq":6`...), 0o600))
	torn := s.run("audit", "verify", "--head", head)
	assert.Equal(t, exitFail, torn.code)
	assert.Contains(t, torn.stderr, "is torn at "+log+":6: torn: the last line is partial")
	require.NoError(t, os.WriteFile(log, data, 0o600))
	ok := s.run("audit", "verify", "--head", head)
	assert.Equal(t, 0, ok.code, ok.stderr)
	assert.Contains(t, ok.stdout, "the head given is entry 5")

	for _, u := range [][]string{{"audit"}, {"audit", "check"}, {"audit", "show", "--head", head}, {"audit", "verify", "--tool", "Bash"}, {"audit", "verify", "a", "b"}} {
		assert.Equal(t, exitUsage, s.run(u...).code, u)
	}
	s.env = append(s.env, "HOOKEXEC_AUDIT_LOG=")
	none := s.run("audit", "verify")
	assert.Equal(t, exitUsage, none.code)
	assert.Contains(t, none.stderr, "HOOKEXEC_AUDIT_LOG")
	missing := s.run("audit", "verify", filepath.Join(s.root, "nope.jsonl"))
	assert.Equal(t, exitFail, missing.code)
	assert.Contains(t, missing.stderr, "no such log")
}

// A keyed log: verify needs the key, and a forger without it cannot reseal an entry.
func TestAuditKeyed(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	log := filepath.Join(s.root, "audit.jsonl")
	key := s.write("key", "an audit key of more than sixteen bytes\n")
	s.env = append(s.env, "HOOKEXEC_AUDIT_LOG="+log, "HOOKEXEC_AUDIT_KEY_FILE="+key)
	out := s.run("--profile", "claude", "fire", "UserPromptSubmit", "--payload", `{"session_id": "s", "prompt": "hi"}`)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, 0, s.run("audit", "verify").code)
	s.env = append(s.env, "HOOKEXEC_AUDIT_KEY_FILE=")
	nokey := s.run("audit", "verify", log)
	assert.Equal(t, exitFail, nokey.code)
	assert.Contains(t, nokey.stderr, "give the log's key")
	assert.Equal(t, 0, s.run("audit", "verify", "--key", key, log).code)
	wrong := s.write("wrong", "another key, also long enough")
	bad := s.run("audit", "verify", "--key", wrong, log)
	assert.Equal(t, exitFail, bad.code)
	assert.Contains(t, bad.stderr, "or the key is wrong")
}

// Through the dispatcher: calls answered by the daemon and calls run in-process (the
// daemon off) append to one log at once; every decision is there once, in one chain, and
// the daemon's own entries carry its pid.
func TestAuditThroughTheDaemon(t *testing.T) {
	t.Parallel()
	s := daemonScenario(t, "10m")
	log := filepath.Join(s.root, "audit.jsonl")
	s.env = append(s.env, "HOOKEXEC_AUDIT_LOG="+log)
	s.prompt(binary, "first") // in-process; starts the daemon
	eventually(t, "the daemon started on demand", func() bool { _, ok := s.status(); return ok })
	st, _ := s.status()

	const each = 6
	var wg sync.WaitGroup
	for _, mode := range []string{"", "off"} {
		for i := 0; i < each; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "mode-" + mode, "cwd": s.project,
					"tool_name": "Write", "tool_use_id": "t", "tool_input": map[string]any{"file_path": "x.txt", "n": i}})
				env := s.env
				if mode == "off" {
					env = append(append([]string(nil), s.env...), "HOOKEXEC_DAEMON=off")
				}
				c := &scenario{t: t, root: s.root, project: s.project, home: s.home, env: env}
				out := c.hookWith(binary, string(b))
				assert.Equal(t, 0, out.code, out.stderr)
				assert.Contains(t, out.stdout, "safe.txt")
			}()
		}
	}
	wg.Wait()

	var rep struct {
		OK    bool
		Fires int
	}
	eventually(t, "every decision in the log", func() bool {
		v := s.run("audit", "verify", "--json", log)
		return json.Unmarshal([]byte(v.stdout), &rep) == nil && rep.OK && rep.Fires == 1+2*each
	})
	show := s.run("audit", "show", "--tool", "Write", "--json", log)
	var got []struct {
		PID                int
		Session            string
		Decision           string
		UpdatedInputSHA256 string `json:"updated_input_sha256"`
	}
	require.NoError(t, json.Unmarshal([]byte(show.stdout), &got))
	require.Len(t, got, 2*each)
	bySession := map[string]map[int]bool{}
	for _, e := range got {
		if bySession[e.Session] == nil {
			bySession[e.Session] = map[int]bool{}
		}
		bySession[e.Session][e.PID] = true
		assert.Equal(t, "allow", e.Decision)
		assert.Len(t, e.UpdatedInputSHA256, 64)
	}
	assert.Equal(t, map[int]bool{st.PID: true}, bySession["mode-"], "answered by the daemon")
	assert.Len(t, bySession["mode-off"], each, "each in-process call is its own process")
	assert.NotContains(t, bySession["mode-off"], st.PID)
}
