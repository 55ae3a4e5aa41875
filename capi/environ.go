package main

/*
#include <stddef.h>
#include <string.h>

extern char **environ;

// hx_environ_scan copies the pointers and lengths of up to cap entries of environ and
// returns how many entries it has (more than cap: the caller grows its arrays and asks again).
static size_t hx_environ_scan(char **ptrs, size_t *lens, size_t cap) {
	size_t n = 0;
	if (!environ) return 0;
	for (; environ[n]; n++) {
		if (n < cap) {
			ptrs[n] = environ[n];
			lens[n] = strlen(environ[n]);
		}
	}
	return n;
}
*/
import "C"

import (
	"sync"
	"unsafe"
)

// The host's environment as a fire sees it: the C environ, which the host's setenv and
// putenv change (Python's os.environ too), and which Go's os.Environ does not follow in a
// shared library (the runtime copied it at load). Reading it costs one C call and a compare
// with the last snapshot, which is handed out again while every entry is the same pointer
// with the same bytes; an entry that changed is copied anew.
var environ struct {
	mu   sync.Mutex
	ptrs []*C.char
	lens []C.size_t
	last []*C.char // the entries the snapshot was read from
	vals []string  // the snapshot; never modified once handed out
}

func cEnviron() []string {
	environ.mu.Lock()
	defer environ.mu.Unlock()
	var n int
	for {
		c := len(environ.ptrs)
		if c > 0 {
			n = int(C.hx_environ_scan(&environ.ptrs[0], &environ.lens[0], C.size_t(c)))
		} else {
			n = int(C.hx_environ_scan(nil, nil, 0))
		}
		if n <= c {
			break
		}
		environ.ptrs, environ.lens = make([]*C.char, n+16), make([]C.size_t, n+16)
	}
	same := n == len(environ.vals)
	for i := 0; same && i < n; i++ {
		same = environ.ptrs[i] == environ.last[i] && cString(environ.ptrs[i], environ.lens[i]) == environ.vals[i]
	}
	if same {
		return environ.vals
	}
	vals := make([]string, n)
	for i := range vals {
		s := cString(environ.ptrs[i], environ.lens[i])
		if i < len(environ.vals) && environ.ptrs[i] == environ.last[i] && s == environ.vals[i] {
			vals[i] = environ.vals[i] // unchanged: no copy
		} else {
			vals[i] = C.GoStringN(environ.ptrs[i], C.int(environ.lens[i]))
		}
	}
	environ.last = append(environ.last[:0], environ.ptrs[:n]...)
	environ.vals = vals
	return vals
}

// cString views n bytes of C memory as a string, for comparing only (it is not kept).
func cString(p *C.char, n C.size_t) string {
	return unsafe.String((*byte)(unsafe.Pointer(p)), int(n))
}
