package main

/*
#include <stdint.h>
#include <stdlib.h>
#include "hookexec.h"

void hx_call_listener(uintptr_t h, hookexec_listener_fn fn, void *user_data, const char *kind, const char *json);
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/hookexec/hookexec/core/engine"
)

// cListener is one registration of a host's C listener. Once retired it calls the host no
// more, and retire(true) returns only when calls already running have returned: after
// hookexec_set_listener(e, NULL) the host may free what user_data points to.
type cListener struct {
	h        uintptr
	fn       C.hookexec_listener_fn
	userData unsafe.Pointer // C memory (or any value the host chose); Go only hands it back

	mu      sync.Mutex
	idle    sync.Cond // signalled when active drops to 0
	active  int
	retired bool
}

func newCListener(h uintptr, fn C.hookexec_listener_fn, userData unsafe.Pointer) *cListener {
	l := &cListener{h: h, fn: fn, userData: userData}
	l.idle.L = &l.mu
	return l
}

// call is the engine's Listener.
func (l *cListener) call(kind string, data []byte) {
	l.mu.Lock()
	if l.retired {
		l.mu.Unlock()
		// The engine picked this listener up just before it was replaced: the message goes
		// to its replacement, if any, rather than nowhere.
		if next := listeners.current(l.h); next != nil && next != l {
			next.call(kind, data)
		}
		return
	}
	l.active++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		if l.active--; l.active == 0 {
			l.idle.Broadcast()
		}
		l.mu.Unlock()
	}()
	ck, cd := C.CString(kind), cstring(data)
	defer C.free(unsafe.Pointer(ck))
	defer C.free(unsafe.Pointer(cd))
	C.hx_call_listener(C.uintptr_t(l.h), l.fn, l.userData, ck, cd)
}

// retire stops further calls and, with wait, waits for the running ones. nil is a no-op.
func (l *cListener) retire(wait bool) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.retired = true
	for wait && l.active > 0 {
		l.idle.Wait()
	}
}

// listenerTable holds each engine's current C listener.
type listenerTable struct {
	mu sync.Mutex // also orders SetListener calls, so the table and the engine agree
	m  map[uintptr]*cListener
}

var listeners = listenerTable{m: map[uintptr]*cListener{}}

// swap makes l (nil for none) engine h's listener and returns the one it replaces.
func (t *listenerTable) swap(h uintptr, e *engine.Engine, l *cListener) (*cListener, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var fn engine.Listener
	if l != nil {
		fn = l.call
	}
	if err := e.SetListener(fn); err != nil {
		return nil, err
	}
	old := t.m[h]
	if l == nil {
		delete(t.m, h)
	} else {
		t.m[h] = l
	}
	return old, nil
}

// current is engine h's listener, or nil.
func (t *listenerTable) current(h uintptr) *cListener {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[h]
}

// drop forgets engine h's listener (the engine is closed) and returns it.
func (t *listenerTable) drop(h uintptr) *cListener {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.m[h]
	delete(t.m, h)
	return old
}
