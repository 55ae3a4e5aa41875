package engine

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// closeRaceConfig has a hook that runs in the fire, one that runs after it (async) and
// notifications on, so that a fire touches everything Close tears down.
const closeRaceConfig = `{"hooks":{"Stop":[{"hooks":[{"command":"true"},{"command":"true","async":true}]}]}}`

// hammer fires Stop from n goroutines until the engine refuses, and reports every error
// that is not ErrClosed. It returns once each goroutine has fired at least once.
func hammer(t *testing.T, e *Engine, n int, extra func()) (wait func()) {
	t.Helper()
	var wg sync.WaitGroup
	var started sync.WaitGroup
	started.Add(n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			for {
				if extra != nil {
					extra()
				}
				_, err := e.Fire("Stop", []byte(`{}`))
				if first {
					started.Done()
					first = false
				}
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("fire: %v", err)
					return
				}
			}
		}()
	}
	started.Wait()
	return wg.Wait
}

// TestFireCloseRace closes engines while goroutines fire through them (run with -race):
// Close must wait for the fires in flight and the async hooks and notifications they
// started, and every fire after Close must return ErrClosed. No listener call may come
// after Close returned.
func TestFireCloseRace(t *testing.T) {
	on := true
	for _, reload := range []bool{false, true} {
		name := "fire|close"
		if reload {
			name = "fire|reload|close"
		}
		t.Run(name, func(t *testing.T) {
			for range 10 {
				e, _ := open(t, closeRaceConfig, func(o *Options) { o.Notifications = &on })
				var closed atomic.Bool
				var late atomic.Int32
				require.NoError(t, e.SetListener(func(string, []byte) {
					if closed.Load() {
						late.Add(1)
					}
				}))
				var extra func()
				if reload {
					extra = func() {
						if err := e.Reload(); err != nil && !errors.Is(err, ErrClosed) {
							t.Errorf("reload: %v", err)
						}
					}
				}
				wait := hammer(t, e, 4, extra)
				require.NoError(t, e.Close())
				closed.Store(true)
				wait()
				_, err := e.Fire("Stop", []byte(`{}`))
				require.ErrorIs(t, err, ErrClosed)
				require.ErrorIs(t, e.Reload(), ErrClosed)
				require.ErrorIs(t, e.Close(), ErrClosed)
				require.Zero(t, late.Load(), "listener called after Close returned")
			}
		})
	}
}

// TestCloseWaitsForFiresInFlight: a fire whose hook is still running when Close is called
// finishes normally (within close_timeout_ms) before Close returns.
func TestCloseWaitsForFiresInFlight(t *testing.T) {
	e, dir := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":"touch started; while [ ! -e release ]; do sleep 0.01; done; echo finished","timeout":60}]}]}}`,
		func(o *Options) { o.CloseTimeoutMs = 60000 })
	var res *Result
	var fired atomic.Bool
	fireDone := make(chan struct{})
	go func() {
		defer close(fireDone)
		r, err := e.Fire("Stop", []byte(`{}`))
		if err == nil {
			res = r
		}
		fired.Store(true)
	}()
	waitExists(t, filepath.Join(dir, "started"))
	closeDone := make(chan error, 1)
	go func() { closeDone <- e.Close() }()
	// Give Close the chance to return too early; a correct Close cannot return here.
	time.Sleep(100 * time.Millisecond)
	select {
	case <-closeDone:
		t.Fatal("Close returned before the fire in flight")
	default:
	}
	require.False(t, fired.Load(), "the fire is still in flight")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "release"), nil, 0o644))
	select {
	case err := <-closeDone:
		require.NoError(t, err)
	case <-time.After(hangGuard):
		t.Fatal("Close did not return")
	}
	// The fire's goroutine records its result just after Fire returns, which may be after
	// Close saw the fire leave.
	<-fireDone
	require.NotNil(t, res)
	require.Equal(t, "finished\n", res.Hooks[0].Stdout)
	require.Empty(t, res.Hooks[0].Error)
}

// TestCloseKillsFiresPastTheDeadline: a fire in flight whose hook outlasts close_timeout_ms
// is killed, and says so, so that Close returns.
func TestCloseKillsFiresPastTheDeadline(t *testing.T) {
	e, dir := open(t, `{"hooks":{"Stop":[{"hooks":[{"command":"touch started; exec sleep 60","timeout":120}]}]}}`,
		func(o *Options) { o.CloseTimeoutMs = 100; o.KillGraceMs = 100 })
	done := make(chan *Result, 1)
	go func() {
		r, err := e.Fire("Stop", []byte(`{}`))
		if err != nil {
			t.Errorf("fire: %v", err)
		}
		done <- r
	}()
	waitExists(t, filepath.Join(dir, "started"))
	start := time.Now()
	require.NoError(t, e.Close())
	require.Less(t, time.Since(start), 200*time.Millisecond+hangGuard, "the hook would sleep 60 s")
	r := <-done
	require.Equal(t, "killed: the engine closed", r.Hooks[0].Error)
}

func waitExists(t *testing.T, path string) {
	t.Helper()
	for end := time.Now().Add(hangGuard); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}
