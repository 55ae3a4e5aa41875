package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hookexec/hookexec/core/engine"
)

func init() {
	var stdio bool
	register(&verb{
		name:    "serve",
		summary: "serve the engine to a host in any language: JSON-RPC 2.0 over stdin/stdout",
		help: `Reads JSON-RPC 2.0 requests, one JSON message a line, on stdin and writes responses
and notifications, one a line, on stdout (logs never go there). Methods:
  open     params: engine options (profile, project_dir, home, sources, config, ...;
           as hookexec_open), plus "evaluate": true to answer prompt/agent/mcp_tool hooks
           → {"engine": N}
  fire     {engine, event, payload}      → the fire result
  match    {engine, event, subject}      → {"count": N, "ids": [...]}
  explain  {engine, event, payload}      → why each hook would or would not run
  config   {engine}                      → hooks, sources, warnings
  reload   {engine}                      → null
  drain    {engine}                      → {"output": [...]}
  close    {engine}                      → null
Requests run concurrently and responses may come in any order (match them by id). Results
of async hooks arrive as notifications "hookexec.async" {engine, event, hook, ...}; autohand's
hook notifications ("autohand.hook.preTool", ...) keep their method and gain "engine" in
params. With "evaluate", the server asks the host with a request "hookexec.evaluate"
{engine, type, hook, payload} and expects {"ok", "reason"} or {"exit_code", "stdout",
"stderr"} back. At end of input every engine is closed (async hooks finish) and serve exits.`,
		example: `hookexec serve --stdio
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"open","params":{"profile":"claude"}}' | hookexec serve --stdio`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&stdio, "stdio", false, "speak JSON-RPC on stdin/stdout (the only transport)")
		},
		run: func(a *app, args []string) int {
			if err := noArgs("serve", args); err != nil {
				return a.fail(err)
			}
			if !stdio {
				return a.fail(usagef("serve: say --stdio (JSON-RPC 2.0 on stdin/stdout, the only transport)"))
			}
			return newServer(a.stdin, a.stdout).serve()
		},
	})
}

// JSON-RPC 2.0 error codes: the standard ones and hookexec's (-32000 to -32099).
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcInternal       = -32603
	rpcClosed         = -32001 // the engine was closed
	rpcConfig         = -32002 // the options name an unusable configuration
	rpcNoEngine       = -32003 // no engine with that id
)

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// server is one serve session.
type server struct {
	in       io.Reader
	out      io.Writer
	wmu      sync.Mutex // one message per write, whole
	mu       sync.Mutex // guards engines, calls
	engines  map[int64]*engine.Engine
	next     int64
	calls    map[string]chan rpcMessage // our requests to the host, by id
	callSeq  atomic.Int64
	inflight sync.WaitGroup
	slots    chan struct{} // bounds concurrent requests
}

func newServer(in io.Reader, out io.Writer) *server {
	return &server{in: in, out: out, engines: map[int64]*engine.Engine{}, calls: map[string]chan rpcMessage{},
		slots: make(chan struct{}, 64)}
}

func (s *server) serve() int {
	r := bufio.NewReaderSize(s.in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			s.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	s.inflight.Wait()
	s.mu.Lock()
	engines := s.engines
	s.engines = map[int64]*engine.Engine{}
	for id, ch := range s.calls { // the host is gone: nobody will answer
		close(ch)
		delete(s.calls, id)
	}
	s.mu.Unlock()
	for _, e := range engines {
		_ = e.Close()
	}
	return exitOK
}

// dispatch handles one line: a request, a notification, a batch, or the host's answer to
// one of our requests.
func (s *server) dispatch(line []byte) {
	if line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			s.send(rpcMessage{ID: json.RawMessage("null"), Error: &rpcError{rpcParseError, "parse error: " + err.Error()}})
			return
		}
		if len(batch) == 0 {
			s.send(rpcMessage{ID: json.RawMessage("null"), Error: &rpcError{rpcInvalidRequest, "empty batch"}})
			return
		}
		s.inflight.Add(1)
		go func() {
			defer s.inflight.Done()
			replies := make([]*rpcMessage, len(batch))
			var wg sync.WaitGroup
			for i, m := range batch {
				wg.Add(1)
				go func() { defer wg.Done(); replies[i] = s.handle(m) }()
			}
			wg.Wait()
			var out []*rpcMessage
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
	var m rpcMessage
	if err := json.Unmarshal(line, &m); err != nil {
		s.send(rpcMessage{ID: json.RawMessage("null"), Error: &rpcError{rpcParseError, "parse error: " + err.Error()}})
		return
	}
	if isAnswer(m) {
		// Answers are routed here, never behind the request slots: requests that wait for
		// them may hold every slot.
		s.answer(m)
		return
	}
	s.slots <- struct{}{}
	s.inflight.Add(1)
	go func() {
		defer func() { <-s.slots; s.inflight.Done() }()
		if r := s.run(m); r != nil {
			s.send(*r)
		}
	}()
}

func isAnswer(m rpcMessage) bool { return m.Method == "" && (m.Result != nil || m.Error != nil) }

// handle runs one message of a batch and returns the response (nil for notifications).
func (s *server) handle(raw []byte) *rpcMessage {
	var m rpcMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return &rpcMessage{ID: json.RawMessage("null"), Error: &rpcError{rpcParseError, "parse error: " + err.Error()}}
	}
	if isAnswer(m) {
		s.answer(m)
		return nil
	}
	return s.run(m)
}

