package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Chat is a fake OpenAI Chat Completions API (POST <base>/chat/completions, streaming or
// not, and GET <base>/models) for Qwen Code (OPENAI_BASE_URL). The main conversation
// (requests with tools) answers from Script by the number of assistant messages it carries;
// other requests answer Side (default "done").
type Chat struct{ scripted }

type chatRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []json.RawMessage `json:"tools"`
}

// With sets the script and returns c.
func (c *Chat) With(script []Turn) *Chat { c.Script = script; return c }

// Start listens on an ephemeral port of 127.0.0.1 and returns the base URL (with /v1).
func (c *Chat) Start() (string, error) {
	base, err := c.start(c)
	return base + "/v1", err
}

// ServeHTTP answers one request.
func (c *Chat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "fake-model", "object": "model"}}})
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	body, main := c.record(r, func(b []byte) bool {
		var req chatRequest
		return json.Unmarshal(b, &req) == nil && len(req.Tools) > 0
	})
	var req chatRequest
	_ = json.Unmarshal(body, &req)
	text := c.Side
	if text == "" {
		text = "done"
	}
	var calls []map[string]any
	if main {
		n := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		t := c.turn(n)
		text = t.Text
		if text == "" && len(t.Tools) == 0 {
			text = "done"
		}
		for i, tc := range t.Tools {
			args := string(tc.Input)
			if args == "" {
				args = "{}"
			}
			calls = append(calls, map[string]any{"index": i, "id": CallID(n, i, tc), "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": args}})
		}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	msg := map[string]any{"role": "assistant", "content": text}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any, usage any) {
		data, _ := json.Marshal(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}, "usage": usage})
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	delta := map[string]any{"role": "assistant", "content": text}
	if len(calls) > 0 {
		delta["tool_calls"] = calls
	}
	chunk(delta, nil, nil)
	chunk(map[string]any{}, finish, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// ToolResults returns, by tool_call_id, the tool messages the main conversation carries.
func (c *Chat) ToolResults() map[string]ToolResult {
	out := map[string]ToolResult{}
	for _, r := range c.MainRequests() {
		var req chatRequest
		if json.Unmarshal(r.Body, &req) != nil {
			continue
		}
		for _, m := range req.Messages {
			if m.Role == "tool" {
				out[m.ToolCallID] = ToolResult{Text: contentText(m.Content)}
			}
		}
	}
	return out
}

// UserTexts returns the text of every user message of the main conversation's last request
// (prompts, added context, hook feedback), tool messages excluded, in order.
func (c *Chat) UserTexts() []string {
	reqs := c.MainRequests()
	if len(reqs) == 0 {
		return nil
	}
	var req chatRequest
	_ = json.Unmarshal(reqs[len(reqs)-1].Body, &req)
	var out []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			out = append(out, contentText(m.Content))
		}
	}
	return out
}
