package main

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/hookexec/hookexec/core/engine"
)

var errMisuse = errors.New("hookexec: not an engine handle (never returned by hookexec_open)")

// handleTable maps the opaque hookexec_engine* values handed to C to engines. A handle is a
// counter, never a Go pointer (cgo forbids C keeping those), and is never reused, so a call
// with a closed handle is told ECLOSED instead of touching another engine.
type handleTable struct {
	mu      sync.RWMutex
	next    uintptr
	engines map[uintptr]*engine.Engine
}

// handles start at 16 and step by 16 so that they look like aligned pointers to C tools
// and small integers passed by mistake are recognisably not handles.
const handleStep = 16

var handles = handleTable{next: handleStep, engines: map[uintptr]*engine.Engine{}}

func (t *handleTable) add(e *engine.Engine) uintptr {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.next
	t.next += handleStep
	t.engines[h] = e
	return h
}

func (t *handleTable) get(h uintptr) (*engine.Engine, error) {
	t.mu.RLock()
	e, ok := t.engines[h]
	issued := h%handleStep == 0 && h > 0 && h < t.next
	t.mu.RUnlock()
	switch {
	case ok:
		return e, nil
	case issued:
		return nil, engine.ErrClosed
	}
	return nil, errMisuse
}

func (t *handleTable) remove(h uintptr) (*engine.Engine, error) {
	e, err := t.get(h)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.engines[h]; !ok {
		return nil, engine.ErrClosed // closed by another thread meanwhile
	}
	delete(t.engines, h)
	return e, nil
}

func jsonStrings(items []string) []byte {
	if items == nil {
		items = []string{}
	}
	b, _ := json.Marshal(items)
	return b
}
