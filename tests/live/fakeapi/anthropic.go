// Package fakeapi serves scripted model APIs on 127.0.0.1 so real agent binaries run
// offline: the agent sends its requests here, gets the script's answers (tool calls, then
// text) and every request is recorded, so a test reads back what the agent's hooks did to
// the conversation (block reasons in tool results, added context, Stop continuations).
//
// It does not model a language model: a turn's answer depends only on how many assistant
// turns the conversation already has, never on what the request says.
package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Turn is one scripted assistant answer on the main conversation.
type Turn struct {
	// Tools are the tool calls of this turn, in order; none means the turn is only Text.
	Tools []ToolCall `json:"tools,omitempty"`
	// Text is the answer's text ("" with no Tools: "done").
	Text string `json:"text,omitempty"`
}

// ToolCall is one tool_use block.
type ToolCall struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// ID is the tool_use id; "" means "toolu_<turn>_<index>" ("toolu_a<n>_<turn>_<index>"
	// in the n-th Agents script, keys sorted).
	ID string `json:"id,omitempty"`
}

// Request is one request the agent sent, as received.
type Request struct {
	Path string          `json:"path"`
	Body json.RawMessage `json:"body"`
	// Main is true for requests of the main conversation (they carry tools); side requests
	// (prompt and agent hooks, titles, quota checks) are false.
	Main bool `json:"main"`
	// At is when the request arrived (make bench times the agent's tool calls by it).
	At time.Time `json:"at,omitzero"`
}

// Anthropic is a fake Anthropic Messages API (POST /v1/messages, streaming and not, and
// /v1/messages/count_tokens). The main conversation answers from Script by the number of
// assistant messages the request already carries; requests without tools answer Side.
type Anthropic struct {
	// Script answers the main conversation; past its end the answer is the text "done".
	Script []Turn
	// Agents script sub-conversations (subagents, agent hooks): a request with tools whose
	// first user message contains a key is answered from that key's turns, counted in its
	// own conversation, instead of from Script.
	Agents map[string][]Turn
	// Side answers every request without tools (prompt hooks, agent hooks' verdicts,
	// titles); "" means the text `{"ok": true}`.
	Side string

	mu       sync.Mutex
	requests []Request
	srv      *http.Server
	ln       net.Listener
}

// Start listens on an ephemeral port of 127.0.0.1 and returns the base URL to give the
// agent (ANTHROPIC_BASE_URL).
func (a *Anthropic) Start() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	a.ln = ln
	a.srv = &http.Server{Handler: a}
	go func() { _ = a.srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// Close stops the server.
func (a *Anthropic) Close() error {
	if a.srv == nil {
		return nil
	}
	return a.srv.Close()
}

// Requests returns a copy of the requests received so far, in arrival order.
func (a *Anthropic) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.requests...)
}

// MainRequests returns the main conversation's requests.
func (a *Anthropic) MainRequests() []Request {
	var out []Request
	for _, r := range a.Requests() {
		if r.Main {
			out = append(out, r)
		}
	}
	return out
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type messagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []message         `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
}

// ServeHTTP answers one request.
func (a *Anthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(r.Body)
	var req messagesRequest
	_ = json.Unmarshal(body, &req)
	main := len(req.Tools) > 0
	if json.Valid(body) {
		a.mu.Lock()
		a.requests = append(a.requests, Request{Path: r.URL.Path, Body: body, Main: main && r.URL.Path == "/v1/messages", At: at})
		a.mu.Unlock()
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		writeJSON(w, map[string]any{"input_tokens": len(body) / 4})
		return
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
	default:
		// Anything else (feature flags, account lookups): an empty object, so the agent
		// goes on with its defaults.
		writeJSON(w, map[string]any{})
		return
	}
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	var blocks []map[string]any
	stop := "end_turn"
	if main {
		turn := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				turn++
			}
		}
		script, prefix := a.Script, ""
		if first := firstUserText(req.Messages); first != "" {
			keys := make([]string, 0, len(a.Agents))
			for k := range a.Agents {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for n, k := range keys {
				if strings.Contains(first, k) {
					script, prefix = a.Agents[k], fmt.Sprintf("a%d_", n)
					break
				}
			}
		}
		t := Turn{Text: "done"}
		if turn < len(script) {
			t = script[turn]
		}
		if t.Text != "" || len(t.Tools) == 0 {
			text := t.Text
			if text == "" {
				text = "done"
			}
			blocks = append(blocks, map[string]any{"type": "text", "text": text})
		}
		for i, c := range t.Tools {
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("toolu_%s%d_%d", prefix, turn, i)
			}
			input := c.Input
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": input})
			stop = "tool_use"
		}
	} else {
		text := a.Side
		if text == "" {
			text = `{"ok": true}`
		}
		blocks = append(blocks, map[string]any{"type": "text", "text": text})
	}
	id := fmt.Sprintf("msg_fake_%d", len(a.Requests()))
	usage := map[string]any{"input_tokens": 10, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b["input"].(json.RawMessage))}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// firstUserText is the text of the conversation's first user message.
func firstUserText(msgs []message) string {
	for _, m := range msgs {
		if m.Role == "user" {
			return contentText(m.Content)
		}
	}
	return ""
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// ToolResult is what the agent sent back for one tool call.
type ToolResult struct {
	Text    string // the result's text, blocks joined with "\n"
	IsError bool
}

// ToolResults returns, by tool_use id, the tool results the main conversation's requests
// carry (the last request that carries an id wins: it is the same conversation growing).
func (a *Anthropic) ToolResults() map[string]ToolResult {
	out := map[string]ToolResult{}
	for _, r := range a.MainRequests() {
		var req messagesRequest
		if json.Unmarshal(r.Body, &req) != nil {
			continue
		}
		for _, m := range req.Messages {
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
				IsError   bool            `json:"is_error"`
			}
			if m.Role != "user" || json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					out[b.ToolUseID] = ToolResult{Text: contentText(b.Content), IsError: b.IsError}
				}
			}
		}
	}
	return out
}

// contentText flattens message content (a string or a list of blocks) into its text.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// hookLine starts a hook's output in the system prompt ("SessionStart:startup hook success:
// …", "UserPromptSubmit hook additional context: …").
var hookLine = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9:_|*.-]* hook [a-z ]+: `)

// HookTexts returns what hooks put in the system prompt of the main conversation's last
// request (Claude Code 2.1.330 puts SessionStart and UserPromptSubmit context there, each
// block labelled by how the hook gave it), one entry per block, in order.
func (a *Anthropic) HookTexts() []string {
	reqs := a.MainRequests()
	if len(reqs) == 0 {
		return nil
	}
	var req struct {
		System json.RawMessage `json:"system"`
	}
	_ = json.Unmarshal(reqs[len(reqs)-1].Body, &req)
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, line := range strings.Split(contentText(req.System), "\n") {
		switch {
		case hookLine.MatchString(line):
			flush()
			cur = []string{line}
		case line == "":
			flush()
		case cur != nil:
			cur = append(cur, line)
		}
	}
	flush()
	return out
}

// UserTexts returns every text the main conversation's last request carries in user
// messages (prompts, system reminders, hook feedback), tool results excluded, in order.
func (a *Anthropic) UserTexts() []string {
	reqs := a.MainRequests()
	if len(reqs) == 0 {
		return nil
	}
	var req messagesRequest
	_ = json.Unmarshal(reqs[len(reqs)-1].Body, &req)
	var out []string
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			out = append(out, s)
			continue
		}
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			if b.Type == "text" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}
