package fakeapi

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// scripted is what the fakes of Gemini's, OpenAI's Chat Completions and Responses APIs share:
// the listener, the record of requests, and the script.
type scripted struct {
	// Script answers the main conversation; past its end the answer is the text "done".
	Script []Turn
	// Side answers every request without tools (next-speaker checks, titles, summaries);
	// "" means the fake's default.
	Side string

	mu       sync.Mutex
	requests []Request
	srv      *http.Server
	// served is the highest turn advance answered; seen says it answered one.
	served int
	seen   bool
}

func (s *scripted) start(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s.srv = &http.Server{Handler: h}
	go func() { _ = s.srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// Close stops the server.
func (s *scripted) Close() error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// Requests returns a copy of the requests received so far, in arrival order.
func (s *scripted) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// MainRequests returns the main conversation's requests.
func (s *scripted) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Main {
			out = append(out, r)
		}
	}
	return out
}

// record reads a request's body and keeps it.
func (s *scripted) record(r *http.Request, main func(body []byte) bool) ([]byte, bool) {
	at := time.Now()
	body, _ := io.ReadAll(r.Body)
	isMain := json.Valid(body) && main(body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Body: body, Main: isMain, At: at})
	s.mu.Unlock()
	return body, isMain
}

// turn returns the scripted answer after n assistant turns.
func (s *scripted) turn(n int) Turn {
	if n < len(s.Script) {
		return s.Script[n]
	}
	return Turn{Text: "done"}
}

// advance returns the scripted answer for a request that carries n assistant turns, never
// going back: when the agent asks again for a turn it was already given (it dropped the
// answer from its history, as Gemini CLI does with a response an AfterModel hook blocked,
// and would otherwise be handed the same answer until its loop detector gives up), the
// request gets the next turn of the script, and past its end the text "done".
func (s *scripted) advance(n int) (Turn, int) {
	s.mu.Lock()
	if s.seen && n <= s.served {
		n = s.served + 1
	}
	s.served, s.seen = n, true
	s.mu.Unlock()
	return s.turn(n), n
}

// CallID is the id the Gemini, Chat Completions and Responses fakes give the i-th tool call
// of turn n: the script's, else "call_<n>_<i>".
func CallID(n, i int, c ToolCall) string {
	if c.ID != "" {
		return c.ID
	}
	return "call_" + itoa(n) + "_" + itoa(i)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// With sets the script and returns g.
func (g *Gemini) With(script []Turn) *Gemini { g.Script = script; return g }
