package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hookCfg is a config with one handler on event (matcher "*").
func hookCfg(event string, handler map[string]any) string {
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{
		map[string]any{"matcher": "*", "hooks": []any{handler}}}}})
	return string(b)
}

func claudeProfile(o *Options) { o.Profile = "claude" }

// TestHTTPHooks runs every row of the reference's HTTP response handling against a real
// server on 127.0.0.1.
func TestHTTPHooks(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	var headers []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		mu.Lock()
		bodies, headers = append(bodies, m), append(headers, r.Header.Clone())
		mu.Unlock()
		switch r.URL.Path {
		case "/empty":
		case "/deny":
			_, _ = io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy says no"}}`)
		case "/block":
			_, _ = io.WriteString(w, `{"decision":"block","reason":"not yet"}`)
		case "/text":
			_, _ = io.WriteString(w, "deploy target is staging\n")
		case "/500":
			http.Error(w, "backend down", http.StatusInternalServerError)
		case "/403":
			w.WriteHeader(http.StatusForbidden)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
		}
	}))
	t.Cleanup(srv.Close)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadURL := "http://" + dead.Addr().String() + "/"
	require.NoError(t, dead.Close())

	payload := `{"tool_name":"Bash","tool_input":{"command":"ls"}}`
	tests := []struct {
		name       string
		handler    map[string]any
		blocked    bool
		decision   string
		reason     string
		context    string
		status     int
		errSub     string
		timedOut   bool
		failClosed bool
	}{
		{name: "2xx empty body is success", handler: map[string]any{"url": srv.URL + "/empty"}, decision: "none", status: 200},
		{name: "2xx json denies", handler: map[string]any{"url": srv.URL + "/deny"}, blocked: true, decision: "deny", reason: "policy says no", status: 200},
		{name: "2xx json decision block", handler: map[string]any{"url": srv.URL + "/block"}, blocked: true, decision: "deny", reason: "not yet", status: 200},
		{name: "2xx text is a non-blocking error, not context (Claude Code 2.1.330)", handler: map[string]any{"url": srv.URL + "/text"}, decision: "none", status: 200, errSub: "not JSON"},
		{name: "non-2xx is a non-blocking error", handler: map[string]any{"url": srv.URL + "/500"}, decision: "none", status: 500, errSub: "HTTP status 500: backend down"},
		{name: "403 is a non-blocking error", handler: map[string]any{"url": srv.URL + "/403"}, decision: "none", status: 403, errSub: "HTTP status 403"},
		{name: "connection failure is a non-blocking error", handler: map[string]any{"url": deadURL}, decision: "none", errSub: "request failed"},
		{name: "timeout is a non-blocking error", handler: map[string]any{"url": srv.URL + "/slow", "timeout": 0.3}, decision: "none", errSub: "timed out", timedOut: true},
		{name: "fail_closed turns a timeout into a block", handler: map[string]any{"url": srv.URL + "/slow", "timeout": 0.3, "fail_closed": true}, blocked: true, decision: "deny", errSub: "timed out", timedOut: true},
		{name: "fail_closed turns a non-2xx into a block", handler: map[string]any{"url": srv.URL + "/500", "fail_closed": true}, blocked: true, decision: "deny", status: 500, errSub: "HTTP status 500"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.handler["type"] = "http"
			e, _ := open(t, hookCfg("PreToolUse", tc.handler), claudeProfile)
			start := time.Now()
			r := fireT(t, e, "PreToolUse", payload)
			require.Less(t, time.Since(start), 20*time.Second, "hang guard")
			require.Equal(t, tc.blocked, r.Blocked, "%+v", r.Hooks[0])
			require.Equal(t, tc.decision, r.Decision)
			require.Equal(t, tc.reason == "" && !tc.blocked, r.Reason == "", "reason %q", r.Reason)
			if tc.reason != "" {
				require.Equal(t, tc.reason, r.Reason)
			}
			require.Equal(t, tc.context, strings.TrimSpace(r.AdditionalContext))
			h := r.Hooks[0]
			require.Equal(t, "http", h.Exec)
			require.Equal(t, tc.handler["url"], h.Command)
			require.Equal(t, tc.status, h.HTTPStatus)
			require.Equal(t, tc.timedOut, h.TimedOut)
			if tc.errSub == "" {
				require.Empty(t, h.Error)
				require.Equal(t, 0, h.ExitCode)
			} else {
				require.Contains(t, h.Error, tc.errSub)
				require.Equal(t, -1, h.ExitCode)
			}
		})
	}
	// What the server received: the hook's stdin JSON as the body.
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, bodies)
	require.Equal(t, "PreToolUse", bodies[0]["hook_event_name"])
	require.Equal(t, "Bash", bodies[0]["tool_name"])
	require.Equal(t, "application/json", headers[0].Get("Content-Type"))
}

