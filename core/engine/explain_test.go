package engine

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const explainConfig = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"name": "guard", "command": "echo <<tool_input.command>> >&2"},
        {"name": "off", "command": "true", "enabled": false},
        {"name": "dup", "command": "echo <<tool_input.command>> >&2"}
      ]},
      {"matcher": "Write|Edit", "hooks": [{"name": "fmt", "args": ["fmt", "<<tool_input.file_path>>"]}]},
      {"hooks": [{"name": "all", "command": "printf '%s' <<tool_name>>"}]}
    ],
    "PreToolUs": [{"name": "typo", "command": "true"}],
    "Stop": [{"name": "stop", "command": "true"}]
  },
  "disabledHooks": ["nope-not-a-hook"]
}`

func TestExplainSaysWhyForEveryHookOfTheEvent(t *testing.T) {
	e, _ := open(t, explainConfig)
	x, err := e.Explain("pre-tool", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls 'a b'"}}`))
	require.NoError(t, err)
	assert.Equal(t, "PreToolUse", x.Event)
	assert.Equal(t, "Bash", x.Subject)
	assert.Equal(t, "tool_name", x.SubjectField)
	assert.Equal(t, 2, x.Runs)

	type row struct {
		ID, Check string
		Runs      bool
	}
	var got []row
	by := map[string]HookExplanation{}
	for _, h := range x.Hooks {
		got = append(got, row{h.ID, h.Check, h.Runs})
		if _, seen := by[h.ID]; !seen {
			by[h.ID] = h
		}
	}
	assert.Equal(t, []row{
		{"guard", CheckMatcher, true},
		{"off", CheckDisabled, false},
		{"guard", CheckDuplicate, false}, // dup is identical to guard: it keeps guard's id
		{"fmt", CheckMatcher, false},
		{"all", CheckMatcher, true},
		{"typo", CheckEvent, false},
	}, got, "Stop's hook is not listed; the misspelt PreToolUs is")

	assert.Equal(t, `echo 'ls '\''a b'\''' >&2`, by["guard"].Command, "the shell script after substitution")
	assert.Equal(t, []string{"/bin/sh", "-c", `echo 'ls '\''a b'\''' >&2`}, by["guard"].Argv)
	assert.Equal(t, `matcher "Bash" matches tool_name "Bash"`, by["guard"].Reason)
	assert.Equal(t, `matcher "Write|Edit" does not match tool_name "Bash"`, by["fmt"].Reason)
	assert.Empty(t, by["fmt"].Command, "hooks that do not run are not rendered")
	assert.Equal(t, "enabled is false", by["off"].Reason)
	assert.Contains(t, by["typo"].Reason, `configured under "PreToolUs"`)
	assert.Equal(t, "printf '%s' 'Bash'", by["all"].Command)

	x, err = e.Explain("PreToolUse", []byte(`{"tool_name":"Write","tool_input":{"file_path":"a b.py"}}`))
	require.NoError(t, err)
	for _, h := range x.Hooks {
		if h.ID == "fmt" {
			assert.True(t, h.Runs)
			assert.Equal(t, []string{"fmt", "a b.py"}, h.Argv)
			assert.Equal(t, "fmt 'a b.py'", h.Command)
		}
	}

	_, err = e.Explain("Stop", []byte(`[1]`))
	assert.True(t, errors.Is(err, ErrInvalid))
}

func TestExplainDisableAllAndFilter(t *testing.T) {
	e, _ := open(t, `{"hooks": {"Stop": [{"command": "true"}]}, "disableAllHooks": true}`)
	x, err := e.Explain("Stop", nil)
	require.NoError(t, err)
	require.Len(t, x.Hooks, 1)
	assert.Equal(t, CheckDisableAll, x.Hooks[0].Check)
	assert.False(t, x.Hooks[0].Runs)

	e, _ = open(t, `{"hooks": {"enabled": true, "hooks": [
		{"event": "pre-tool", "command": "true", "filter": {"tool": ["write_file"], "path": ["src/**"]}}]}}`)
	x, err = e.Explain("pre-tool", []byte(`{"tool_name":"write_file","tool_input":{"path":"docs/a.md"}}`))
	require.NoError(t, err)
	require.Len(t, x.Hooks, 1)
	assert.Equal(t, CheckFilter, x.Hooks[0].Check)
	assert.False(t, x.Hooks[0].Runs)
	assert.Contains(t, x.Hooks[0].Reason, `rejects tool "write_file", path "docs/a.md"`)
	x, err = e.Explain("pre-tool", []byte(`{"tool_name":"write_file","tool_input":{"path":"src/a.go"}}`))
	require.NoError(t, err)
	assert.True(t, x.Hooks[0].Runs)
}

