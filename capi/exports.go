// Command capi builds libhookexec.so: the Go engine behind the C interface of
// include/hookexec.h. The public functions live in hookexec.c; it checks fork and NULLs and
// calls the hxgo_* exports below, which translate between C strings and core/engine and
// recover every panic into HOOKEXEC_EINTERNAL. Nothing here writes to fd 1 or 2.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include -Wall
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hookexec.h"
#include "answer.h"

void hx_call_listener(uintptr_t h, hookexec_listener_fn fn, void *user_data, const char *kind, const char *json);
int hx_call_prompt(hookexec_prompt_fn fn, void *user_data, const char *prompt, const char *payload, char *reason, size_t reason_size);
char *hx_handout(const char *data, size_t n);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/hookexec/hookexec/core/engine"
)

func main() {}

// Status codes, mirrored from hookexec.h.
const (
	statusOK       = C.HOOKEXEC_OK
	statusInvalid  = C.HOOKEXEC_EINVAL
	statusConfig   = C.HOOKEXEC_ECONFIG
	statusClosed   = C.HOOKEXEC_ECLOSED
	statusMisuse   = C.HOOKEXEC_EMISUSE
	statusInternal = C.HOOKEXEC_EINTERNAL
	statusTrust    = C.HOOKEXEC_ETRUST
)

// status maps an engine error to a code.
func status(err error) C.int {
	switch {
	case err == nil:
		return statusOK
	case errors.Is(err, engine.ErrClosed):
		return statusClosed
	case errors.Is(err, errMisuse):
		return statusMisuse
	case errors.Is(err, engine.ErrConfig):
		return statusConfig
	case errors.Is(err, engine.ErrTrust):
		return statusTrust
	case errors.Is(err, engine.ErrInvalid):
		return statusInvalid
	}
	return statusInternal
}

// cstring copies b into malloc'd memory with a trailing NUL; hookexec_free releases it.
func cstring(b []byte) *C.char {
	p := (*byte)(C.malloc(C.size_t(len(b) + 1)))
	dst := unsafe.Slice(p, len(b)+1)
	copy(dst, b)
	dst[len(b)] = 0
	return (*C.char)(unsafe.Pointer(p))
}

// handout copies b into a string for the host, counted by hookexec_debug_live until freed.
func handout(b []byte) *C.char {
	if len(b) == 0 {
		return C.hx_handout(nil, 0)
	}
	return C.hx_handout((*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(b)))
}

// view returns the bytes of a C string without copying; valid only during the call.
func view(s *C.char) []byte {
	if s == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(s)), C.strlen(s))
}

// fail stores err's text for the C layer and returns its status (OK for a nil err).
func fail(errOut **C.char, err error) C.int {
	if err == nil {
		return statusOK
	}
	if errOut != nil {
		*errOut = cstring([]byte(err.Error()))
	}
	return status(err)
}

// guard turns a panic into HOOKEXEC_EINTERNAL with the stack in the message.
func guard(rc *C.int, errOut **C.char) {
	if r := recover(); r != nil {
		*rc = fail(errOut, internalError(r))
	}
}

func internalError(r any) error {
	return fmt.Errorf("hookexec: internal error: %v\n%s", r, debug.Stack())
}

//export hxgo_open
func hxgo_open(options *C.char, out *C.uintptr_t, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	opts, err := engine.ParseOptions(view(options))
	if err != nil {
		return fail(errOut, err)
	}
	opts.Environ = cEnviron // the host's setenv, not Go's copy from load time
	e, err := engine.Open(opts)
	if err != nil {
		return fail(errOut, err)
	}
	*out = C.uintptr_t(handles.add(e))
	return statusOK
}

//export hxgo_fire
func hxgo_fire(h C.uintptr_t, event, payload *C.char, out **C.char, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	e, err := handles.get(uintptr(h))
	if err != nil {
		return fail(errOut, err)
	}
	res, err := e.Fire(C.GoString(event), view(payload))
	if err != nil {
		return fail(errOut, err)
	}
	*out = handout(res.JSON())
	return statusOK
}

