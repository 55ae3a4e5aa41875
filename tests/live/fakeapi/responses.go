package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Responses is a fake OpenAI Responses API (POST <base>/responses, streamed as server-sent
// events) for Codex's custom model providers (base_url, wire_api "responses"). The main
// conversation (requests with tools) answers from Script by the number of assistant turns
// (function calls and assistant messages) its input carries; one tool call per turn.
type Responses struct{ scripted }

type responsesRequest struct {
	Input []struct {
		Type   string          `json:"type"`
		Role   string          `json:"role"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	} `json:"input"`
	Tools  []json.RawMessage `json:"tools"`
	Stream *bool             `json:"stream"` // nil or false: one JSON response, as the real API
}

// With sets the script and returns r.
func (r *Responses) With(script []Turn) *Responses { r.Script = script; return r }

// Start listens on an ephemeral port of 127.0.0.1 and returns the base URL (with /v1).
func (r *Responses) Start() (string, error) {
	base, err := r.start(r)
	return base + "/v1", err
}

// ServeHTTP answers one request.
func (r *Responses) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if strings.HasSuffix(req.URL.Path, "/models") {
		writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "fake-model", "object": "model"}}})
		return
	}
	if !strings.HasSuffix(req.URL.Path, "/responses") {
		http.NotFound(w, req)
		return
	}
	body, main := r.record(req, func(b []byte) bool {
		var rr responsesRequest
		return json.Unmarshal(b, &rr) == nil && len(rr.Tools) > 0
	})
	var rr responsesRequest
	_ = json.Unmarshal(body, &rr)
	var items []map[string]any
	text := r.Side
	if text == "" {
		text = "done"
	}
	if main {
		n := 0
		for _, it := range rr.Input {
			if it.Type == "function_call" || it.Type == "message" && it.Role == "assistant" {
				n++
			}
		}
		t := r.turn(n)
		text = t.Text
		if text == "" && len(t.Tools) == 0 {
			text = "done"
		}
		for i, c := range t.Tools {
			args := string(c.Input)
			if args == "" {
				args = "{}"
			}
			items = append(items, map[string]any{"type": "function_call", "id": "fc_" + itoa(n) + "_" + itoa(i),
				"call_id": CallID(n, i, c), "name": c.Name, "arguments": args, "status": "completed"})
		}
	}
	if text != "" && len(items) == 0 {
		items = append(items, map[string]any{"type": "message", "role": "assistant", "id": "msg_fake", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}})
	}
	usage := map[string]any{
		"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
	if rr.Stream == nil || !*rr.Stream { // without "stream": true the Responses API answers one JSON response
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "resp_fake", "object": "response", "status": "completed",
			"model": "fake", "created_at": 0, "output": items, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(typ string, data map[string]any) {
		data["type"] = typ
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	event("response.created", map[string]any{"response": map[string]any{"id": "resp_fake"}})
	for i, it := range items {
		event("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	event("response.completed", map[string]any{"response": map[string]any{"id": "resp_fake", "usage": usage}})
}

// ToolResults returns, by call_id, the function_call_output items the conversation carries.
func (r *Responses) ToolResults() map[string]ToolResult {
	out := map[string]ToolResult{}
	for _, q := range r.MainRequests() {
		var rr responsesRequest
		if json.Unmarshal(q.Body, &rr) != nil {
			continue
		}
		for _, it := range rr.Input {
			if it.Type != "function_call_output" {
				continue
			}
			var s string
			text := string(it.Output)
			if json.Unmarshal(it.Output, &s) == nil {
				text = s
			}
			out[it.CallID] = ToolResult{Text: text}
		}
	}
	return out
}

// UserTexts returns the text of every user message of the main conversation's last request
// (prompts, added context, hook feedback), function call outputs excluded, in order.
func (r *Responses) UserTexts() []string {
	reqs := r.MainRequests()
	if len(reqs) == 0 {
		return nil
	}
	var rr struct {
		Input []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"input"`
	}
	_ = json.Unmarshal(reqs[len(reqs)-1].Body, &rr)
	var out []string
	for _, it := range rr.Input {
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		out = append(out, contentText(it.Content))
	}
	return out
}