func TestHTTPHookHeadersOnlyFromAllowedEnvVars(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Clone() }))
	t.Cleanup(srv.Close)
	e, _ := open(t, hookCfg("Stop", map[string]any{
		"type": "http", "url": srv.URL,
		"headers":        map[string]any{"Authorization": "Bearer $MY_TOKEN", "X-Other": "[${SECRET}]", "X-Hook-Env": "${HOOK_ONLY}"},
		"allowedEnvVars": []any{"MY_TOKEN", "HOOK_ONLY"},
		"env":            map[string]any{"HOOK_ONLY": "from-hook"},
	}), claudeProfile, func(o *Options) { o.Env = map[string]string{"MY_TOKEN": "t0k3n", "SECRET": "do-not-send"} })
	r := fireT(t, e, "Stop", `{}`)
	require.Empty(t, r.Hooks[0].Error)
	h := <-got
	require.Equal(t, "Bearer t0k3n", h.Get("Authorization"))
	require.Equal(t, "[]", h.Get("X-Other"))
	require.Equal(t, "from-hook", h.Get("X-Hook-Env"))
}

func TestHTTPHookConfigErrors(t *testing.T) {
	e, _ := open(t, `{"hooks":{"Stop":[{"hooks":[{"type":"http"},{"type":"http","url":"ftp://x/"},{"type":"http","url":"http://127.0.0.1:1/","async":true}]}]}}`, claudeProfile)
	cfg, err := e.Config()
	require.NoError(t, err)
	require.Len(t, cfg.Hooks, 3)
	require.Contains(t, cfg.Hooks[0].Disabled, `needs a non-empty "url"`)
	require.Contains(t, cfg.Hooks[1].Disabled, "not an http:// or https:// URL")
	require.True(t, cfg.Hooks[2].Enabled)
	require.False(t, cfg.Hooks[2].Async, "async applies to command hooks only")
	var texts []string
	for _, w := range cfg.Warnings {
		texts = append(texts, w.Message)
	}
	require.Contains(t, strings.Join(texts, "\n"), "async applies to command hooks only")
}