//export hxgo_match
func hxgo_match(h C.uintptr_t, event, subject *C.char, errOut **C.char) (rc C.int) {
	defer func() {
		if r := recover(); r != nil {
			rc = -fail(errOut, internalError(r)) // negated like every error of hookexec_match
		}
	}()
	e, err := handles.get(uintptr(h))
	if err != nil {
		return -fail(errOut, err)
	}
	n, err := e.Match(C.GoString(event), C.GoString(subject))
	if err != nil {
		return -fail(errOut, err)
	}
	return C.int(n)
}

//export hxgo_match_ids
func hxgo_match_ids(h C.uintptr_t, event, subject *C.char, out **C.char, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	e, err := handles.get(uintptr(h))
	if err != nil {
		return fail(errOut, err)
	}
	ids, err := e.MatchIDs(C.GoString(event), C.GoString(subject))
	if err != nil {
		return fail(errOut, err)
	}
	*out = handout(jsonStrings(ids))
	return statusOK
}

//export hxgo_config
func hxgo_config(h C.uintptr_t, out **C.char, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	e, err := handles.get(uintptr(h))
	if err != nil {
		return fail(errOut, err)
	}
	b, err := e.ConfigJSON()
	if err != nil {
		return fail(errOut, err)
	}
	*out = handout(b)
	return statusOK
}

//export hxgo_reload
func hxgo_reload(h C.uintptr_t, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	e, err := handles.get(uintptr(h))
	if err != nil {
		return fail(errOut, err)
	}
	if err := e.Reload(); err != nil {
		return fail(errOut, err)
	}
	return statusOK
}

//export hxgo_drain
func hxgo_drain(h C.uintptr_t, out **C.char, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	e, err := handles.get(uintptr(h))
	if err != nil {
		return fail(errOut, err)
	}
	items, err := e.Drain()
	if err != nil {
		return fail(errOut, err)
	}
	*out = handout(jsonStrings(items))
	return statusOK
}

//export hxgo_set_listener
func hxgo_set_listener(h C.uintptr_t, fn C.hookexec_listener_fn, userData unsafe.Pointer, inside C.int, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	e, err := handles.get(uintptr(h))
	if err != nil {
		return fail(errOut, err)
	}
	var l *cListener
	if fn != nil {
		l = newCListener(uintptr(h), fn, userData)
	}
	old, err := listeners.swap(uintptr(h), e, l)
	if err != nil {
		return fail(errOut, err)
	}
	// The old callback is done when this returns, unless this thread is inside it.
	old.retire(inside == 0)
	return statusOK
}

// promptReasonSize is the reason buffer handed to a C prompt evaluator.
const promptReasonSize = 4096

//export hxgo_set_prompt_evaluator
func hxgo_set_prompt_evaluator(h C.uintptr_t, fn C.hookexec_prompt_fn, userData unsafe.Pointer, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	e, err := handles.get(uintptr(h))
	if err != nil {
		return fail(errOut, err)
	}
	if fn == nil {
		return fail(errOut, e.SetPromptEvaluator(nil))
	}
	return fail(errOut, e.SetPromptEvaluator(func(_ context.Context, prompt string, payload []byte) (bool, string, error) {
		// The engine stops waiting at the hook's timeout; this call still runs to its end and
		// frees its own buffers, so the host's late answer writes only into memory we own.
		cp, cj := C.CString(prompt), cstring(payload)
		reason := (*C.char)(C.malloc(promptReasonSize))
		defer C.free(unsafe.Pointer(cp))
		defer C.free(unsafe.Pointer(cj))
		defer C.free(unsafe.Pointer(reason))
		switch r := C.hx_call_prompt(fn, userData, cp, cj, reason, promptReasonSize); r {
		case 1:
			return true, C.GoString(reason), nil
		case 0:
			return false, C.GoString(reason), nil
		default:
			msg := C.GoString(reason)
			if msg == "" {
				msg = fmt.Sprintf("evaluator returned %d", int(r))
			}
			return false, "", errors.New(msg)
		}
	}))
}