// run executes a request or notification and returns the response (nil for notifications).
func (s *server) run(m rpcMessage) *rpcMessage {
	id := m.ID
	if m.JSONRPC != "2.0" || m.Method == "" {
		if id == nil {
			id = json.RawMessage("null")
		}
		return &rpcMessage{ID: id, Error: &rpcError{rpcInvalidRequest, `invalid request: want {"jsonrpc": "2.0", "method": ..., "id": ...}`}}
	}
	result, err := s.call(m.Method, m.Params)
	if id == nil {
		return nil // a notification: no response, even for errors
	}
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = &rpcError{rpcInternal, err.Error()}
		}
		return &rpcMessage{ID: id, Error: re}
	}
	return &rpcMessage{ID: id, Result: result}
}

// engineParams are the params of every method but open.
type engineParams struct {
	Engine  *int64          `json:"engine"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	Subject string          `json:"subject"`
}

func (s *server) call(method string, params json.RawMessage) (json.RawMessage, error) {
	if method == "open" {
		return s.open(params)
	}
	var p engineParams
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &rpcError{rpcInvalidParams, "params: " + err.Error()}
		}
	}
	switch method {
	case "fire", "match", "explain", "config", "reload", "drain", "close":
	default:
		return nil, &rpcError{rpcMethodNotFound, fmt.Sprintf("unknown method %q (methods: open, fire, match, explain, config, reload, drain, close)", method)}
	}
	if p.Engine == nil {
		return nil, &rpcError{rpcInvalidParams, `params: "engine" is required`}
	}
	e, err := s.engine(*p.Engine, method == "close")
	if err != nil {
		return nil, err
	}
	if (method == "fire" || method == "match" || method == "explain") && p.Event == "" {
		return nil, &rpcError{rpcInvalidParams, `params: "event" is required`}
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
			return nil, rpcFromEngine(err)
		}
		return r.JSON(), nil
	case "match":
		ids, err := e.MatchIDs(p.Event, p.Subject)
		if ids == nil {
			ids = []string{}
		}
		v = map[string]any{"count": len(ids), "ids": ids}
		if err != nil {
			return nil, rpcFromEngine(err)
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
		return nil, rpcFromEngine(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// open starts an engine; params are hookexec_open's options plus "evaluate".
func (s *server) open(params json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &fields); err != nil {
			return nil, &rpcError{rpcInvalidParams, "params: want an object of engine options: " + err.Error()}
		}
	}
	evaluate := false
	if raw, ok := fields["evaluate"]; ok {
		if err := json.Unmarshal(raw, &evaluate); err != nil {
			return nil, &rpcError{rpcInvalidParams, `params: "evaluate" is not a boolean`}
		}
		delete(fields, "evaluate")
	}
	opts, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	o, err := engine.ParseOptions(opts)
	if err != nil {
		return nil, rpcFromEngine(err)
	}
	e, err := engine.Open(o)
	if err != nil {
		return nil, rpcFromEngine(err)
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
func (s *server) engine(id int64, take bool) (*engine.Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.engines[id]
	if e == nil {
		return nil, &rpcError{rpcNoEngine, fmt.Sprintf("no engine %d (open one first; closed engines are forgotten)", id)}
	}
	if take {
		delete(s.engines, id)
	}
	return e, nil
}

func rpcFromEngine(err error) error {
	msg := plainMessage(err.Error())
	switch {
	case errors.Is(err, engine.ErrClosed):
		return &rpcError{rpcClosed, msg}
	case errors.Is(err, engine.ErrConfig):
		return &rpcError{rpcConfig, msg}
	case errors.Is(err, engine.ErrInvalid):
		return &rpcError{rpcInvalidParams, msg}
	}
	return &rpcError{rpcInternal, msg}
}

// notifyFromEngine turns what the engine's listener receives into a notification of the
// host: async results as hookexec.async, autohand's notifications with their own method.
func (s *server) notifyFromEngine(id int64, kind string, data []byte) {
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
		var n rpcMessage
		if err := json.Unmarshal(data, &n); err == nil && n.Method != "" {
			s.send(rpcMessage{Method: n.Method, Params: withEngine(n.Params)})
			return
		}
	}
	s.send(rpcMessage{Method: "hookexec." + kind, Params: withEngine(data)})
}

// evaluate asks the host to evaluate a prompt, agent or mcp_tool hook.
func (s *server) evaluate(ctx context.Context, id int64, hookType string, hook, payload []byte) (engine.Outcome, error) {
	callID := "hookexec-" + strconv.FormatInt(s.callSeq.Add(1), 10)
	ch := make(chan rpcMessage, 1)
	s.mu.Lock()
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
	s.send(rpcMessage{ID: idJSON, Method: "hookexec.evaluate", Params: params})
	select {
	case <-ctx.Done():
		return engine.Outcome{}, ctx.Err()
	case m, ok := <-ch:
		if !ok {
			return engine.Outcome{}, errors.New("the host went away before answering")
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
func (s *server) answer(m rpcMessage) {
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

func (s *server) send(m rpcMessage) {
	m.JSONRPC = "2.0"
	s.write(m)
}

// write puts one JSON message on its own line.
func (s *server) write(v any) {
	if list, ok := v.([]*rpcMessage); ok {
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
