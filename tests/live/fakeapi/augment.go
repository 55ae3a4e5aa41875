package fakeapi

import (
	"encoding/json"
	"net/http"
)

// Augment is a fake of Augment Code's own backend, the only model API Augment's auggie CLI
// talks to (it has no provider setting: the model runs behind the tenant's URL). Augment's
// backend cannot be reached here, and it is not a public API, so this fakes only what
// auggie 0.36.0 needs for `auggie --print` — every shape below is what the CLI's bundle
// (augment.mjs) sends and reads — and nothing else:
//
//   - POST /get-models (the CLI's getModelConfig): one model, "fake-model", and the feature
//     flag enable_hooks, without which auggie runs no hook at all (featureFlagsV2.enableHooks
//     gates the hook manager). No other flag is set: the CLI's defaults stand.
//   - POST /chat-stream (chatStream): newline-delimited JSON, one BackChatResult per line
//     ({"text", "nodes", "stop_reason"}). A turn's tool calls are response nodes of type 5
//     ({"tool_use": {"tool_use_id", "tool_name", "input_json"}}), its text a node of type 0
//     ({"content"}); stop_reason is 3 (TOOL_USE_REQUESTED) after tool calls, else 1
//     (END_TURN). The main conversation is a request with tool_definitions; its turn is the
//     number of exchanges its chat_history already carries. Tool results come back as
//     request nodes of type 1 ({"tool_result_node": {"tool_use_id", "content", "is_error"}}).
//
// Every other endpoint answers 404, as an unknown route: auggie then goes on without it
// (the MCP settings under /settings/ and /agents/list-remote-tools, which it retries a few
// times and reports as a warning). A call auggie newly depends on shows up as a failing
// run, not as a silently faked answer.
type Augment struct{ scripted }

// augmentRequest is the part of a /chat-stream body the fake reads.
type augmentRequest struct {
	ChatHistory     []json.RawMessage `json:"chat_history"`
	ToolDefinitions []json.RawMessage `json:"tool_definitions"`
	Nodes           []augmentNode     `json:"nodes"`
}

type augmentNode struct {
	Type       int `json:"type"`
	ToolResult *struct {
		ToolUseID string `json:"tool_use_id"`
		Content   string `json:"content"`
		IsError   bool   `json:"is_error"`
	} `json:"tool_result_node"`
}

// With sets the script and returns a.
func (a *Augment) With(script []Turn) *Augment { a.Script = script; return a }

// Start listens on an ephemeral port of 127.0.0.1 and returns the tenant URL (with its
// trailing slash, as the CLI joins endpoint names onto it).
func (a *Augment) Start() (string, error) {
	base, err := a.start(a)
	return base + "/", err
}

// ServeHTTP answers one request.
func (a *Augment) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "the fake Augment backend answers POST only", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/get-models":
		writeJSON(w, map[string]any{
			"default_model": "fake-model",
			"models": []any{map[string]any{"name": "fake-model",
				"suggested_prefix_char_count": 0, "suggested_suffix_char_count": 0}},
			"feature_flags": map[string]any{"enable_hooks": true},
		})
	case "/chat-stream":
		a.chat(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (a *Augment) chat(w http.ResponseWriter, r *http.Request) {
	body, main := a.record(r, func(b []byte) bool {
		var req augmentRequest
		return json.Unmarshal(b, &req) == nil && len(req.ToolDefinitions) > 0
	})
	text := a.Side
	if text == "" {
		text = "done"
	}
	var nodes []any
	stop := 1 // END_TURN
	if main {
		var req augmentRequest
		_ = json.Unmarshal(body, &req)
		n := len(req.ChatHistory)
		t := a.turn(n)
		text = t.Text
		if text == "" && len(t.Tools) == 0 {
			text = "done"
		}
		for i, tc := range t.Tools {
			input := string(tc.Input)
			if input == "" {
				input = "{}"
			}
			nodes = append(nodes, map[string]any{"id": i + 1, "type": 5, "content": "",
				"tool_use": map[string]any{"tool_use_id": CallID(n, i, tc), "tool_name": tc.Name, "input_json": input}})
		}
		if len(t.Tools) > 0 {
			stop = 3 // TOOL_USE_REQUESTED
		}
	}
	if text != "" {
		nodes = append([]any{map[string]any{"id": 0, "type": 0, "content": text}}, nodes...)
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w) // one JSON value per line: NDJSON
	_ = enc.Encode(map[string]any{"text": text, "nodes": nodes})
	_ = enc.Encode(map[string]any{"text": "", "stop_reason": stop})
}

// ToolResults returns, by tool_use_id, the tool results the main conversation's requests
// carry (the request nodes of type 1 that answer the previous turn's calls).
func (a *Augment) ToolResults() map[string]ToolResult {
	out := map[string]ToolResult{}
	for _, r := range a.MainRequests() {
		var req augmentRequest
		if json.Unmarshal(r.Body, &req) != nil {
			continue
		}
		for _, n := range req.Nodes {
			if n.Type == 1 && n.ToolResult != nil {
				out[n.ToolResult.ToolUseID] = ToolResult{Text: n.ToolResult.Content, IsError: n.ToolResult.IsError}
			}
		}
	}
	return out
}