//export hxgo_set_evaluator
func hxgo_set_evaluator(h C.uintptr_t, fn C.hookexec_evaluator_fn, userData unsafe.Pointer, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	e, err := handles.get(uintptr(h))
	if err != nil {
		return fail(errOut, err)
	}
	if fn == nil {
		return fail(errOut, e.SetEvaluator(nil))
	}
	return fail(errOut, e.SetEvaluator(func(_ context.Context, hookType string, hook, payload []byte) (engine.Outcome, error) {
		// As with prompt evaluators: the engine stops waiting at the hook's timeout, this call
		// runs to its end and frees what it allocated, so a late answer lands in our memory.
		ct, ch, cp := C.CString(hookType), cstring(hook), cstring(payload)
		a := C.hx_answer_new()
		defer C.free(unsafe.Pointer(ct))
		defer C.free(unsafe.Pointer(ch))
		defer C.free(unsafe.Pointer(cp))
		defer C.hx_answer_free(a)
		if a == nil {
			return engine.Outcome{}, errors.New("out of memory")
		}
		C.hx_call_evaluator(fn, userData, ct, ch, cp, a)
		out, errText := C.GoString(C.hx_answer_out(a)), C.GoString(C.hx_answer_err(a))
		switch C.hx_answer_kind(a) {
		case C.HX_ANSWER_OUTPUT:
			return engine.Outcome{ExitCode: int(C.hx_answer_code(a)), Stdout: []byte(out), Stderr: []byte(errText)}, nil
		case C.HX_ANSWER_VERDICT:
			return engine.Verdict(C.hx_answer_code(a) != 0, out), nil
		case C.HX_ANSWER_ERROR:
			if errText == "" {
				errText = "failed without a message"
			}
			return engine.Outcome{}, errors.New(errText)
		}
		return engine.Outcome{}, errors.New("returned without answering (call hookexec_answer_output, _verdict or _error)")
	}))
}

//export hxgo_live_engines
func hxgo_live_engines() C.long {
	handles.mu.RLock()
	defer handles.mu.RUnlock()
	return C.long(len(handles.engines))
}

//export hxgo_live_goroutines
func hxgo_live_goroutines() C.long { return C.long(runtime.NumGoroutine()) }

//export hxgo_close
func hxgo_close(h C.uintptr_t, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	e, err := handles.remove(uintptr(h))
	if err != nil {
		return fail(errOut, err)
	}
	err = e.Close()
	// Close waited for async hooks; a notification may still be on its way out.
	listeners.drop(uintptr(h)).retire(true)
	return fail(errOut, err)
}

// Operations of hxgo_trust, mirrored in hookexec.c.
const (
	trustList    = 0
	trustApprove = 1
	trustRevoke  = 2
)

//export hxgo_trust
func hxgo_trust(h C.uintptr_t, op C.int, id *C.char, out **C.char, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	e, err := handles.get(uintptr(h))
	if err != nil {
		return fail(errOut, err)
	}
	var ids []string
	if id != nil {
		ids = []string{C.GoString(id)}
	}
	var r *engine.TrustReport
	switch op {
	case trustList:
		r, err = e.TrustList()
	case trustApprove:
		r, err = e.Approve(ids...)
	case trustRevoke:
		r, err = e.Revoke(ids...)
	default:
		err = fmt.Errorf("%w: trust operation %d", engine.ErrInvalid, int(op))
	}
	if err != nil {
		return fail(errOut, err)
	}
	if out != nil {
		b, err := r.JSON()
		if err != nil {
			return fail(errOut, err)
		}
		*out = handout(b)
	}
	return statusOK
}