// Explain mirrors the selection Fire makes; this keeps the two from drifting apart.
func TestExplainAgreesWithFire(t *testing.T) {
	e, _ := open(t, explainConfig)
	payloads := []string{
		`{"tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"tool_name":"Write","tool_input":{"file_path":"x"}}`,
		`{"tool_name":"Read"}`,
		`{}`,
	}
	for _, ev := range []string{"PreToolUse", "Stop", "PreToolUs"} {
		for _, pl := range payloads {
			x, err := e.Explain(ev, []byte(pl))
			require.NoError(t, err)
			var want []string
			for _, h := range x.Hooks {
				if h.Runs {
					want = append(want, h.ID)
				}
			}
			r := fireT(t, e, ev, pl)
			var got []string
			for _, h := range r.Hooks {
				got = append(got, h.ID)
			}
			assert.Equal(t, want, got, "%s %s", ev, pl)
		}
	}
}

func readLog(t *testing.T, path string) []logLine {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l logLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), sc.Text())
		out = append(out, l)
	}
	return out
}

func TestLogFileRecordsEveryFire(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "fires.jsonl")
	e, _ := open(t, explainConfig, func(o *Options) { o.LogFile = logPath })
	fireT(t, e, "pre-tool", `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	fireT(t, e, "SessionStart", `{}`) // nothing configured: still one line
	lines := readLog(t, logPath)
	require.Len(t, lines, 2)

	l := lines[0]
	assert.Equal(t, "PreToolUse", l.Event)
	assert.Equal(t, "pre-tool", l.FiredAs)
	assert.Equal(t, "Bash", l.Subject)
	assert.Equal(t, 2, l.Matched)
	assert.NotEmpty(t, l.Time)
	require.Len(t, l.Hooks, 6, "every hook of the event, run or not")
	g := l.Hooks[0]
	assert.Equal(t, "guard", g.ID)
	assert.True(t, g.Ran)
	assert.Equal(t, `echo 'rm -rf /' >&2`, g.Command)
	require.NotNil(t, g.ExitCode)
	assert.Equal(t, 0, *g.ExitCode)
	assert.Contains(t, g.Reason, "matches")
	assert.False(t, l.Hooks[3].Ran)
	assert.Nil(t, l.Hooks[3].ExitCode)
	assert.Contains(t, l.Hooks[3].Reason, "does not match")

	assert.Equal(t, "SessionStart", lines[1].Event)
	assert.Empty(t, lines[1].Hooks)
	assert.Equal(t, 0, lines[1].Matched)
}

func TestLogFileFromEnvironmentAndConcurrentFires(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "env.jsonl")
	t.Setenv(LogEnv, logPath)
	e, _ := open(t, explainConfig)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.Fire("PreToolUse", []byte(`{"tool_name":"Read"}`))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	lines := readLog(t, logPath)
	assert.Len(t, lines, 16, "one whole line per fire, none interleaved")
	assert.True(t, slices.ContainsFunc(lines[0].Hooks, func(h logHook) bool { return h.ID == "all" && h.Ran }))
}

func TestLogFileThatCannotBeOpened(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(Options{ProjectDir: dir, Home: dir, LogFile: filepath.Join(dir, "no", "such", "dir", "x.log")})
	assert.True(t, errors.Is(err, ErrInvalid), "an explicit log_file that cannot be opened is the host's mistake: %v", err)

	t.Setenv(LogEnv, filepath.Join(dir, "no", "such", "dir", "x.log"))
	e, err := Open(Options{ProjectDir: dir, Home: dir})
	require.NoError(t, err, "a bad $HOOKEXEC_LOG must not break the host")
	defer e.Close()
	ws, err := e.Check()
	require.NoError(t, err)
	require.NotEmpty(t, ws)
	assert.Equal(t, LogEnv, ws[0].Source)
	assert.Contains(t, ws[0].Message, "cannot open the log")
}

// Under trust "project", a project hook that is not approved matches but does not run;
// Explain says so, and agrees with Fire.
func TestExplainTrust(t *testing.T) {
	tp := newTrustProject(t)
	e := tp.open(t)
	x, err := e.Explain("PreToolUse", []byte(bashPayload))
	require.NoError(t, err)
	require.Len(t, x.Hooks, 2)
	assert.Equal(t, "guard", x.Hooks[0].ID)
	assert.Equal(t, CheckTrust, x.Hooks[0].Check)
	assert.False(t, x.Hooks[0].Runs)
	assert.Contains(t, x.Hooks[0].Reason, "hookexec trust approve guard")
	assert.True(t, x.Hooks[1].Runs, "the user-level hook needs no approval")
	assert.Equal(t, 1, x.Runs)
	r := fireT(t, e, "PreToolUse", bashPayload)
	require.Len(t, r.Hooks, 1)
	assert.Equal(t, "user", r.Hooks[0].ID)
}

// Claude Code's "if" rules and "once" hooks: Explain names them, and agrees with Fire.
func TestExplainIfAndOnce(t *testing.T) {
	e, _ := open(t, `{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "name": "gitonly", "if": "Bash(git *)"}]}],
		"SessionStart": [{"hooks": [{"type": "command", "command": "true", "name": "first", "once": true}]}]}}`,
		func(o *Options) { o.Profile = "claude" })
	for _, c := range []struct {
		cmd  string
		runs bool
	}{{"git status", true}, {"ls", false}} {
		pl := []byte(`{"tool_name":"Bash","tool_input":{"command":"` + c.cmd + `"}}`)
		x, err := e.Explain("PreToolUse", pl)
		require.NoError(t, err)
		require.Len(t, x.Hooks, 1)
		assert.Equal(t, CheckIf, x.Hooks[0].Check)
		assert.Equal(t, c.runs, x.Hooks[0].Runs, c.cmd)
		assert.Contains(t, x.Hooks[0].Reason, `"Bash(git *)"`)
		assert.Equal(t, boolInt(c.runs), fireT(t, e, "PreToolUse", string(pl)).Matched, c.cmd)
	}

	pl := `{"session_id":"s1"}`
	x, err := e.Explain("SessionStart", []byte(pl))
	require.NoError(t, err)
	assert.True(t, x.Hooks[0].Runs)
	assert.Equal(t, 1, fireT(t, e, "SessionStart", pl).Matched)
	x, err = e.Explain("SessionStart", []byte(pl))
	require.NoError(t, err)
	assert.False(t, x.Hooks[0].Runs, "once: it ran in s1 already")
	assert.Equal(t, CheckOnce, x.Hooks[0].Check)
	assert.Equal(t, 0, fireT(t, e, "SessionStart", pl).Matched)
	x, err = e.Explain("SessionStart", []byte(`{"session_id":"s2"}`))
	require.NoError(t, err)
	assert.True(t, x.Hooks[0].Runs, "another session")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Hooks that run no argv here (http, and the host-evaluated types) are logged with what
// they would run: the url, the prompt.
func TestLogFileNamesWhatEveryTypeRuns(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	logPath := filepath.Join(t.TempDir(), "types.jsonl")
	e, _ := open(t, `{"hooks":{"PreToolUse":[{"hooks":[
		{"type":"http","url":"`+srv.URL+`/hook"},
		{"type":"agent","prompt":"check the command"}]}]}}`, func(o *Options) { o.LogFile, o.Profile = logPath, "claude" })
	fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`)
	lines := readLog(t, logPath)
	require.Len(t, lines, 1)
	require.Len(t, lines[0].Hooks, 2)
	assert.True(t, lines[0].Hooks[0].Ran)
	assert.Equal(t, srv.URL+"/hook", lines[0].Hooks[0].Command)
	assert.Equal(t, "check the command", lines[0].Hooks[1].Command)
}

