// Package serve is hookexec's JSON-RPC 2.0 server: one JSON message a line in, one a line
// out, over any pair of streams. `hookexec serve --stdio` runs it on stdin/stdout; the
// daemon runs it on each accepted connection. It owns the protocol only: engines are
// core/engine's, the transport is the caller's.
//
// Three guarantees a host relies on:
//   - Answers the host gives to the server's own requests (hookexec.evaluate) are read as
//     they arrive, never behind requests waiting for a free slot, so any number of pipelined
//     fires whose hooks wait on the host finish as soon as the host answers.
//   - At end of input the evaluations still waiting fail at once (nobody is left to answer),
//     so Serve returns as soon as the hooks in flight finish, not after their timeouts.
//   - A message longer than MaxMessageBytes is not read whole: it is skipped up to its newline
//     and answered with a CodeTooLarge error, so a host cannot make the server hold an
//     unbounded line in memory.
//
// It does not start processes of its own, write logs, or read anything but its input.
package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hookexec/hookexec/core/engine"
)

// MaxMessageBytes bounds one incoming message (one line, without its newline) unless
// Options.MaxMessageBytes says otherwise: 32 MiB, far above any payload an agent sends (a
// PostToolUse payload with a large file read is a few MiB).
const MaxMessageBytes = 32 << 20

// MaxConcurrent is the number of requests run at once; more wait for a slot without
// holding up the reading of input.
const MaxConcurrent = 64

// JSON-RPC 2.0 error codes: the standard ones and hookexec's (-32000 to -32099).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	CodeClosed         = -32001 // the engine was closed
	CodeConfig         = -32002 // the options name an unusable configuration
	CodeNoEngine       = -32003 // no engine with that id
	CodeTooLarge       = -32004 // the message is longer than the server's bound
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// Message is one JSON-RPC 2.0 message: a request, a notification or a response.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Options configure a Server; the zero value means the documented defaults.
type Options struct {
	MaxMessageBytes int // 0 means MaxMessageBytes
	MaxConcurrent   int // 0 means MaxConcurrent
	// Methods adds methods beyond the engine's (the daemon's dispatch, status, shutdown);
	// nil means none. A method returns its result as JSON, or an error (an *Error keeps
	// its code).
	Methods map[string]Method
}

// Method is an added method: params in, result JSON out.
type Method func(params json.RawMessage) (json.RawMessage, error)

// Server is one session: the engines the host opened and the calls in flight.
type Server struct {
	in       io.Reader
	out      io.Writer
	max      int
	methods  map[string]Method
	wmu      sync.Mutex // one message per write, whole
	mu       sync.Mutex // guards engines, next, calls, ended
	engines  map[int64]*engine.Engine
	next     int64
	calls    map[string]chan Message // our requests to the host, by id
	ended    bool                    // input ended: no answer will come
	callSeq  atomic.Int64
	inflight sync.WaitGroup
	slots    chan struct{} // bounds concurrent requests
}

// New makes a server reading in and writing out.
func New(in io.Reader, out io.Writer, o Options) *Server {
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = MaxMessageBytes
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = MaxConcurrent
	}
	return &Server{in: in, out: out, max: o.MaxMessageBytes, methods: o.Methods, engines: map[int64]*engine.Engine{},
		calls: map[string]chan Message{}, slots: make(chan struct{}, o.MaxConcurrent)}
}

// Serve reads messages until end of input, then fails the evaluations still waiting,
// waits for the requests in flight, closes every engine (async hooks finish) and returns.
// The error is the input's read error, nil at a clean end of input.
func (s *Server) Serve() error {
	r := bufio.NewReaderSize(s.in, 64<<10)
	var rerr error
	for {
		line, tooLong, err := readLine(r, s.max)
		if tooLong {
			s.send(Message{ID: json.RawMessage("null"), Error: &Error{CodeTooLarge,
				fmt.Sprintf("message longer than %d bytes: skipped", s.max)}})
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			s.dispatch(line)
		}
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
	}
	s.mu.Lock()
	s.ended = true
	for id, ch := range s.calls { // the host is gone: nobody will answer
		close(ch)
		delete(s.calls, id)
	}
	s.mu.Unlock()
	s.inflight.Wait()
	s.mu.Lock()
	engines := s.engines
	s.engines = map[int64]*engine.Engine{}
	s.mu.Unlock()
	for _, e := range engines {
		_ = e.Close()
	}
	return rerr
}

