package engine

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// writeFile writes content under root, creating directories; .sh files are executable.
func writeFile(t *testing.T, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	mode := os.FileMode(0o644)
	if strings.HasSuffix(rel, ".sh") {
		mode = 0o755
	}
	require.NoError(t, os.WriteFile(p, []byte(content), mode))
	return p
}

// openProfile opens an engine of profile on a fresh project and home, after setup wrote files.
func openProfile(t *testing.T, profile string, setup func(project, home string), mutate ...func(*Options)) (*Engine, string, string) {
	t.Helper()
	root := t.TempDir()
	project, home := filepath.Join(root, "project"), filepath.Join(root, "home")
	require.NoError(t, os.MkdirAll(project, 0o755))
	require.NoError(t, os.MkdirAll(home, 0o755))
	setup(project, home)
	o := Options{Profile: profile, ProjectDir: project, Home: home, Env: map[string]string{"HOME": home}}
	for _, m := range mutate {
		m(&o)
	}
	e, err := Open(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e, project, home
}

func configReport(t *testing.T, e *Engine) *ConfigReport {
	t.Helper()
	r, err := e.Config()
	require.NoError(t, err)
	return r
}

func jsonMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m), s)
	return m
}

func TestAutohand(t *testing.T) {
	e, project, _ := openProfile(t, "autohand", func(project, home string) {
		writeFile(t, home, ".autohand/config.json", `{"hooks": {"enabled": true, "hooks": [
		  {"event": "pre-tool", "command": "echo \"$HOOK_EVENT|$HOOK_TOOL|$HOOK_ARGS|$HOOK_TOOL_CALL_ID\"; cat", "matcher": "^(run_command|delete_path)$", "description": "dangerous tools"},
		  {"event": "pre-tool", "command": "echo '{\"decision\": \"block\", \"reason\": \"no deletes\"}'", "matcher": "delete"},
		  {"event": "pre-tool", "command": "echo '{\"decision\": \"allow\", \"updatedInput\": {\"path\": \"safe.txt\"}, \"additionalContext\": \"rewritten\"}'", "filter": {"tool": ["write_file"]}},
		  {"event": "file-modified", "command": "echo \"$HOOK_PATH $HOOK_CHANGE_TYPE\"", "filter": {"path": ["src/**/*.ts"]}},
		  {"event": "permission-request", "command": "echo '{\"decision\": \"ask\"}'", "matcher": "read"},
		  {"event": "stop", "command": "echo never", "enabled": false},
		  {"event": "post-response", "command": "echo \"$HOOK_EVENT $HOOK_TOKENS\""}
		]}}`)
	})
	cfg := configReport(t, e)
	require.Empty(t, cfg.Warnings)
	require.Len(t, cfg.Hooks, 7)
	require.Equal(t, "autohand", cfg.Hooks[0].Dialect)
	require.Equal(t, "dangerous tools", cfg.Hooks[0].Description)
	require.Equal(t, int64(5000), cfg.Hooks[0].TimeoutMs, "autohand's default timeout is 5000 ms")
	require.False(t, cfg.Hooks[5].Enabled)
	require.True(t, cfg.Notifications)

	// The matcher is a regex; hooks see autohand's spelling of the event even when the host
	// uses Claude Code's, in HOOK_EVENT and on stdin.
	r := fireT(t, e, "PreToolUse", `{"tool_name":"run_command","tool_input":{"command":"ls"},"tool_use_id":"call_1"}`)
	require.Equal(t, 1, r.Matched)
	lines := strings.SplitN(r.Hooks[0].Stdout, "\n", 2)
	require.Equal(t, `pre-tool|run_command|{"command":"ls"}|call_1`, lines[0])
	stdin := jsonMap(t, lines[1])
	require.Equal(t, "pre-tool", stdin["hook_event_name"])
	require.Equal(t, project, stdin["cwd"])

	// "delete" is unanchored: it matches delete_path; "block" blocks.
	r = fireT(t, e, "pre-tool", `{"tool_name":"delete_path","tool_input":{"path":"x"}}`)
	require.Equal(t, 2, r.Matched)
	require.True(t, r.Blocked)
	require.Equal(t, "deny", r.Decision)
	require.Equal(t, "no deletes", r.Reason)

	// filter.tool; top-level updatedInput and additionalContext.
	r = fireT(t, e, "pre-tool", `{"tool_name":"write_file","tool_input":{"path":"/etc/passwd","content":"x"}}`)
	require.Equal(t, 1, r.Matched)
	require.Equal(t, "allow", r.Decision)
	require.JSONEq(t, `{"path":"safe.txt"}`, string(r.UpdatedInput), "updatedInput replaces the input")
	require.Equal(t, "rewritten", r.AdditionalContext)

	// filter.path: ** globs against the path relative to the project; no path, no match.
	for path, want := range map[string]int{
		"src/a.ts": 1, "src/deep/er/b.ts": 1, filepath.Join(project, "src/c.ts"): 1,
		"lib/a.ts": 0, "src/a.js": 0, "/elsewhere/src/a.ts": 0, "": 0,
	} {
		r = fireT(t, e, "file-modified", `{"file_path":"`+path+`","change_type":"modify"}`)
		require.Equal(t, want, r.Matched, path)
	}
	r = fireT(t, e, "file-modified", `{"file_path":"src/x.ts","change_type":"create"}`)
	require.Equal(t, "src/x.ts create\n", r.Hooks[0].Stdout)

	r = fireT(t, e, "permission-request", `{"tool_name":"read_file","path":"a"}`)
	require.Equal(t, "ask", r.Decision)
	require.False(t, r.Blocked)

	// post-response is stop; a disabled hook does not run; the alias is kept in HOOK_EVENT.
	r = fireT(t, e, "post-response", `{"tokens_used":1234}`)
	require.Equal(t, "Stop", r.Event)
	require.Equal(t, 1, r.Matched)
	require.Equal(t, "post-response 1234\n", r.Hooks[0].Stdout)
	r = fireT(t, e, "stop", `{"tokens_used":1}`)
	require.Equal(t, "stop 1\n", r.Hooks[0].Stdout)
}