// SessionEnd forgets what the session's once hooks and Stop cap kept.
func TestSessionEndForgetsTheSession(t *testing.T) {
	e, _ := open(t, `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"true","once":true}]}],
		"Stop":[{"hooks":[{"type":"command","command":"echo no >&2; exit 2"}]}]}}`)
	fireT(t, e, "SessionStart", `{"session_id":"a"}`)
	fireT(t, e, "Stop", `{"session_id":"a"}`)
	e.sessions.mu.Lock()
	require.NotEmpty(t, e.sessions.ran, "the once hook is remembered")
	require.NotEmpty(t, e.sessions.stopBlocks, "the blocked Stop is counted")
	e.sessions.mu.Unlock()
	fireT(t, e, "SessionEnd", `{"session_id":"a"}`)
	e.sessions.mu.Lock()
	defer e.sessions.mu.Unlock()
	assert.Empty(t, e.sessions.ran)
	assert.Empty(t, e.sessions.stopBlocks)
}

// A Kiro fileEdited hook runs for a changed file, not a created one; explain says which.
func TestExplainFileEvents(t *testing.T) {
	e, _ := open(t, `{"name": "lint", "when": {"type": "fileEdited", "patterns": ["**/*.ts"]}, "then": {"type": "runCommand", "command": "true"}}`)
	x, err := e.Explain("FileChanged", []byte(`{"file_path":"a.ts","event":"add"}`))
	require.NoError(t, err)
	require.Len(t, x.Hooks, 1)
	assert.Equal(t, CheckFilter, x.Hooks[0].Check)
	assert.False(t, x.Hooks[0].Runs)
	assert.Equal(t, `file event "add" is not one of change`, x.Hooks[0].Reason)
	x, err = e.Explain("FileChanged", []byte(`{"file_path":"a.ts","event":"change"}`))
	require.NoError(t, err)
	assert.True(t, x.Hooks[0].Runs, x.Hooks[0].Reason)
	r, err := e.Fire("FileChanged", []byte(`{"file_path":"a.ts","event":"add"}`))
	require.NoError(t, err)
	assert.Zero(t, r.Matched)
}
