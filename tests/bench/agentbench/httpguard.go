package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
)

// httpGuard is the floor reference of issue 30: the same rm -rf rule as the Python guard,
// answered by a minimal Go HTTP server on 127.0.0.1 that the agent calls as an `http` hook,
// so the agent starts no process for the hook at all. A payload whose
// tool_input.command contains "rm -rf" gets Claude Code's deny answer; anything else an
// empty object (no decision). A body that is not a payload is a 400, which the agent takes
// as a failed hook: the probe then runs and the session fails the bench.
type httpGuard struct {
	srv *http.Server
	url string
}

func startHTTPGuard() (*httpGuard, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	deny, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "rm -rf is not allowed"}})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var event struct {
			ToolInput struct {
				Command string `json:"command"`
			} `json:"tool_input"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&event); err != nil {
			http.Error(w, "not a hook payload: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(event.ToolInput.Command, "rm -rf") {
			_, _ = w.Write(deny)
			return
		}
		_, _ = w.Write([]byte("{}"))
	})
	g := &httpGuard{srv: &http.Server{Handler: h}, url: "http://" + ln.Addr().String() + "/guard"}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

func (g *httpGuard) Close() error { return g.srv.Close() }