func TestAutohandDisabledFileAndBadEntries(t *testing.T) {
	e, _, _ := openProfile(t, "autohand", func(project, home string) {
		writeFile(t, home, ".autohand/config.json", `{"hooks": {"enabled": false, "hooks": [
		  {"event": "pre-tool", "command": "true"},
		  {"event": "pre-tol", "command": "true"},
		  {"event": "pre-tool", "command": "true", "matcher": "(unclosed"},
		  {"event": "file-modified", "command": "true", "filter": {"path": ["src/[a"]}},
		  {"command": "no event"},
		  {"event": "stop", "command": "true", "timeout": -5}
		]}}`)
	})
	cfg := configReport(t, e)
	for _, h := range cfg.Hooks {
		require.False(t, h.Enabled, h.ID)
	}
	require.Equal(t, "hooks.enabled is false", cfg.Hooks[0].Disabled)
	msgs := ""
	for _, w := range cfg.Warnings {
		msgs += w.String() + "\n"
	}
	require.Contains(t, msgs, `unknown event "pre-tol" (did you mean "PreToolUse"?)`)
	require.Contains(t, msgs, `(unclosed`)
	require.Contains(t, msgs, `filter.path "src/[a" is not a valid glob`)
	require.Contains(t, msgs, `hooks.hooks[4] has no "event"`)
	require.Contains(t, msgs, `timeout -5 is not positive`)
	require.Equal(t, 0, fireT(t, e, "pre-tool", `{"tool_name":"x"}`).Matched)
}

// listen collects listener calls of one kind.
type listened struct {
	mu   sync.Mutex
	msgs []string
}

func (l *listened) fn(kind string) Listener {
	return func(k string, data []byte) {
		if k == kind {
			l.mu.Lock()
			l.msgs = append(l.msgs, string(data))
			l.mu.Unlock()
		}
	}
}

