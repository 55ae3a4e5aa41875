// Package conformance runs the shared conformance vectors (tests/conformance/<dialect>/*.json)
// through the real engine. tests/python/test_conformance.py runs the same files through the
// C library and the Python package with the same semantics; README.md in this directory
// describes the format.
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
)

type vector struct {
	Description string                     `json:"description"`
	Source      string                     `json:"source"` // where the behaviour is documented (agents that cannot run here)
	Profile     string                     `json:"profile"`
	Options     map[string]any             `json:"options"`
	Files       map[string]json.RawMessage `json:"files"`
	Config      map[string]any             `json:"config"`
	HTTP        map[string]route           `json:"http"`
	Evaluator   map[string]answer          `json:"evaluator"`
	Listener    []map[string]any           `json:"listener"`
	Fires       []struct {
		Event   string          `json:"event"`
		Drain   bool            `json:"drain"` // a drain() step instead of a fire
		Payload json.RawMessage `json:"payload"`
		Expect  map[string]any  `json:"expect"`
	} `json:"fires"`
}

// route is what the vector's HTTP server answers on one path.
type route struct {
	Status  int             `json:"status"` // 0 means 200
	Body    json.RawMessage `json:"body"`   // a string is sent as-is, any other JSON value as JSON
	DelayMs int             `json:"delay_ms"`
}