// readLine reads one line without its newline. A line longer than max is consumed up to
// its newline without being kept, and reported as tooLong.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			limit := max
			if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
				limit++ // the newline is not part of the message; a last line may have none
			}
			if len(line)+len(chunk) > limit {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, tooLong, err
	}
}

// dispatch handles one line: a request, a notification, a batch, or the host's answer to
// one of our requests. It never waits for a request to run, so the next line, possibly an
// answer a running request waits for, is read at once.
func (s *Server) dispatch(line []byte) {
	if line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			s.send(Message{ID: json.RawMessage("null"), Error: &Error{CodeParseError, "parse error: " + err.Error()}})
			return
		}
		if len(batch) == 0 {
			s.send(Message{ID: json.RawMessage("null"), Error: &Error{CodeInvalidRequest, "empty batch"}})
			return
		}
		var requests []json.RawMessage
		for _, raw := range batch {
			var m Message
			if json.Unmarshal(raw, &m) == nil && isAnswer(m) {
				s.answer(m)
				continue
			}
			requests = append(requests, raw)
		}
		if len(requests) == 0 {
			return
		}
		s.inflight.Add(1)
		go func() {
			defer s.inflight.Done()
			replies := make([]*Message, len(requests))
			var wg sync.WaitGroup
			for i, m := range requests {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.slots <- struct{}{}
					defer func() { <-s.slots }()
					replies[i] = s.handle(m)
				}()
			}
			wg.Wait()
			var out []*Message
			for _, r := range replies {
				if r != nil {
					out = append(out, r)
				}
			}
			if len(out) > 0 {
				s.write(out)
			}
		}()
		return
	}
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		s.send(Message{ID: json.RawMessage("null"), Error: &Error{CodeParseError, "parse error: " + err.Error()}})
		return
	}
	if isAnswer(m) {
		s.answer(m)
		return
	}
	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
		s.slots <- struct{}{}
		defer func() { <-s.slots }()
		if r := s.run(m); r != nil {
			s.send(*r)
		}
	}()
}

func isAnswer(m Message) bool { return m.Method == "" && (m.Result != nil || m.Error != nil) }

// handle runs one request of a batch and returns the response (nil for notifications).
func (s *Server) handle(raw []byte) *Message {
	var m Message
	if err := json.Unmarshal(raw, &m); err != nil {
		return &Message{ID: json.RawMessage("null"), Error: &Error{CodeParseError, "parse error: " + err.Error()}}
	}
	return s.run(m)
}

// run executes a request or notification and returns the response (nil for notifications).
func (s *Server) run(m Message) *Message {
	id := m.ID
	if m.JSONRPC != "2.0" || m.Method == "" {
		if id == nil {
			id = json.RawMessage("null")
		}
		return &Message{ID: id, Error: &Error{CodeInvalidRequest, `invalid request: want {"jsonrpc": "2.0", "method": ..., "id": ...}`}}
	}
	result, err := s.call(m.Method, m.Params)
	if id == nil {
		return nil // a notification: no response, even for errors
	}
	if err != nil {
		var re *Error
		if !errors.As(err, &re) {
			re = &Error{CodeInternal, err.Error()}
		}
		return &Message{ID: id, Error: re}
	}
	return &Message{ID: id, Result: result}
}