// TestEvaluatedHookTypes: prompt, agent and mcp_tool hooks all go through the one evaluator,
// which sees the type, the definition and the payload, and answers like a command.
func TestEvaluatedHookTypes(t *testing.T) {
	cfg := `{"hooks":{
	  "Stop":[{"hooks":[{"type":"prompt","prompt":"Done? $ARGUMENTS costs \\$1","model":"fast"},{"type":"agent","prompt":"verify"}]}],
	  "PostToolUse":[{"matcher":"Write","hooks":[{"type":"mcp_tool","server":"scan","tool":"security_scan","input":{"file_path":"${tool_input.file_path}","n":[ "${tool_name}" ]}}]}]}}`
	e, _ := open(t, cfg, claudeProfile)

	// None registered: a non-blocking error naming the type.
	r := fireT(t, e, "Stop", `{}`)
	require.False(t, r.Blocked)
	require.Contains(t, r.Hooks[0].Error, "prompt hook needs the host's evaluator")
	require.Contains(t, r.Hooks[1].Error, "agent hook needs the host's evaluator")

	type call struct {
		typ     string
		def     map[string]any
		payload map[string]any
	}
	var mu sync.Mutex
	var calls []call
	require.NoError(t, e.SetEvaluator(func(_ context.Context, typ string, hook, payload []byte) (Outcome, error) {
		c := call{typ: typ}
		require.NoError(t, json.Unmarshal(hook, &c.def))
		require.NoError(t, json.Unmarshal(payload, &c.payload))
		mu.Lock()
		calls = append(calls, c)
		mu.Unlock()
		switch typ {
		case "prompt":
			return Verdict(true, "fine"), nil
		case "agent":
			return Verdict(false, "tests fail"), nil
		case "mcp_tool":
			return Outcome{Stdout: []byte(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"scan clean"}}`)}, nil
		}
		return Outcome{}, errors.New("unknown type")
	}))
	r = fireT(t, e, "Stop", `{"session_id":"s1"}`)
	require.True(t, r.Blocked)
	require.Equal(t, "tests fail", r.Reason)
	require.Equal(t, []string{"prompt", "agent"}, []string{r.Hooks[0].Exec, r.Hooks[1].Exec})
	require.Equal(t, 0, r.Hooks[0].ExitCode)
	require.Equal(t, 2, r.Hooks[1].ExitCode)

	r = fireT(t, e, "PostToolUse", `{"tool_name":"Write","tool_input":{"file_path":"/src/a.go"}}`)
	require.Equal(t, "scan clean", r.AdditionalContext)
	require.Equal(t, "mcp_tool", r.Hooks[0].Exec)
	require.Equal(t, "scan:security_scan", r.Hooks[0].Command)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, calls, 3)
	byType := map[string]call{}
	for _, c := range calls {
		byType[c.typ] = c
	}
	p := byType["prompt"]
	require.Equal(t, "Stop", p.def["event"])
	require.Equal(t, "fast", p.def["model"])
	require.EqualValues(t, 30000, p.def["timeout_ms"], "Claude Code's prompt default")
	require.True(t, strings.HasPrefix(p.def["prompt"].(string), `Done? {`), p.def["prompt"])
	require.Contains(t, p.def["prompt"], `"session_id":"s1"`)
	require.True(t, strings.HasSuffix(p.def["prompt"].(string), ` costs $1`), p.def["prompt"])
	require.Equal(t, "s1", p.payload["session_id"])
	require.EqualValues(t, 60000, byType["agent"].def["timeout_ms"], "Claude Code's agent default")
	m := byType["mcp_tool"]
	require.Equal(t, "scan", m.def["server"])
	require.Equal(t, "security_scan", m.def["tool"])
	require.Equal(t, map[string]any{"file_path": "/src/a.go", "n": []any{"Write"}}, m.def["input"])
	require.EqualValues(t, 600000, m.def["timeout_ms"])

	// Errors and the prompt-only wrapper.
	require.NoError(t, e.SetEvaluator(func(context.Context, string, []byte, []byte) (Outcome, error) {
		return Outcome{}, errors.New("server scan is not connected")
	}))
	r = fireT(t, e, "PostToolUse", `{"tool_name":"Write"}`)
	require.Contains(t, r.Hooks[0].Error, "mcp_tool evaluator: server scan is not connected")
	require.NoError(t, e.SetPromptEvaluator(func(_ context.Context, prompt string, _ []byte) (bool, string, error) {
		return true, "", nil
	}))
	r = fireT(t, e, "Stop", `{}`)
	require.False(t, r.Blocked)
	require.Empty(t, r.Hooks[0].Error)
	require.Contains(t, r.Hooks[1].Error, "answers prompt hooks only, not agent")
	require.NoError(t, e.SetEvaluator(nil))
	r = fireT(t, e, "PostToolUse", `{"tool_name":"Write"}`)
	require.Contains(t, r.Hooks[0].Error, "mcp_tool hook needs the host's evaluator")
}

func TestEvaluatorTimeoutAndPanic(t *testing.T) {
	e, _ := open(t, hookCfg("PreToolUse", map[string]any{"type": "mcp_tool", "server": "s", "tool": "t", "timeout": 0.2, "fail_closed": true}), claudeProfile)
	require.NoError(t, e.SetEvaluator(func(ctx context.Context, _ string, _, _ []byte) (Outcome, error) {
		<-ctx.Done()
		return Outcome{}, ctx.Err()
	}))
	r := fireT(t, e, "PreToolUse", `{"tool_name":"Bash"}`)
	require.True(t, r.Hooks[0].TimedOut)
	require.True(t, r.Blocked, "fail_closed")
	require.NoError(t, e.SetEvaluator(func(context.Context, string, []byte, []byte) (Outcome, error) { panic("boom") }))
	r = fireT(t, e, "PreToolUse", `{"tool_name":"Bash"}`)
	require.Contains(t, r.Hooks[0].Error, "evaluator panicked: boom")
}

func TestClaudeCodeDefaultTimeouts(t *testing.T) {
	cfg := `{"hooks":{
	  "PreToolUse":[{"hooks":[{"type":"command","command":"true"},{"type":"http","url":"http://127.0.0.1:1/"},{"type":"mcp_tool","server":"s","tool":"t"},{"type":"prompt","prompt":"p"},{"type":"agent","prompt":"p"},{"type":"command","command":"true","timeout":5}]}],
	  "UserPromptSubmit":[{"hooks":[{"type":"command","command":"true"},{"type":"prompt","prompt":"p"}]}],
	  "SessionEnd":[{"hooks":[{"type":"command","command":"true"}]}]}}`
	want := map[string][]int64{
		"PreToolUse":       {600000, 600000, 600000, 30000, 60000, 5000},
		"UserPromptSubmit": {30000, 30000},
		"SessionEnd":       {1500},
	}
	e, _ := open(t, cfg, claudeProfile)
	got := map[string][]int64{}
	cfgr, err := e.Config()
	require.NoError(t, err)
	for _, h := range cfgr.Hooks {
		got[h.Event] = append(got[h.Event], h.TimeoutMs)
	}
	require.Equal(t, want, got)

	// cli-agent keeps its own 30 s default, and has none of Claude Code's new types.
	e, _ = open(t, cfg)
	cfgr, err = e.Config()
	require.NoError(t, err)
	require.EqualValues(t, 30000, cfgr.Hooks[0].TimeoutMs)
	require.EqualValues(t, 30000, cfgr.Hooks[3].TimeoutMs)
	require.Contains(t, cfgr.Hooks[1].Disabled, `unknown type "http"`)
}

// TestSessionEndSharedBudget: SessionEnd hooks share 1.5 s raised by the longest timeout a
// file sets (here 0.4 s stays under it, so the environment override is what shortens it).
func TestSessionEndSharedBudget(t *testing.T) {
	cfg := hookCfg("SessionEnd", map[string]any{"type": "command", "command": "sleep 30", "timeout": 20})
	e, _ := open(t, cfg, claudeProfile, func(o *Options) { o.Env = map[string]string{sessionEndEnv: "300"} })
	start := time.Now()
	r := fireT(t, e, "SessionEnd", `{"reason":"other"}`)
	require.Less(t, time.Since(start), 15*time.Second, "hang guard: the budget, not the hook's 20 s, ends it")
	require.True(t, r.Hooks[0].TimedOut)
	require.Contains(t, r.Hooks[0].Error, "SessionEnd hooks share a budget of 300ms")

	p := e.plan.Load()
	require.Equal(t, 300*time.Millisecond, p.sessionEnd)
	e2, _ := open(t, cfg, claudeProfile)
	require.Equal(t, 20*time.Second, e2.plan.Load().sessionEnd, "raised to the longest timeout set")
	e3, _ := open(t, hookCfg("SessionEnd", map[string]any{"type": "command", "command": "true", "timeout": 600}), claudeProfile)
	require.Equal(t, 60*time.Second, e3.plan.Load().sessionEnd, "at most 60 s")
	e4, _ := open(t, cfg)
	require.Zero(t, e4.plan.Load().sessionEnd, "cli-agent has no shared budget")
}

// TestSessionEndDefaultFollowsOverride: a SessionEnd hook that sets no timeout has
// CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS as its own timeout when it is set, 1.5 s when not;
// another hook's timeout raises only the shared budget (found live against 2.1.330:
// tests/live/claude/vectors/sessionend_budget_env_raises.json, sessionend_budget_other_hook.json).
func TestSessionEndDefaultFollowsOverride(t *testing.T) {
	cfg := hookCfg("SessionEnd", map[string]any{"type": "command", "command": "sleep 2; echo finished"})
	e, _ := open(t, cfg, claudeProfile, func(o *Options) { o.Env = map[string]string{sessionEndEnv: "60000"} })
	cfgr, err := e.Config()
	require.NoError(t, err)
	require.EqualValues(t, 60000, cfgr.Hooks[0].TimeoutMs)
	r := fireT(t, e, "SessionEnd", `{"reason":"other"}`)
	require.False(t, r.Hooks[0].TimedOut, "the override, not 1.5 s, is the hook's timeout: %s", r.Hooks[0].Error)
	require.Equal(t, "finished\n", r.Hooks[0].Stdout)

	e2, _ := open(t, cfg, claudeProfile)
	cfgr, err = e2.Config()
	require.NoError(t, err)
	require.EqualValues(t, 1500, cfgr.Hooks[0].TimeoutMs, "without the override: 1.5 s")

	// Another hook's timeout of 6 s raises the budget to 6 s; this hook keeps its 1.5 s.
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionEnd": []any{
		map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": "true", "timeout": 6},
			map[string]any{"type": "command", "command": "sleep 30"}}}}}})
	two := string(b)
	e3, _ := open(t, two, claudeProfile)
	require.Equal(t, 6*time.Second, e3.plan.Load().sessionEnd)
	cfgr, err = e3.Config()
	require.NoError(t, err)
	require.EqualValues(t, 1500, cfgr.Hooks[1].TimeoutMs)
}

// listen collects listener messages by kind.
func listen(t *testing.T, e *Engine) func(kind string, n int) [][]byte {
	var mu sync.Mutex
	got := map[string][][]byte{}
	require.NoError(t, e.SetListener(func(kind string, data []byte) {
		mu.Lock()
		got[kind] = append(got[kind], data)
		mu.Unlock()
	}))
	return func(kind string, n int) [][]byte {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			mu.Lock()
			if len(got[kind]) >= n {
				out := got[kind]
				mu.Unlock()
				return out
			}
			mu.Unlock()
		}
		t.Fatalf("listener: fewer than %d %q messages", n, kind)
		return nil
	}
}

func TestAsyncRewakeAndStatusMessage(t *testing.T) {
	cfg := `{"hooks":{"PostToolUse":[{"hooks":[
	  {"type":"command","command":"echo 'tests broke' >&2; exit 2","asyncRewake":true,"statusMessage":"Running tests"},
	  {"type":"command","command":"echo only-stdout; exit 2","asyncRewake":true},
	  {"type":"command","command":"exit 1","asyncRewake":true},
	  {"type":"command","command":"true","statusMessage":"Linting"}]}]}}`
	e, _ := open(t, cfg, claudeProfile)
	wait := listen(t, e)
	r := fireT(t, e, "PostToolUse", `{"tool_name":"Write"}`)
	require.True(t, r.Hooks[0].Async && r.Hooks[1].Async && r.Hooks[2].Async, "asyncRewake implies async")
	require.False(t, r.Hooks[3].Async)
	require.Equal(t, "Running tests", r.Hooks[0].StatusMessage)
	require.Equal(t, "Linting", r.Hooks[3].StatusMessage)

	status := wait("status", 2)
	var s0, s1 map[string]any
	require.NoError(t, json.Unmarshal(status[0], &s0))
	require.NoError(t, json.Unmarshal(status[1], &s1))
	require.Equal(t, "Running tests", s0["status_message"])
	require.Equal(t, "Linting", s1["status_message"])
	require.Equal(t, "PostToolUse", s0["event"])

	wakes := wait("rewake", 2)
	wait("async", 3)
	msgs := map[string]bool{}
	for _, w := range wakes {
		var m struct {
			Hook    string     `json:"hook"`
			Message string     `json:"message"`
			Result  HookResult `json:"result"`
		}
		require.NoError(t, json.Unmarshal(w, &m))
		require.Equal(t, 2, m.Result.ExitCode)
		msgs[m.Message] = true
	}
	require.Equal(t, map[string]bool{"tests broke": true, "only-stdout": true}, msgs)
	require.NoError(t, e.Close())
	require.Len(t, wait("rewake", 0), 2, "exit 1 does not wake the agent")
}

// TestModelAnswerPerEvent: a prompt or agent hook's "no" does what Claude Code does on each
// event, beyond a command's exit 2.
func TestModelAnswerPerEvent(t *testing.T) {
	cfg := `{"hooks":{
	  "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"prompt","prompt":"p"}]},{"matcher":"Edit","hooks":[{"type":"prompt","prompt":"p","continueOnBlock":true}]}],
	  "UserPromptSubmit":[{"hooks":[{"type":"agent","prompt":"p","continueOnBlock":true}]}],
	  "Stop":[{"hooks":[{"type":"prompt","prompt":"p"}]}],
	  "PermissionRequest":[{"hooks":[{"type":"prompt","prompt":"p"}]}]}}`
	e, _ := open(t, cfg, claudeProfile)
	require.NoError(t, e.SetEvaluator(func(context.Context, string, []byte, []byte) (Outcome, error) {
		return Verdict(false, "not safe"), nil
	}))
	for _, tc := range []struct {
		event, payload string
		blocked, cont  bool
		decision       string
	}{
		{"PreToolUse", `{"tool_name":"Bash"}`, true, false, "deny"},        // denied and the turn ends
		{"PreToolUse", `{"tool_name":"Edit"}`, true, true, "deny"},         // continueOnBlock: like a command's deny
		{"UserPromptSubmit", `{"prompt":"x"}`, true, false, "deny"},        // ends the turn regardless
		{"Stop", `{}`, true, true, "deny"},                                 // the reason is the next instruction
		{"PermissionRequest", `{"tool_name":"Bash"}`, false, true, "none"}, // "no" has no effect
	} {
		r := fireT(t, e, tc.event, tc.payload)
		require.Equal(t, tc.blocked, r.Blocked, "%s %s", tc.event, tc.payload)
		require.Equal(t, tc.cont, r.Continue, "%s %s", tc.event, tc.payload)
		require.Equal(t, tc.decision, r.Decision, "%s %s", tc.event, tc.payload)
		if !tc.cont {
			require.Equal(t, "not safe", r.StopReason)
		}
	}
}

func TestHandlerTypesByEvent(t *testing.T) {
	e, _ := open(t, `{"hooks":{"SessionStart":[{"hooks":[{"type":"http","url":"http://127.0.0.1:1/"},{"type":"mcp_tool","server":"s","tool":"t"}]}],
	  "Notification":[{"hooks":[{"type":"prompt","prompt":"p"},{"type":"http","url":"http://127.0.0.1:1/"}]}]}}`, claudeProfile)
	cfg, err := e.Config()
	require.NoError(t, err)
	require.Contains(t, cfg.Hooks[0].Disabled, "type http on SessionStart, which runs command and mcp_tool hooks only")
	require.True(t, cfg.Hooks[1].Enabled)
	require.Contains(t, cfg.Hooks[2].Disabled, "type prompt on Notification, which runs command, http and mcp_tool hooks only")
	require.True(t, cfg.Hooks[3].Enabled)
}

// TestHTTPHookAllowedEnvVarsPolicy: httpHookAllowedEnvVars in any file narrows every http
// hook's allowedEnvVars.
func TestHTTPHookAllowedEnvVarsPolicy(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Clone() }))
	t.Cleanup(srv.Close)
	cfg := hookCfg("Stop", map[string]any{
		"type": "http", "url": srv.URL,
		"headers":        map[string]any{"Authorization": "Bearer $MY_TOKEN", "X-Other": "[$OTHER]"},
		"allowedEnvVars": []any{"MY_TOKEN", "OTHER"},
	})
	cfg = strings.Replace(cfg, `{"hooks":`, `{"httpHookAllowedEnvVars":["MY_TOKEN"],"hooks":`, 1)
	e, _ := open(t, cfg, claudeProfile, func(o *Options) { o.Env = map[string]string{"MY_TOKEN": "t0k3n", "OTHER": "x"} })
	fireT(t, e, "Stop", `{}`)
	h := <-got
	require.Equal(t, "Bearer t0k3n", h.Get("Authorization"))
	require.Equal(t, "[]", h.Get("X-Other"), "OTHER is not on httpHookAllowedEnvVars")
}

// TestSessionEndBudgetIgnoresPluginTimeouts: a plugin hook's timeout does not raise the
// shared SessionEnd budget (the reference), a settings file's does.
func TestSessionEndBudgetIgnoresPluginTimeouts(t *testing.T) {
	dir := t.TempDir()
	plugin := dir + "/plugin"
	require.NoError(t, os.MkdirAll(plugin+"/hooks", 0o755))
	require.NoError(t, os.WriteFile(plugin+"/hooks/hooks.json",
		[]byte(hookCfg("SessionEnd", map[string]any{"type": "command", "command": "true", "timeout": 40})), 0o644))
	e, _ := open(t, `{"hooks":{}}`, claudeProfile, func(o *Options) { o.Plugins = []string{plugin} })
	require.Equal(t, 1500*time.Millisecond, e.plan.Load().sessionEnd)
	e2, _ := open(t, hookCfg("SessionEnd", map[string]any{"type": "command", "command": "true", "timeout": 5}), claudeProfile,
		func(o *Options) { o.Plugins = []string{plugin} })
	require.Equal(t, 5*time.Second, e2.plan.Load().sessionEnd)
}

// CLAUDE_CODE_SHELL_PREFIX (Claude Code 2.1.330): a shell-form hook runs as the prefix with
// the command as its one argument; an exec-form hook is not prefixed. Other dialects ignore it.
func TestClaudeShellPrefix(t *testing.T) {
	dir := t.TempDir()
	prefix := dir + "/prefix.sh"
	require.NoError(t, os.WriteFile(prefix, []byte("#!/bin/sh\nprintf '%s\\n' \"$#:$1\" >> \""+dir+"/seen\"\nexec /bin/sh -c \"$1\"\n"), 0o755))
	cfg := `{"hooks":{"PreToolUse":[{"hooks":[
		{"type":"command","command":"echo shell-form"},
		{"type":"command","command":"printf '%s' \"it's $HOOK_EVENT\""},
		{"type":"command","command":"echo","args":["exec-form"]}]}]}}`
	env := func(o *Options) { o.Env = map[string]string{"CLAUDE_CODE_SHELL_PREFIX": prefix} }
	e, _ := open(t, cfg, claudeProfile, env)
	r := fireT(t, e, "PreToolUse", `{"tool_name":"Bash"}`)
	require.Equal(t, "shell-form\n", r.Hooks[0].Stdout)
	require.Equal(t, "it's PreToolUse", r.Hooks[1].Stdout)
	require.Equal(t, "exec-form\n", r.Hooks[2].Stdout)
	seen, err := os.ReadFile(dir + "/seen")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(seen)), "\n")
	require.ElementsMatch(t, []string{"1:echo shell-form", `1:printf '%s' "it's $HOOK_EVENT"`}, lines)

	require.NoError(t, os.Remove(dir+"/seen"))
	other, _ := open(t, cfg, env) // cli-agent: no prefix
	fireT(t, other, "PreToolUse", `{"tool_name":"Bash"}`)
	_, err = os.Stat(dir + "/seen")
	require.True(t, os.IsNotExist(err), "the prefix ran for a dialect that does not have it")
}

// TestCodexMCPInput: a Codex mcp_tool hook's input keeps a whole placeholder's JSON type,
// and a placeholder the payload lacks fails the hook before the server is called (Codex
// 0.169.0, live: mcp_tool_whole_placeholder, mcp_tool_missing_placeholder).
func TestCodexMCPInput(t *testing.T) {
	cfg := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"mcp_tool","server":"s","tool":"t",
	  "input":{"whole":"${tool_input}","text":"run ${tool_input.command}","n":"${tool_input.n}"}}]}]}}`
	e, _ := open(t, cfg, func(o *Options) { o.Profile = "codex" })
	var mu sync.Mutex
	var inputs []map[string]any
	require.NoError(t, e.SetEvaluator(func(_ context.Context, _ string, hook, _ []byte) (Outcome, error) {
		var def struct {
			Input map[string]any `json:"input"`
		}
		require.NoError(t, json.Unmarshal(hook, &def))
		mu.Lock()
		inputs = append(inputs, def.Input)
		mu.Unlock()
		return Outcome{}, nil
	}))
	r := fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"ls","n":2}}`)
	require.Empty(t, r.Hooks[0].Error)
	r = fireT(t, e, "PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`)
	require.Contains(t, r.Hooks[0].Error, "hook input placeholder ${tool_input.n} was not found")
	require.False(t, r.Blocked)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, inputs, 1, "the server is not called when a placeholder is missing")
	require.Equal(t, map[string]any{"whole": map[string]any{"command": "ls", "n": 2.0}, "text": "run ls", "n": 2.0}, inputs[0])
}
