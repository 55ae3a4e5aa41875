package engine

import (
	"time"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/notify"
	"github.com/hookexec/hookexec/core/payload"
)

// Notifications: with autohand hooks loaded (or the notifications option on), every fire is
// also announced to the listener as a JSON-RPC 2.0 notification, kind "notification",
// e.g. {"jsonrpc":"2.0","method":"autohand.hook.preTool","params":{...}} (seed 001). They
// are delivered in fire order by one goroutine at a time, never on the firing thread, and
// never after Close returns.

// notifies decides whether a configuration announces its fires: the option, else whether
// the profile or any loaded hook is of a dialect that announces (autohand).
func notifies(set *config.Set, opt *bool) bool {
	if opt != nil {
		return *opt
	}
	if set.Profile.Dialect.Notifies {
		return true
	}
	for i := range set.Hooks {
		if set.Hooks[i].Dialect.Notifies {
			return true
		}
	}
	return false
}

// announce queues the fire's notification when a listener is registered.
func (e *Engine) announce(name string, doc *payload.Doc, now time.Time) {
	e.mu.Lock()
	listening := e.listen != nil
	e.mu.Unlock()
	if !listening {
		return
	}
	msg, ok := notify.Message(name, doc.Root(), now)
	if !ok {
		return
	}
	e.queue("notification", msg)
}

// note is one message queued for the listener.
type note struct {
	kind string
	data []byte
}

// queue hands a message to the listener in queue order, on an engine goroutine (never the
// firing thread, which may be a host thread that must not re-enter the host).
func (e *Engine) queue(kind string, data []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.notes = append(e.notes, note{kind, data})
	if !e.delivering {
		e.delivering = true
		e.async.Add(1)
		go e.deliverNotes()
	}
}

func (e *Engine) deliverNotes() {
	defer e.async.Done()
	for {
		e.mu.Lock()
		batch, fn := e.notes, e.listen
		e.notes = nil
		if len(batch) == 0 || fn == nil || e.ctx.Err() != nil {
			e.notes, e.delivering = nil, false
			e.mu.Unlock()
			return
		}
		e.mu.Unlock()
		for _, m := range batch {
			fn(m.kind, m.data)
		}
	}
}