func (l *listened) wait(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		got := append([]string(nil), l.msgs...)
		l.mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			require.Len(t, got, n)
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAutohandNotifications(t *testing.T) {
	e, _, _ := openProfile(t, "autohand", func(project, home string) {
		writeFile(t, home, ".autohand/config.json", `{"hooks": {"hooks": [{"event": "pre-tool", "command": "true", "matcher": "^run_command$"}]}}`)
	})
	// No listener: nothing queued, nothing delivered later.
	fireT(t, e, "pre-tool", `{"tool_name":"run_command"}`)
	var l listened
	require.NoError(t, e.SetListener(l.fn("notification")))
	fireT(t, e, "pre-tool", `{"tool_name":"run_command","tool_input":{"command":"ls"},"tool_use_id":"c1"}`)
	fireT(t, e, "PostToolUse", `{"tool_name":"read_file","tool_use_id":"c2","tool_success":true,"duration":12}`) // no hook: still announced
	fireT(t, e, "session-start", `{"session_type":"startup"}`)
	fireT(t, e, "post-response", `{"tokens_used":10,"tool_calls_count":2,"duration":300}`)
	fireT(t, e, "PreCompact", `{}`) // autohand has no such notification
	got := l.wait(t, 4)
	want := []struct {
		method string
		params string
	}{
		{"autohand.hook.preTool", `{"toolId":"c1","toolName":"run_command","args":{"command":"ls"}}`},
		{"autohand.hook.postTool", `{"toolId":"c2","toolName":"read_file","success":true,"duration":12}`},
		{"autohand.hook.sessionStart", `{"sessionType":"startup"}`},
		{"autohand.hook.postResponse", `{"tokensUsed":10,"toolCallsCount":2,"duration":300}`},
	}
	for i, w := range want {
		m := jsonMap(t, got[i])
		require.Equal(t, "2.0", m["jsonrpc"])
		require.Equal(t, w.method, m["method"])
		require.NotContains(t, m, "id", "a notification has no id")
		params := m["params"].(map[string]any)
		ts, err := time.Parse(time.RFC3339, params["timestamp"].(string))
		require.NoError(t, err)
		require.WithinDuration(t, time.Now(), ts, time.Minute)
		delete(params, "timestamp")
		b, _ := json.Marshal(params)
		require.JSONEq(t, w.params, string(b))
	}
	require.NoError(t, e.Close())
	time.Sleep(50 * time.Millisecond)
	require.Len(t, l.wait(t, 4), 4, "nothing after close")
}

func TestNotificationsOnlyForAutohandUnlessAsked(t *testing.T) {
	cfg := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"true"}]}]}}`
	e, _ := open(t, cfg)
	require.False(t, configReport(t, e).Notifications)
	var l listened
	require.NoError(t, e.SetListener(l.fn("notification")))
	fireT(t, e, "PreToolUse", `{"tool_name":"x"}`)

	on := true
	e2, _ := open(t, cfg, func(o *Options) { o.Notifications = &on })
	require.True(t, configReport(t, e2).Notifications)
	var l2 listened
	require.NoError(t, e2.SetListener(l2.fn("notification")))
	fireT(t, e2, "PreToolUse", `{"tool_name":"x"}`)
	require.Len(t, l2.wait(t, 1), 1)
	require.Empty(t, l.msgs)
}

func TestAutoAgent(t *testing.T) {
	e, project, home := openProfile(t, "autoagent", func(project, home string) {
		require.NoError(t, os.MkdirAll(filepath.Join(home, ".autoagent/sessions"), 0o755)) // AutoAgent keeps its sessions there
		writeFile(t, project, ".autoagent/config.json", `{"providers": ["claude"], "gitAutoCommit": false, "hooks": {
		  "PreExecutionStart": [
		    {"type": "command", "command": "echo 'About to start issue {{issueNumber}}: {{issueTitle}}' >> ~/.autoagent/execution.log"},
		    {"type": "command", "command": "cat > \"$HOME/stdin.json\""}
		  ],
		  "PreExecutionEnd": [
		    {"type": "command", "command": "echo first >> order.log; echo 'no tests' >&2; exit 2"},
		    {"type": "command", "command": "echo second >> order.log"}
		  ],
		  "PostExecutionEnd": [
		    {"type": "command", "command": "echo post >&2; exit 2"},
		    {"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"too late\"}'"}
		  ],
		  "Stop": [
		    {"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"3 checklist items left\", \"feedback\": \"finish the checklist\"}'"}
		  ],
		  "PreGitCommit": [
		    {"type": "command", "command": "exit 1", "blocking": true},
		    {"type": "command", "command": "sleep 5", "timeout": 100}
		  ]
		}}`)
	})
	cfg := configReport(t, e)
	require.Empty(t, cfg.Warnings)
	require.Equal(t, "autoagent", cfg.Hooks[0].Dialect)
	require.True(t, cfg.Hooks[0].Sequential)
	require.Equal(t, int64(60000), cfg.Hooks[0].TimeoutMs)
	require.Equal(t, int64(100), cfg.Hooks[len(cfg.Hooks)-1].TimeoutMs, "timeouts are milliseconds")

	title := `it's "$(touch PWNED)" done`
	r := fireT(t, e, "PreExecutionStart", `{"issueNumber": 42, "issueTitle": `+string(must(json.Marshal(title)))+`}`)
	require.False(t, r.Blocked)
	log, err := os.ReadFile(filepath.Join(home, ".autoagent/execution.log"))
	require.NoError(t, err)
	require.Equal(t, "About to start issue 42: "+title+"\n", string(log))
	require.NoFileExists(t, filepath.Join(project, "PWNED"))
	stdin := jsonMap(t, string(must(os.ReadFile(filepath.Join(home, "stdin.json")))))
	require.Equal(t, "PreExecutionStart", stdin["eventName"])
	require.Equal(t, project, stdin["workspace"])
	require.IsType(t, float64(0), stdin["timestamp"], "timestamp is Date.now(): a number")
	require.InDelta(t, float64(time.Now().UnixMilli()), stdin["timestamp"], 60000)
	require.Equal(t, float64(42), stdin["issueNumber"])
	require.Contains(t, stdin, "sessionId")

	// Sequential, and the first block ends the fire.
	r = fireT(t, e, "PreExecutionEnd", `{"issueNumber": 1, "success": true}`)
	require.True(t, r.Blocked)
	require.Equal(t, "no tests", r.Reason)
	require.Equal(t, -1, r.Hooks[1].ExitCode)
	require.Equal(t, "not run: an earlier hook blocked", r.Hooks[1].Error)
	require.Equal(t, "first\n", string(must(os.ReadFile(filepath.Join(project, "order.log")))))

	// Post* events cannot block: exit 2 is an error, decision block is ignored.
	r = fireT(t, e, "PostExecutionEnd", `{"issueNumber": 1}`)
	require.False(t, r.Blocked)
	require.Contains(t, r.Hooks[0].Error, "cannot block")
	require.Equal(t, 0, r.Hooks[1].ExitCode)

	// Stop can block; feedback reaches the agent.
	r = fireT(t, e, "Stop", `{"reason": "completed", "issuesCompleted": 4, "issuesTotal": 5}`)
	require.True(t, r.Blocked)
	require.Equal(t, "3 checklist items left", r.Reason)
	require.Equal(t, "finish the checklist", r.AdditionalContext)

	// blocking: any non-zero exit blocks.
	r = fireT(t, e, "PreGitCommit", `{}`)
	require.True(t, r.Blocked)
	require.Equal(t, "blocking hook exited with status 1", r.Reason)
	require.Equal(t, "not run: an earlier hook blocked", r.Hooks[1].Error)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// gitRepo makes a repository with one commit and a bare remote "origin".
