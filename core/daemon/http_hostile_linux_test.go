package daemon

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hookexec/core/dispatch"
)

// TestHTTPHostileShapes sends a real daemon's http transport calls shaped by an attacker
// holding the user's uid but not always the secret, or the secret but a malformed call:
// none of them may come back as an allow of the guarded command. The guard denies
// "rm -rf"; every shape either carries that command or must be refused outright.
func TestHTTPHostileShapes(t *testing.T) {
	dir, httpDir, home := t.TempDir(), t.TempDir(), t.TempDir()
	project := filepath.Join(t.TempDir(), "p")
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	guard := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"grep -q 'rm -rf' && { echo 'no rm' >&2; exit 2; }; exit 0"}]}]}}`
	if err := os.WriteFile(filepath.Join(project, ".claude", "hookexec-hooks.json"), []byte(guard), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, httpDir} {
		if err := os.Chmod(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := SetupHTTP(httpDir)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Run(Options{Dir: dir, Idle: time.Hour, Identity: "hostile", HTTPDir: httpDir}) }()
	t.Cleanup(func() {
		_ = ForceShutdown(dir) // its session is still registered
		select {
		case <-done:
		case <-time.After(30 * time.Second): // a hang guard
			t.Error("the daemon did not stop")
		}
	})
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	start := dispatch.Request{Agent: "claude", Project: project, Home: home, Env: env,
		Payload: json.RawMessage(`{"hook_event_name":"SessionStart","session_id":"s1","source":"startup","cwd":"` + project + `"}`)}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) { // a hang guard
		if _, err = Dispatch(dir, "hostile", start, time.Now().Add(10*time.Second)); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the daemon stopped: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session's command call: %v", err)
		}
	}
	url := HTTPURL(cfg.Port, "claude")
	call := func(method, url, auth string, body []byte, chunked bool) (int, string) {
		var rd io.Reader = bytes.NewReader(body)
		if chunked {
			rd = io.MultiReader(bytes.NewReader(body)) // no length: sent chunked
		}
		req, err := http.NewRequest(method, url, rd)
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error() // a refused or reset connection: Claude Code blocks
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	rm := func(session string) []byte {
		return []byte(`{"hook_event_name":"PreToolUse","session_id":"` + session + `","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":"` + project + `"}`)
	}
	bearer := "Bearer " + cfg.Secret
	deep := `{"hook_event_name":"PreToolUse","session_id":"s1","tool_name":"Bash","tool_input":{"command":"rm -rf /","x":` +
		strings.Repeat(`[`, 100000) + strings.Repeat(`]`, 100000) + `},"cwd":"` + project + `"}`
	for _, c := range []struct {
		name, method, url, auth string
		body                    []byte
		chunked                 bool
	}{
		{"the guarded call itself", "POST", url, bearer, rm("s1"), false},
		{"sent chunked", "POST", url, bearer, rm("s1"), true},
		{"no secret", "POST", url, "", rm("s1"), false},
		{"the secret with a trailing space", "POST", url, bearer + " ", rm("s1"), false},
		{"bearer in lower case", "POST", url, "bearer " + cfg.Secret, rm("s1"), false},
		{"the secret alone", "POST", url, cfg.Secret, rm("s1"), false},
		{"a trailing slash", "POST", url + "/", bearer, rm("s1"), false},
		{"a dot-dot path", "POST", url + "/../claude", bearer, rm("s1"), false},
		{"another agent's path", "POST", HTTPURL(cfg.Port, "codex"), bearer, rm("s1"), false},
		{"GET", "GET", url, bearer, nil, false},
		{"a session never started", "POST", url, bearer, rm("s2"), false},
		{"no session id", "POST", url, bearer, []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`), false},
		{"the session id twice, unknown first", "POST", url, bearer, []byte(`{"session_id":"s2","hook_event_name":"PreToolUse","session_id":"s1","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`), false},
		{"the session id twice, known first", "POST", url, bearer, []byte(`{"session_id":"s1","hook_event_name":"PreToolUse","session_id":"s2","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`), false},
		{"not JSON", "POST", url, bearer, []byte(`rm -rf /`), false},
		{"JSON cut short", "POST", url, bearer, rm("s1")[:60], false},
		{"100000 levels deep", "POST", url, bearer, []byte(deep), false},
		{"over the size limit", "POST", url, bearer, append(rm("s1")[:len(rm("s1"))-1], []byte(`,"pad":"`+strings.Repeat("x", 32<<20)+`"}`)...), false},
	} {
		status, body := call(c.method, c.url, c.auth, c.body, c.chunked)
		denied := strings.Contains(body, `"permissionDecision":"deny"`) || strings.Contains(body, `"decision":"block"`)
		if status/100 == 2 && !denied {
			t.Errorf("%s: %d %q: an allow of the guarded command", c.name, status, body)
		}
		t.Logf("%s: %d %.120q", c.name, status, body)
	}
}