// answer is what the vector's evaluator answers for one hook type.
type answer struct {
	OK       *bool  `json:"ok"`
	Reason   string `json:"reason"`
	ExitCode *int   `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Error    string `json:"error"`
}

// serve starts the vector's HTTP server on 127.0.0.1; "" when the vector has none.
func serve(t *testing.T, routes map[string]route) string {
	if len(routes) == 0 {
		return ""
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt, ok := routes[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		// Read the body first: only then does the server notice the client hanging up.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(time.Duration(rt.DelayMs) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		var text string
		body := []byte(rt.Body)
		if json.Unmarshal(rt.Body, &text) == nil {
			body = []byte(text)
		}
		if rt.Status != 0 {
			w.WriteHeader(rt.Status)
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// evaluate answers host-evaluated hooks as the vector says, per type.
func evaluate(answers map[string]answer) engine.Evaluator {
	return func(_ context.Context, typ string, _, _ []byte) (engine.Outcome, error) {
		a, ok := answers[typ]
		switch {
		case !ok:
			return engine.Outcome{}, fmt.Errorf("the vector has no answer for %s hooks", typ)
		case a.Error != "":
			return engine.Outcome{}, errors.New(a.Error)
		case a.OK != nil:
			return engine.Verdict(*a.OK, a.Reason), nil
		case a.ExitCode != nil:
			return engine.Outcome{ExitCode: *a.ExitCode, Stdout: []byte(a.Stdout), Stderr: []byte(a.Stderr)}, nil
		}
		return engine.Outcome{}, fmt.Errorf("the vector's answer for %s hooks is empty", typ)
	}
}

func TestConformance(t *testing.T) {
	paths, err := filepath.Glob("*/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.ToSlash(path), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runVector(t, path)
		})
	}
}

func runVector(t *testing.T, path string) {
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	require.NoError(t, os.MkdirAll(home, 0o755))
	require.NoError(t, os.MkdirAll(project, 0o755))

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var v vector
	require.NoError(t, json.Unmarshal(raw, &v), "vector %s", path)
	base := serve(t, v.HTTP)
	// $PROJECT, $HOME and $HTTP are replaced in the JSON text (as JSON-escaped strings), which
	// keeps key order in files and payloads exactly as written.
	raw = substitute(raw, project, home, base)
	v = vector{}
	require.NoError(t, json.Unmarshal(raw, &v), "vector %s", path)
	require.NotEmpty(t, v.Description, "every vector says what it checks")

	for name, content := range v.Files {
		var dst string
		switch {
		case strings.HasPrefix(name, "home/"):
			dst = filepath.Join(home, strings.TrimPrefix(name, "home/"))
		case strings.HasPrefix(name, "project/"):
			dst = filepath.Join(project, strings.TrimPrefix(name, "project/"))
		default:
			t.Fatalf("file %q: must start with home/ or project/", name)
		}
		var text string
		data := []byte(content)
		if json.Unmarshal(content, &text) == nil {
			data = []byte(text) // a string is written as-is; any other JSON value as JSON
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") || strings.HasPrefix(string(data), "#!") {
			mode = 0o755 // scripts, and Cline's hook files (named after their event, no extension)
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, data, mode))
	}

	opts := map[string]any{}
	for k, x := range v.Options {
		opts[k] = x
	}
	env, _ := opts["env"].(map[string]any)
	if env == nil {
		env = map[string]any{}
	}
	env["HOME"] = home
	opts["env"], opts["profile"], opts["project_dir"], opts["home"] = env, v.Profile, project, home
	optJSON, err := json.Marshal(opts)
	require.NoError(t, err)
	o, err := engine.ParseOptions(optJSON)
	require.NoError(t, err)
	e, err := engine.Open(o)
	require.NoError(t, err)
	defer e.Close()
	if v.Evaluator != nil {
		require.NoError(t, e.SetEvaluator(evaluate(v.Evaluator)))
	}
	var mu sync.Mutex
	var heard []map[string]any
	if v.Listener != nil {
		require.NoError(t, e.SetListener(func(kind string, data []byte) {
			var m map[string]any
			_ = json.Unmarshal(data, &m)
			if m == nil {
				m = map[string]any{}
			}
			m["kind"] = kind
			mu.Lock()
			heard = append(heard, m)
			mu.Unlock()
		}))
	}

	if v.Config != nil {
		cfgJSON, err := e.ConfigJSON()
		require.NoError(t, err)
		var cfg map[string]any
		require.NoError(t, json.Unmarshal(cfgJSON, &cfg))
		checkConfig(t, v.Config, cfg)
	}

	for i, f := range v.Fires {
		if f.Drain {
			out, err := e.Drain()
			require.NoError(t, err, "drain %d", i)
			got := map[string]any{"agent_output": append([]any{}, toAny(out)...)}
			if errs := match(fmt.Sprintf("fires[%d]", i), got, f.Expect); len(errs) > 0 {
				t.Errorf("drain %d:\n  %s", i, strings.Join(errs, "\n  "))
			}
			continue
		}
		payload := []byte(f.Payload)
		if len(payload) == 0 {
			payload = []byte("{}")
		}
		r, err := e.Fire(f.Event, payload)
		require.NoError(t, err, "fire %d (%s)", i, f.Event)
		var got map[string]any
		require.NoError(t, json.Unmarshal(r.JSON(), &got))
		if errs := match(fmt.Sprintf("fires[%d]", i), got, f.Expect); len(errs) > 0 {
			t.Errorf("fire %d (%s):\n  %s\nresult: %s", i, f.Event, strings.Join(errs, "\n  "), r.JSON())
		}
	}
	// Each listener expectation is met by some message of its kind, waiting for async hooks
	// (the 10 s bound is a hang guard only).
	for i, want := range v.Listener {
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			found := false
			for _, m := range heard {
				found = found || len(match("", m, want)) == 0
			}
			all, _ := json.Marshal(heard)
			mu.Unlock()
			if found {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("listener[%d]: no message matches %v; heard %s", i, want, all)
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func toAny(items []string) []any {
	out := make([]any, len(items))
	for i, s := range items {
		out[i] = s
	}
	return out
}

func substitute(raw []byte, project, home, http string) []byte {
	esc := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	s := strings.ReplaceAll(string(raw), "$PROJECT", esc(project))
	s = strings.ReplaceAll(s, "$HTTP", esc(http))
	return []byte(strings.ReplaceAll(s, "$HOME", esc(home)))
}

// checkConfig applies the optional checks on config(): warnings_contain (each string is in
// some warning's "source: message"), hooks (how many), enabled (how many enabled) and
// timeout_ms (every hook's, in config order).
func checkConfig(t *testing.T, want, cfg map[string]any) {
	t.Helper()
	warnings, _ := cfg["warnings"].([]any)
	var texts []string
	for _, w := range warnings {
		m, _ := w.(map[string]any)
		texts = append(texts, fmt.Sprintf("%v: %v", m["source"], m["message"]))
	}
	if wc, ok := want["warnings_contain"].([]any); ok {
		for _, s := range wc {
			found := false
			for _, text := range texts {
				found = found || strings.Contains(text, s.(string))
			}
			require.True(t, found, "no config warning contains %q; warnings: %q", s, texts)
		}
	}
	hooks, _ := cfg["hooks"].([]any)
	if n, ok := want["hooks"]; ok {
		require.EqualValues(t, n, len(hooks), "config hooks")
	}
	if wh, ok := want["hook_fields"]; ok {
		errs := match("config", map[string]any{"hooks": hooks}, map[string]any{"hooks": wh})
		require.Empty(t, errs, "config hooks")
	}
	if ts, ok := want["timeout_ms"].([]any); ok {
		var got []any
		for _, h := range hooks {
			got = append(got, h.(map[string]any)["timeout_ms"])
		}
		require.Equal(t, ts, got, "config hooks' timeout_ms in config order")
	}
	if n, ok := want["enabled"]; ok {
		enabled := 0
		for _, h := range hooks {
			if h.(map[string]any)["enabled"] == true {
				enabled++
			}
		}
		require.EqualValues(t, n, enabled, "enabled config hooks")
	}
}

// contains: a string contains want, or (for lists such as agent_output) one element does.
func contains(got, want any) bool {
	w, _ := want.(string)
	switch g := got.(type) {
	case string:
		return strings.Contains(g, w)
	case []any:
		for _, x := range g {
			if s, ok := x.(string); ok && strings.Contains(s, w) {
				return true
			}
		}
	}
	return false
}

// match is the subset check of a fire result: "X_contains" means string field X (or an
// element of list field X) contains the value, "hooks" compares a list element-wise (same
// length) with these rules, and any other key must be JSON-equal. It returns one line per
// mismatch.
func match(at string, got, want map[string]any) []string {
	var errs []string
	for k, w := range want {
		switch {
		case k == "hooks":
			wl, _ := w.([]any)
			gl, _ := got[k].([]any)
			if len(wl) != len(gl) {
				errs = append(errs, fmt.Sprintf("%s.hooks: %d hooks, want %d", at, len(gl), len(wl)))
				continue
			}
			for i := range wl {
				gm, _ := gl[i].(map[string]any)
				wm, _ := wl[i].(map[string]any)
				errs = append(errs, match(fmt.Sprintf("%s.hooks[%d]", at, i), gm, wm)...)
			}
		case strings.HasSuffix(k, "_contains"):
			field := strings.TrimSuffix(k, "_contains")
			if !contains(got[field], w) {
				g, _ := json.Marshal(got[field])
				errs = append(errs, fmt.Sprintf("%s.%s = %s, want it to contain %q", at, field, g, w))
			}
		default:
			if !reflect.DeepEqual(got[k], w) {
				g, _ := json.Marshal(got[k])
				x, _ := json.Marshal(w)
				errs = append(errs, fmt.Sprintf("%s.%s = %s, want %s", at, k, g, x))
			}
		}
	}
	return errs
}
