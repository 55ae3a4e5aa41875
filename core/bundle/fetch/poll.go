package fetch

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/hookexec/hookexec/core/bundle"
)

// FirstWait bounds how long Poll's first check holds its caller: the daemon's first
// dispatch for a configuration waits this long at most for a bundle it has never fetched.
const FirstWait = 3 * time.Second

// Poller checks the bundle of one bundle.json every poll interval. It rereads bundle.json
// before each check, so an edit (a new URL, key or interval) applies at the next one; a
// bundle.json that is removed or unreadable makes it wait and look again.
type Poller struct {
	path   string
	client *http.Client
	cancel context.CancelFunc
	first  chan struct{} // closed when the first check has ended
	done   chan struct{}
}

// Poll starts a Poller for the bundle.json at path: its first check runs now, the later
// ones every poll interval, in the background until Stop. client nil means
// http.DefaultClient.
func Poll(path string, client *http.Client) *Poller {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Poller{path: path, client: client, cancel: cancel, first: make(chan struct{}), done: make(chan struct{})}
	go p.loop(ctx, p.first)
	return p
}

// WaitFirst returns when the first check has ended, or after FirstWait, whichever is first.
func (p *Poller) WaitFirst() {
	select {
	case <-p.first:
	case <-time.After(FirstWait):
	}
}

func (p *Poller) loop(ctx context.Context, first chan struct{}) {
	defer close(p.done)
	var once sync.Once
	for {
		wait := bundle.DefaultPollInterval
		if c, err := bundle.LoadConfig(p.path); err == nil && c != nil {
			_, _ = Check(ctx, c, p.client) // the outcome is in the cache's state.json
			wait = c.Interval()
		}
		once.Do(func() { close(first) })
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// Stop ends the polling and waits for a check in progress to end (it is cancelled).
func (p *Poller) Stop() {
	p.cancel()
	<-p.done
}
