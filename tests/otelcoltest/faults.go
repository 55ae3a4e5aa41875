package otelcoltest

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The endpoints an exporter fails against. A collector that is down is Collector.Stop (or
// Refused); one that is slow is StartSlow in front of a real collector. A collector answering
// every export with an error has no switch in the real one, so StartRefusing stands in for it:
// it speaks just enough OTLP (an HTTP status, a gRPC status) for the SDK to read the refusal.

// Refused is an address where nothing listens: every connection to it is refused, as to a
// collector that is down. (The port was free a moment ago; another process may take it, which
// on 127.0.0.1 in a test run is rare.)
func Refused(t testing.TB) Addr {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("otelcoltest: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return Addr(addr)
}

// Blackhole accepts connections and never answers: what it is sent is read and dropped, so an
// exporter waits for an answer until its own timeout.
type Blackhole struct {
	Addr  Addr
	conns atomic.Int64
}

// Conns is how many connections it has accepted.
func (b *Blackhole) Conns() int { return int(b.conns.Load()) }

// StartBlackhole listens on a free 127.0.0.1 port until the test ends.
func StartBlackhole(t testing.TB) *Blackhole {
	t.Helper()
	b := &Blackhole{}
	b.Addr = serve(t, func(c net.Conn, _ <-chan struct{}) {
		b.conns.Add(1)
		_, _ = io.Copy(io.Discard, c)
	})
	return b
}

// Refusing answers every OTLP export, over HTTP (503 Service Unavailable) or gRPC (status
// UNAVAILABLE) on the same port, with the refusal a collector under memory pressure gives:
// one the SDK retries with backoff.
type Refusing struct {
	Addr     Addr
	requests atomic.Int64
}

// Requests is how many exports it has refused.
func (r *Refusing) Requests() int { return int(r.requests.Load()) }

// StartRefusing listens on a free 127.0.0.1 port until the test ends.
func StartRefusing(t testing.TB) *Refusing {
	t.Helper()
	r := &Refusing{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("otelcoltest: %v", err)
	}
	r.Addr = Addr(l.Addr().String())
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			_, _ = io.Copy(io.Discard, req.Body)
			r.requests.Add(1)
			if strings.HasPrefix(req.Header.Get("Content-Type"), "application/grpc") {
				// A trailers-only response: the status in the headers of an empty answer.
				w.Header().Set("Content-Type", "application/grpc")
				w.Header().Set("Grpc-Status", "14") // UNAVAILABLE
				w.Header().Set("Grpc-Message", "otelcoltest: refusing every export")
				w.WriteHeader(http.StatusOK)
				return
			}
			http.Error(w, "otelcoltest: refusing every export", http.StatusServiceUnavailable)
		}),
		Protocols:         new(http.Protocols),
		ReadHeaderTimeout: 10 * time.Second,
	}
	// gRPC is HTTP/2 without TLS, with prior knowledge.
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l)
	}()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return r
}

// Slow is a TCP proxy to a real collector's receiver that holds every chunk of the
// collector's answers for a delay: what is sent arrives at once, each answer is late.
type Slow struct {
	Addr  Addr
	conns atomic.Int64
}

// Conns is how many connections it has accepted.
func (s *Slow) Conns() int { return int(s.conns.Load()) }

// StartSlow proxies a free 127.0.0.1 port to target, delaying target's answers by delay, until
// the test ends.
func StartSlow(t testing.TB, target Addr, delay time.Duration) *Slow {
	t.Helper()
	s := &Slow{}
	s.Addr = serve(t, func(c net.Conn, done <-chan struct{}) {
		s.conns.Add(1)
		up, err := net.Dial("tcp", string(target))
		if err != nil {
			return // the client sees its connection closed, as with a collector that went away
		}
		defer up.Close()
		stop := make(chan struct{})
		defer close(stop)
		go func() { // at the test's end, the collector's side is closed too
			select {
			case <-done:
				up.Close()
			case <-stop:
			}
		}()
		var wg sync.WaitGroup
		wg.Go(func() {
			_, _ = io.Copy(up, c)
			closeWrite(up)
		})
		wg.Go(func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := up.Read(buf)
				if n > 0 {
					time.Sleep(delay)
					if _, werr := c.Write(buf[:n]); werr != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			closeWrite(c)
		})
		wg.Wait()
	})
	return s
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}

// serve accepts connections on a free 127.0.0.1 port, each handled by handle, until the test
// ends; then done is closed, the listener and every connection are closed, and the handlers
// waited for.
func serve(t testing.TB, handle func(c net.Conn, done <-chan struct{})) Addr {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("otelcoltest: %v", err)
	}
	var (
		mu     sync.Mutex
		conns  []net.Conn
		closed bool
		wg     sync.WaitGroup
		done   = make(chan struct{})
	)
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					t.Errorf("otelcoltest: accept: %v", err)
				}
				return
			}
			mu.Lock()
			if closed {
				mu.Unlock()
				c.Close()
				return
			}
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				handle(c, done)
			})
		}
	})
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		closed = true
		close(done)
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return Addr(l.Addr().String())
}
