package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Gemini is a fake Gemini API (POST /v1beta/models/<model>:streamGenerateContent?alt=sse and
// :generateContent, :countTokens) for Gemini CLI (GOOGLE_GEMINI_BASE_URL). The main
// conversation (requests with tools) answers from Script by the number of "model" turns the
// request carries; other requests answer Side, by default the next-speaker verdict "user".
type Gemini struct {
	scripted
	// NeverRepeat makes the fake never serve a turn twice (scripted.advance), for Gemini CLI,
	// which drops a response an AfterModel hook blocked and asks again. Apps on a framework
	// legitimately ask twice with the same history (Google ADK after a tool confirmation
	// request), so it is off unless the agent needs it.
	NeverRepeat bool
}

type geminiRequest struct {
	Contents []struct {
		Role  string            `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"contents"`
	Tools []json.RawMessage `json:"tools"`
}

// Start listens on an ephemeral port of 127.0.0.1 and returns the base URL.
func (g *Gemini) Start() (string, error) { return g.start(g) }

// ServeHTTP answers one request.
func (g *Gemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, main := g.record(r, func(b []byte) bool {
		var req geminiRequest
		return json.Unmarshal(b, &req) == nil && len(req.Tools) > 0
	})
	switch {
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 10})
		return
	case !strings.Contains(r.URL.Path, "generateContent") && !strings.Contains(r.URL.Path, "GenerateContent"):
		http.NotFound(w, r)
		return
	}
	var req geminiRequest
	_ = json.Unmarshal(body, &req)
	var parts []any
	if main {
		n := 0
		for _, c := range req.Contents {
			if c.Role == "model" {
				n++
			}
		}
		var t Turn
		if g.NeverRepeat {
			t, n = g.advance(n)
		} else {
			t = g.turn(n)
		}
		if t.Text != "" || len(t.Tools) == 0 {
			text := t.Text
			if text == "" {
				text = "done"
			}
			parts = append(parts, map[string]any{"text": text})
		}
		for i, c := range t.Tools {
			var args any
			_ = json.Unmarshal(c.Input, &args)
			parts = append(parts, map[string]any{"functionCall": map[string]any{"id": CallID(n, i, c), "name": c.Name, "args": args}})
		}
	} else {
		side := g.Side
		if side == "" {
			side = `{"reasoning": "the model answered", "next_speaker": "user"}`
		}
		parts = append(parts, map[string]any{"text": side})
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-fake",
	}
	if !strings.Contains(r.URL.Path, "stream") {
		writeJSON(w, resp)
		return
	}
	data, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", data)
}

// ToolResults returns, by call id, the function responses the main conversation carries.
func (g *Gemini) ToolResults() map[string]ToolResult {
	out := map[string]ToolResult{}
	for _, r := range g.MainRequests() {
		var req geminiRequest
		if json.Unmarshal(r.Body, &req) != nil {
			continue
		}
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				var part struct {
					FunctionResponse *struct {
						ID       string         `json:"id"`
						Name     string         `json:"name"`
						Response map[string]any `json:"response"`
					} `json:"functionResponse"`
				}
				if json.Unmarshal(p, &part) != nil || part.FunctionResponse == nil {
					continue
				}
				fr := part.FunctionResponse
				text, _ := json.Marshal(fr.Response)
				_, isErr := fr.Response["error"]
				out[fr.ID] = ToolResult{Text: string(text), IsError: isErr}
			}
		}
	}
	return out
}

// UserTexts returns every text part of the user turns of the main conversation's last
// request (prompts, added context, hook feedback), function responses excluded, in order.
func (g *Gemini) UserTexts() []string {
	reqs := g.MainRequests()
	if len(reqs) == 0 {
		return nil
	}
	var req geminiRequest
	_ = json.Unmarshal(reqs[len(reqs)-1].Body, &req)
	var out []string
	for _, c := range req.Contents {
		if c.Role != "user" {
			continue
		}
		for _, p := range c.Parts {
			var part struct {
				Text *string `json:"text"`
			}
			if json.Unmarshal(p, &part) == nil && part.Text != nil {
				out = append(out, *part.Text)
			}
		}
	}
	return out
}