func gitRepo(t *testing.T, project string) (remote string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	remote = filepath.Join(filepath.Dir(project), "remote.git")
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), gitEnv()...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	git(filepath.Dir(project), "init", "-q", "--bare", remote)
	git(project, "init", "-q", "-b", "main")
	writeFile(t, project, "README", "hello\n")
	git(project, "add", "README")
	git(project, "commit", "-q", "-m", "initial")
	git(project, "remote", "add", "origin", remote)
	return remote
}

func gitEnv() []string {
	return []string{"GIT_AUTHOR_NAME=Hook Test", "GIT_AUTHOR_EMAIL=hook@example.com",
		"GIT_COMMITTER_NAME=Hook Test", "GIT_COMMITTER_EMAIL=hook@example.com",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv()...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func TestGitBuiltins(t *testing.T) {
	var remote string
	env := map[string]string{}
	for _, kv := range gitEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	e, project, _ := openProfile(t, "autoagent", func(project, home string) {
		remote = gitRepo(t, project)
		writeFile(t, project, ".autoagent/config.json", `{"hooks": {"PostExecutionEnd": [
		  {"type": "command", "command": "echo tests pass"},
		  {"type": "git-commit", "message": "Complete issue #{{issueNumber}}: {{issueTitle}}"},
		  {"type": "git-push", "remote": "origin", "branch": "current"}
		]}}`)
	}, func(o *Options) {
		for k, v := range env {
			o.Env[k] = v
		}
	})
	cfg := configReport(t, e)
	require.Empty(t, cfg.Warnings)
	require.Equal(t, "builtin", cfg.Hooks[1].Exec)
	require.Equal(t, "git add -A && git commit -m Complete issue #{{issueNumber}}: {{issueTitle}}", cfg.Hooks[1].Command)
	require.Equal(t, "git push origin HEAD", cfg.Hooks[2].Command)

	writeFile(t, project, "src/auth.ts", "export {}\n")
	title := `Add "auth" $(rm -rf /) ; it's done`
	r := fireT(t, e, "PostExecutionEnd", `{"issueNumber": 7, "issueTitle": `+string(must(json.Marshal(title)))+`, "success": true}`)
	for _, h := range r.Hooks {
		require.Equal(t, 0, h.ExitCode, "%s: %s %s %s", h.Command, h.Stdout, h.Stderr, h.Error)
		require.Empty(t, h.Error)
	}
	require.Equal(t, "builtin", r.Hooks[1].Exec)
	require.Equal(t, "Complete issue #7: "+title, gitOut(t, project, "log", "-1", "--format=%B"))
	require.Contains(t, gitOut(t, project, "show", "--name-only", "--format="), "src/auth.ts", "the work is staged and committed")
	require.Equal(t, gitOut(t, project, "rev-parse", "HEAD"), gitOut(t, remote, "rev-parse", "main"), "pushed to the bare remote")

	// Nothing changed: the commit step succeeds and says so; the push is a no-op.
	r = fireT(t, e, "PostExecutionEnd", `{"issueNumber": 8, "issueTitle": "noop"}`)
	require.Equal(t, 0, r.Hooks[1].ExitCode)
	require.Contains(t, r.Hooks[1].Stdout, "nothing to commit")
	require.Equal(t, "Complete issue #7: "+title, gitOut(t, project, "log", "-1", "--format=%B"))
}

func TestGitCommitNoVerifyAndFailure(t *testing.T) {
	env := map[string]string{}
	for _, kv := range gitEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	e, project, _ := openProfile(t, "autoagent", func(project, home string) {
		gitRepo(t, project)
		writeFile(t, project, ".git/hooks/pre-commit", "#!/bin/sh\necho 'pre-commit says no' >&2\nexit 1\n")
		require.NoError(t, os.Chmod(filepath.Join(project, ".git/hooks/pre-commit"), 0o755))
		writeFile(t, project, ".autoagent/config.json", `{"hooks": {
		  "PostExecutionEnd": [{"type": "git-commit", "message": "checked"}],
		  "PostGitCommit": [{"type": "git-commit", "message": "unchecked {{n}}", "noVerify": true}],
		  "PrePush": [{"type": "git-push", "remote": "nowhere"}]
		}}`)
	}, func(o *Options) {
		for k, v := range env {
			o.Env[k] = v
		}
	})
	writeFile(t, project, "a.txt", "a\n")
	r := fireT(t, e, "PostExecutionEnd", `{}`)
	require.Equal(t, 1, r.Hooks[0].ExitCode)
	require.Contains(t, r.Hooks[0].Stderr, "pre-commit says no")
	require.Contains(t, r.Hooks[0].Error, "exit status 1")
	require.False(t, r.Blocked, "a failing built-in on a Post event is a non-blocking error")
	require.Equal(t, "initial", gitOut(t, project, "log", "-1", "--format=%s"))

	r = fireT(t, e, "PostGitCommit", `{"n": 2}`)
	require.Equal(t, 0, r.Hooks[0].ExitCode, r.Hooks[0].Stderr)
	require.Equal(t, "unchecked 2", gitOut(t, project, "log", "-1", "--format=%s"))

	// A push that fails on a Pre event: non-zero exit without blocking flag is an error, not a block.
	r = fireT(t, e, "PrePush", `{}`)
	require.NotEqual(t, 0, r.Hooks[0].ExitCode)
	require.Contains(t, r.Hooks[0].Stderr, "nowhere")
	require.False(t, r.Blocked)
}

func TestMycode(t *testing.T) {
	e, project, _ := openProfile(t, "mycode", func(project, home string) {
		writeFile(t, project, ".gen/settings.json", `{"hooks": {"PostToolUse": [
		  {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "echo 'File modified: $FILE_PATH'", "timeout": 5000}]}
		]}}`)
		writeFile(t, project, ".claude/settings.json", `{"hooks": {
		  "PostToolUse": [
		    {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "echo 'File modified: $FILE_PATH'", "timeout": 5000}]},
		    {"matcher": "Bash", "type": "command", "command": "echo \"$TOOL_NAME exit=$EXIT_CODE session=${SESSION_ID} cwd=$CWD\""}
		  ],
		  "PreToolUse": [{"matcher": "Bash", "type": "command", "command": "exit 1", "blocking": true}]
		}}`)
		writeFile(t, home, ".claude/settings.json", `{"hooks": {"Stop": [{"type": "command", "command": "echo home"}]}}`)
	}, func(o *Options) { o.SessionID = "s-1" })
	cfg := configReport(t, e)
	require.Empty(t, cfg.Warnings)
	require.Len(t, cfg.Hooks, 5, ".gen and .claude concatenated at each level")
	require.Contains(t, cfg.Hooks[1].Disabled, "duplicate of", "the identical .claude handler runs once")
	require.Equal(t, int64(5000), cfg.Hooks[0].TimeoutMs)
	require.Equal(t, int64(60000), cfg.Hooks[2].TimeoutMs, "mycode's default: 60 s")
	require.Equal(t, "mycode", cfg.Hooks[0].Dialect)

	path := `src/it's $(x).tsx`
	r := fireT(t, e, "PostToolUse", `{"tool_name":"Write","tool_input":{"file_path":`+string(must(json.Marshal(path)))+`}}`)
	require.Equal(t, 1, r.Matched)
	require.Equal(t, "File modified: "+path+"\n", r.Hooks[0].Stdout)

	r = fireT(t, e, "PostToolUse", `{"tool_name":"Bash","tool_response":{"exit_code":3}}`)
	require.Equal(t, "Bash exit=3 session=s-1 cwd="+project+"\n", r.Hooks[0].Stdout)

	r = fireT(t, e, "PreToolUse", `{"tool_name":"Bash"}`)
	require.True(t, r.Blocked, "blocking: a non-zero exit blocks")
	require.Equal(t, 1, fireT(t, e, "Stop", `{}`).Matched)
}

func TestIteratr(t *testing.T) {
	e, _, _ := openProfile(t, "iteratr", func(project, home string) {
		writeFile(t, project, ".iteratr.hooks.yml", `version: 1
hooks:
  session_start:
    - command: "echo started {{session}}"
      pipe_output: true
    - command: "echo quiet"
  pre_iteration:
    - command: "echo lint {{iteration}}; echo warn >&2"
      timeout: 5
      pipe_output: true
  post_iteration:
    - command: "echo tests failed; exit 1"
      pipe_output: true
  on_task_complete:
    - command: "echo done {{task_id}}: {{task_content}}"
      pipe_output: true
  on_error:
    - command: "echo 'error was: {{error}}'"
      pipe_output: true
  session_end:
    - command: "echo bye"
      pipe_output: true
`)
	})
	cfg := configReport(t, e)
	require.Len(t, cfg.Hooks, 7)
	require.Equal(t, "iteratr", cfg.Hooks[0].Dialect)
	require.Equal(t, int64(30000), cfg.Hooks[0].TimeoutMs, "30 s default")
	require.Equal(t, int64(5000), cfg.Hooks[2].TimeoutMs, "timeouts are seconds")
	require.Len(t, cfg.Warnings, 1)
	require.Contains(t, cfg.Warnings[0].Message, "pipe_output has no effect on session_end")

	r := fireT(t, e, "session_start", `{"session":"s1"}`)
	require.Empty(t, r.AgentOutput, "session_start output waits for the first iteration")
	r = fireT(t, e, "pre_iteration", `{"session":"s1","iteration":1}`)
	require.Equal(t, []string{"started s1\n", "lint 1\nwarn\n"}, r.AgentOutput, "pending first, then this iteration's")
	r = fireT(t, e, "post_iteration", `{"iteration":1}`)
	require.Empty(t, r.AgentOutput)
	r = fireT(t, e, "on_task_complete", `{"task_id":"T-1","task_content":"it's \"done\""}`)
	require.Empty(t, r.AgentOutput, "queued for the next iteration, not handed to this fire")
	r = fireT(t, e, "on_error", `{"error":"boom $(x)"}`)
	require.Equal(t, []string{"error was: boom $(x)\n"}, r.AgentOutput, "on_error's own output comes at once; the buffer waits")
	r = fireT(t, e, "session_end", `{}`)
	require.Empty(t, r.AgentOutput)
	out, err := e.Drain()
	require.NoError(t, err)
	require.Equal(t, []string{"tests failed\nexit status 1", "done T-1: it's \"done\"\n"}, out,
		"final delivery: a failing command's output and why it failed, then the task's; session_end never pipes")
	out, err = e.Drain()
	require.NoError(t, err)
	require.Empty(t, out)

	fireT(t, e, "post_iteration", `{"iteration":2}`)
	out, _ = e.Drain()
	require.Equal(t, []string{"tests failed\nexit status 1"}, out, "drain hands the pending buffer over")
}

func TestIteratrParseErrorIsAWarning(t *testing.T) {
	e, _, _ := openProfile(t, "iteratr", func(project, home string) {
		writeFile(t, project, ".iteratr.hooks.yml", "version: 1\nhooks:\n  pre_iteration:\n    - command: [unclosed\n")
	})
	cfg := configReport(t, e)
	require.Len(t, cfg.Warnings, 1)
	require.Contains(t, cfg.Warnings[0].Message, "invalid YAML, no hooks loaded")
	require.Equal(t, "error", cfg.Sources[0].Status)
	require.Equal(t, 0, fireT(t, e, "pre_iteration", `{}`).Matched)
}

// TestMixedDialects merges one file of each dialect, named in sources, into one engine.
func TestMixedDialects(t *testing.T) {
	var sources []string
	e, _, _ := openProfile(t, "cli-agent", func(project, home string) {
		sources = []string{
			writeFile(t, home, "a/config.json", `{"hooks": {"hooks": [{"event": "pre-tool", "command": "echo autohand $HOOK_EVENT", "timeout": 1500}]}}`),
			writeFile(t, home, "b/config.json", `{"failoverDelay": 5000, "hooks": {"PreToolUse": [{"type": "command", "command": "cat"}]}}`),
			writeFile(t, home, "c/.iteratr.hooks.yml", "hooks:\n  pre_iteration:\n    - command: echo it\n"),
			writeFile(t, home, "d/settings.json", `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "echo claude", "timeout": 2}]}]}}`),
			writeFile(t, home, "e/.gen/settings.json", `{"hooks": {"PreToolUse": [{"type": "command", "command": "echo gen", "timeout": 2500}]}}`),
		}
	}, func(o *Options) { o.Sources = sources })
	cfg := configReport(t, e)
	require.Empty(t, cfg.Warnings)
	var dialects []string
	var timeouts []int64
	for _, s := range cfg.Sources {
		dialects = append(dialects, s.Dialect)
	}
	for _, h := range cfg.Hooks {
		timeouts = append(timeouts, h.TimeoutMs)
	}
	require.Equal(t, []string{"autohand", "autoagent", "iteratr", "claude", "mycode"}, dialects)
	require.Equal(t, []int64{1500, 60000, 30000, 2000, 2500}, timeouts, "each file keeps its dialect's unit and default")
	r := fireT(t, e, "PreToolUse", `{"tool_name":"x"}`)
	require.Equal(t, 4, r.Matched)
	require.Equal(t, "autohand pre-tool\n", r.Hooks[0].Stdout)
	require.Equal(t, "PreToolUse", jsonMap(t, r.Hooks[1].Stdout)["eventName"], "AutoAgent's envelope")
	require.Equal(t, "claude\n", r.Hooks[2].Stdout)
	require.True(t, cfg.Notifications, "an autohand file turns notifications on")
}

func TestMycodeOutputCap(t *testing.T) {
	e, _, _ := openProfile(t, "mycode", func(project, home string) {
		writeFile(t, project, ".gen/settings.json", `{"hooks": {"Stop": [{"type": "command", "command": "head -c 40000 /dev/zero | tr '\\0' x"}]}}`)
	})
	r := fireT(t, e, "Stop", `{}`)
	require.True(t, r.Hooks[0].StdoutTruncated)
	require.Len(t, r.Hooks[0].Stdout, 30<<10, "mycode truncates output at 30 KiB")

	on, _, _ := openProfile(t, "mycode", func(project, home string) {
		writeFile(t, project, ".gen/settings.json", `{"hooks": {"Stop": [{"type": "command", "command": "head -c 40000 /dev/zero | tr '\\0' x"}]}}`)
	}, func(o *Options) { o.OutputCapBytes = 64 << 10 })
	r = fireT(t, on, "Stop", `{}`)
	require.False(t, r.Hooks[0].StdoutTruncated, "the host's output_cap_bytes wins")
}
