package run

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPost drives Post against a real HTTP server on 127.0.0.1, one row per kind of answer.
func TestPost(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"decision":"block","reason":"nope"}`))
		case "/text":
			_, _ = w.Write([]byte("plain words"))
		case "/echo":
			_, _ = w.Write([]byte(r.Method + " " + r.Header.Get("Content-Type") + " " + string(body)))
		case "/fail":
			http.Error(w, "broken backend", http.StatusInternalServerError)
		case "/redirect":
			http.Redirect(w, r, "/json", http.StatusFound)
		case "/big":
			_, _ = w.Write([]byte(strings.Repeat("x", 100)))
		}
	}))
	t.Cleanup(srv.Close)

	tests := []struct {
		name      string
		path      string
		cap       int
		status    int
		body      string
		truncated bool
		ok        bool
	}{
		{name: "2xx empty body", path: "/empty", status: 204, ok: true},
		{name: "2xx json body", path: "/json", status: 200, body: `{"decision":"block","reason":"nope"}`, ok: true},
		{name: "2xx text body", path: "/text", status: 200, body: "plain words", ok: true},
		{name: "posts json", path: "/echo", status: 200, body: `POST application/json {"a":1}`, ok: true},
		{name: "non-2xx", path: "/fail", status: 500, body: "broken backend\n"},
		{name: "redirect not followed", path: "/redirect", status: 302, body: ""},
		{name: "body capped", path: "/big", cap: 10, status: 200, body: "xxxxxxxxxx", truncated: true, ok: true},
		{name: "body exactly the cap", path: "/big", cap: 100, status: 200, body: strings.Repeat("x", 100), ok: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Post(context.Background(), HTTPSpec{URL: srv.URL + tc.path, Body: []byte(`{"a":1}`), Timeout: time.Minute, OutputCap: tc.cap})
			require.NoError(t, r.Err)
			require.False(t, r.TimedOut)
			require.Equal(t, tc.status, r.Status)
			if tc.path != "/redirect" {
				require.Equal(t, tc.body, string(r.Body))
			}
			require.Equal(t, tc.truncated, r.BodyTruncated)
			require.Equal(t, tc.ok, r.OK())
		})
	}
}

func TestPostHeaders(t *testing.T) {
	t.Parallel()
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
	}))
	t.Cleanup(srv.Close)
	env := []string{"TOKEN=old", "TOKEN=s3cret", "SECRET=leak", "EMPTY="}
	allowed := []string{"TOKEN", "EMPTY"}
	headers := [][2]string{
		{"Authorization", ExpandHeader("Bearer $TOKEN", allowed, env)},
		{"X-Braced", ExpandHeader("${TOKEN}-tail", allowed, env)},
		{"X-Unlisted", ExpandHeader("a${SECRET}b$SECRET", allowed, env)},
	}
	r := Post(context.Background(), HTTPSpec{URL: srv.URL, Headers: headers, Timeout: time.Minute})
	require.True(t, r.OK(), "%+v", r)
	h := <-got
	require.Equal(t, "Bearer s3cret", h.Get("Authorization"))
	require.Equal(t, "s3cret-tail", h.Get("X-Braced"))
	require.Equal(t, "ab", h.Get("X-Unlisted"))
	require.Equal(t, "application/json", h.Get("Content-Type"))
}

func TestExpandHeader(t *testing.T) {
	t.Parallel()
	env := []string{"A=1", "B_2=two", "PATH=/bin"}
	allowed := []string{"A", "B_2"}
	for in, want := range map[string]string{
		"plain":         "plain",
		"$A":            "1",
		"${A}":          "1",
		"$A$B_2":        "1two",
		"x-$B_2-y":      "x-two-y",
		"$PATH":         "",
		"${PATH}":       "",
		"$$A":           "$1",
		"cost $":        "cost $",
		"$1":            "$1",
		"${not closed":  "${not closed",
		"${}":           "${}",
		"${A-default}":  "${A-default}",
		"$UNSET_LISTED": "",
	} {
		require.Equal(t, want, ExpandHeader(in, allowed, env), "%q", in)
	}
}

// TestPostNeverAnswers: a server that accepts and never answers costs the hook its timeout,
// reported as a timeout, not an error.
func TestPostNeverAnswers(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // read nothing, write nothing
		}
	}()
	done := make(chan HTTPResult, 1)
	go func() {
		done <- Post(context.Background(), HTTPSpec{URL: "http://" + ln.Addr().String() + "/", Timeout: 200 * time.Millisecond})
	}()
	select {
	case r := <-done:
		require.True(t, r.TimedOut, "%+v", r)
		require.NoError(t, r.Err)
		require.Zero(t, r.Status)
		require.False(t, r.OK())
	case <-time.After(30 * time.Second): // hang guard only
		t.Fatal("Post did not honour its timeout")
	}
}

func TestPostFailures(t *testing.T) {
	t.Parallel()
	// A port that was just free: nothing listens there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	r := Post(context.Background(), HTTPSpec{URL: "http://" + addr + "/", Timeout: time.Minute})
	require.Error(t, r.Err)
	require.Contains(t, r.Err.Error(), "refused")
	require.False(t, r.TimedOut)

	r = Post(context.Background(), HTTPSpec{URL: "ftp://example.com/"})
	require.ErrorContains(t, r.Err, "not http:// or https://")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r = Post(ctx, HTTPSpec{URL: "http://" + addr + "/", Timeout: time.Minute})
	require.ErrorIs(t, r.Err, context.Canceled)
	require.False(t, r.TimedOut)
}