// engineParams are the params of every method but open.
type engineParams struct {
	Engine  *int64          `json:"engine"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	Subject string          `json:"subject"`
}

func (s *Server) call(method string, params json.RawMessage) (json.RawMessage, error) {
	if method == "open" {
		return s.open(params)
	}
	if m := s.methods[method]; m != nil {
		return m(params)
	}
	var p engineParams
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &Error{CodeInvalidParams, "params: " + err.Error()}
		}
	}
	switch method {
	case "fire", "match", "explain", "config", "reload", "drain", "close":
	default:
		return nil, &Error{CodeMethodNotFound, fmt.Sprintf("unknown method %q (methods: open, fire, match, explain, config, reload, drain, close)", method)}
	}
	if p.Engine == nil {
		return nil, &Error{CodeInvalidParams, `params: "engine" is required`}
	}
	e, err := s.engine(*p.Engine, method == "close")
	if err != nil {
		return nil, err
	}
	if (method == "fire" || method == "match" || method == "explain") && p.Event == "" {
		return nil, &Error{CodeInvalidParams, `params: "event" is required`}
	}
	payload := []byte(p.Payload)
	if len(payload) == 0 || string(payload) == "null" {
		payload = []byte("{}")
	}
	var v any
	switch method {
	case "fire":
		r, err := e.Fire(p.Event, payload)
		if err != nil {
			return nil, FromEngine(err)
		}
		return r.JSON(), nil
	case "match":
		ids, err := e.MatchIDs(p.Event, p.Subject)
		if ids == nil {
			ids = []string{}
		}
		v = map[string]any{"count": len(ids), "ids": ids}
		if err != nil {
			return nil, FromEngine(err)
		}
	case "explain":
		v, err = e.Explain(p.Event, payload)
	case "config":
		var b []byte
		if b, err = e.ConfigJSON(); err == nil {
			return b, nil
		}
	case "reload":
		err = e.Reload()
	case "drain":
		var out []string
		if out, err = e.Drain(); out == nil {
			out = []string{}
		}
		v = map[string]any{"output": out}
	case "close":
		err = e.Close()
	}
	if err != nil {
		return nil, FromEngine(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// open starts an engine; params are hookexec_open's options plus "evaluate".
func (s *Server) open(params json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &fields); err != nil {
			return nil, &Error{CodeInvalidParams, "params: want an object of engine options: " + err.Error()}
		}
	}
	evaluate := false
	if raw, ok := fields["evaluate"]; ok {
		if err := json.Unmarshal(raw, &evaluate); err != nil {
			return nil, &Error{CodeInvalidParams, `params: "evaluate" is not a boolean`}
		}
		delete(fields, "evaluate")
	}
	opts, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	o, err := engine.ParseOptions(opts)
	if err != nil {
		return nil, FromEngine(err)
	}
	e, err := engine.Open(o)
	if err != nil {
		return nil, FromEngine(err)
	}
	s.mu.Lock()
	s.next++
	id := s.next
	s.engines[id] = e
	s.mu.Unlock()
	_ = e.SetListener(func(kind string, data []byte) { s.notifyFromEngine(id, kind, data) })
	if evaluate {
		_ = e.SetEvaluator(func(ctx context.Context, hookType string, hook, payload []byte) (engine.Outcome, error) {
			return s.evaluate(ctx, id, hookType, hook, payload)
		})
	}
	return json.RawMessage(`{"engine":` + strconv.FormatInt(id, 10) + `}`), nil
}

// engine looks an engine up; take removes it (close).
func (s *Server) engine(id int64, take bool) (*engine.Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.engines[id]
	if e == nil {
		return nil, &Error{CodeNoEngine, fmt.Sprintf("no engine %d (open one first; closed engines are forgotten)", id)}
	}
	if take {
		delete(s.engines, id)
	}
	return e, nil
}

// FromEngine maps an engine error to its JSON-RPC error.
func FromEngine(err error) error {
	msg := strings.ReplaceAll(err.Error(), "hookexec: ", "")
	switch {
	case errors.Is(err, engine.ErrClosed):
		return &Error{CodeClosed, msg}
	case errors.Is(err, engine.ErrConfig):
		return &Error{CodeConfig, msg}
	case errors.Is(err, engine.ErrInvalid):
		return &Error{CodeInvalidParams, msg}
	}
	return &Error{CodeInternal, msg}
}

// notifyFromEngine turns what the engine's listener receives into a notification of the
// host: async results as hookexec.async, autohand's notifications with their own method.
func (s *Server) notifyFromEngine(id int64, kind string, data []byte) {
	engineField := []byte(`{"engine":` + strconv.FormatInt(id, 10))
	withEngine := func(obj []byte) json.RawMessage {
		obj = bytes.TrimSpace(obj)
		if len(obj) == 0 {
			return json.RawMessage(append(engineField, '}'))
		}
		if len(obj) < 2 || obj[0] != '{' {
			return json.RawMessage(append(append(engineField, `,"data":`...), append(obj, '}')...))
		}
		if bytes.Equal(bytes.TrimSpace(obj[1:]), []byte("}")) {
			return json.RawMessage(append(engineField, '}'))
		}
		return json.RawMessage(append(append(engineField, ','), obj[1:]...))
	}
	if kind == "notification" {
		var n Message
		if err := json.Unmarshal(data, &n); err == nil && n.Method != "" {
			s.send(Message{Method: n.Method, Params: withEngine(n.Params)})
			return
		}
	}
	s.send(Message{Method: "hookexec." + kind, Params: withEngine(data)})
}

// errHostGone fails an evaluation once the input has ended.
var errHostGone = errors.New("the host went away before answering")

// evaluate asks the host to evaluate a prompt, agent or mcp_tool hook.
func (s *Server) evaluate(ctx context.Context, id int64, hookType string, hook, payload []byte) (engine.Outcome, error) {
	callID := "hookexec-" + strconv.FormatInt(s.callSeq.Add(1), 10)
	ch := make(chan Message, 1)
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return engine.Outcome{}, errHostGone
	}
	s.calls[callID] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.calls, callID)
		s.mu.Unlock()
	}()
	params, err := json.Marshal(map[string]any{"engine": id, "type": hookType, "hook": json.RawMessage(hook), "payload": json.RawMessage(payload)})
	if err != nil {
		return engine.Outcome{}, err
	}
	idJSON, _ := json.Marshal(callID)
	s.send(Message{ID: idJSON, Method: "hookexec.evaluate", Params: params})
	select {
	case <-ctx.Done():
		return engine.Outcome{}, ctx.Err()
	case m, ok := <-ch:
		if !ok {
			return engine.Outcome{}, errHostGone
		}
		if m.Error != nil {
			return engine.Outcome{}, fmt.Errorf("the host's evaluator: %s", m.Error.Message)
		}
		var ans struct {
			OK       *bool  `json:"ok"`
			Reason   string `json:"reason"`
			ExitCode *int   `json:"exit_code"`
			Stdout   string `json:"stdout"`
			Stderr   string `json:"stderr"`
		}
		if err := json.Unmarshal(m.Result, &ans); err != nil {
			return engine.Outcome{}, fmt.Errorf("the host's evaluator answered %s: %v", m.Result, err)
		}
		switch {
		case ans.ExitCode != nil:
			return engine.Outcome{ExitCode: *ans.ExitCode, Stdout: []byte(ans.Stdout), Stderr: []byte(ans.Stderr)}, nil
		case ans.OK != nil:
			return engine.Verdict(*ans.OK, ans.Reason), nil
		}
		return engine.Outcome{}, fmt.Errorf(`the host's evaluator answered %s; want {"ok", "reason"} or {"exit_code", "stdout", "stderr"}`, m.Result)
	}
}

// answer routes the host's response to one of our requests.
func (s *Server) answer(m Message) {
	var id string
	if json.Unmarshal(m.ID, &id) != nil {
		return
	}
	s.mu.Lock()
	ch := s.calls[id]
	delete(s.calls, id)
	s.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

func (s *Server) send(m Message) {
	m.JSONRPC = "2.0"
	s.write(m)
}

// write puts one JSON message on its own line.
func (s *Server) write(v any) {
	if list, ok := v.([]*Message); ok {
		for _, m := range list {
			m.JSONRPC = "2.0"
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return
	}
	s.wmu.Lock()
	_, _ = s.out.Write(buf.Bytes())
	s.wmu.Unlock()
}
