package engine

import (
	"sync"
	"sync/atomic"
)

// gate admits the Engine's public calls until Close and lets Close wait for those in
// flight. Entering and leaving are one atomic add each (no lock, no allocation): it runs
// for every tool call. A call never blocks on the gate, so calls may nest (a prompt
// evaluator or listener that fires again) without deadlocking a waiting Close.
type gate struct {
	state atomic.Int64 // calls in flight, plus gateClosed once shut
	mu    sync.Mutex   // with idle, lets shut sleep until the last call leaves
	idle  *sync.Cond
}

const gateClosed = int64(1) << 62

// enter admits a call; false means the engine is closed and the call must not proceed.
// Every true must be paired with one leave.
func (g *gate) enter() bool {
	if g.state.Add(1)&gateClosed != 0 {
		g.leave()
		return false
	}
	return true
}

func (g *gate) leave() {
	if g.state.Add(-1) == gateClosed {
		// The last call out after shut: wake it. Taking mu orders this after shut's check.
		g.mu.Lock()
		if g.idle != nil {
			g.idle.Broadcast()
		}
		g.mu.Unlock()
	}
}

// shut refuses every later enter and reports whether this call shut the gate (false: it
// was already shut). Wait for the calls in flight with wait.
func (g *gate) shut() bool {
	return g.state.Or(gateClosed)&gateClosed == 0
}

// closed reports whether shut was called.
func (g *gate) closed() bool { return g.state.Load()&gateClosed != 0 }

// wait returns once no admitted call is in flight. Only meaningful after shut.
func (g *gate) wait() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.idle == nil {
		g.idle = sync.NewCond(&g.mu)
	}
	for g.state.Load() != gateClosed {
		g.idle.Wait()
	}
}
