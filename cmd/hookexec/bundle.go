package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/hookexec/hookexec/core/bundle"
	"github.com/hookexec/hookexec/core/bundle/fetch"
	"github.com/hookexec/hookexec/core/daemon"
	"github.com/hookexec/hookexec/core/dispatch"
)

// bundleConfigPath is the bundle.json engines of this command line read.
func (a *app) bundleConfigPath() string { return bundle.ConfigPath(a.globals.home, os.Getenv) }

// firstFetch: an in-process hook call for a home whose policy bundle was never fetched
// asks the server once before its engine would fail closed, for at most fetch.FirstWait
// (a quarter of the agent's timeout when that is shorter). Once a bundle is cached, the
// daemon's polls or status --fetch update it; a hook call never waits on the network again.
func firstFetch(req dispatch.Request, timeout time.Duration) {
	c, err := bundle.LoadConfig(dispatch.BundleConfig(req))
	if err != nil || c == nil || c.Active() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(fetch.FirstWait, timeout/4))
	defer cancel()
	_, _ = fetch.Check(ctx, c, nil) // the outcome is in the cache's state.json
}

// bundleStatus is `hookexec status --bundle` (and --fetch, which checks the server first).
func (a *app) bundleStatus(check bool) int {
	path := a.bundleConfigPath()
	var checkErr error
	if check {
		c, err := bundle.LoadConfig(path)
		switch {
		case err != nil:
			checkErr = err
		case c == nil:
			checkErr = fmt.Errorf("status --fetch: no policy bundle is configured (%s does not exist)", path)
		default:
			_, checkErr = fetch.Check(context.Background(), c, nil)
		}
	}
	r := bundle.Describe(path)
	polled := false
	if raw, err := daemon.Ask(daemon.RuntimeDir(), "status"); err == nil {
		var st daemon.Status
		if json.Unmarshal(raw, &st) == nil {
			polled = slices.Contains(st.Bundles, path)
		}
	}
	if a.globals.json {
		a.printJSON(struct {
			bundle.Report
			DaemonPolls bool `json:"daemon_polls"`
		}{r, polled})
	} else {
		a.printBundle(r, polled)
	}
	if checkErr != nil {
		fmt.Fprintln(a.stderr, "hookexec: "+plainMessage(checkErr.Error()))
		return exitFail
	}
	return exitOK
}

func (a *app) printBundle(r bundle.Report, polled bool) {
	w := a.stdout
	if !r.Configured {
		fmt.Fprintf(w, "no policy bundle configured (%s does not exist)\n", a.shortPath(r.Config))
		return
	}
	fmt.Fprintf(w, "config        %s\n", a.shortPath(r.Config))
	if r.URL == "" {
		fmt.Fprintf(w, "error         %s\n", r.Error)
		return
	}
	st := r.State
	fmt.Fprintf(w, "url           %s\n", r.URL)
	switch {
	case r.Active:
		fmt.Fprintf(w, "revision      %s (active; sha256 %.16s, from %s)\n", orNone(st.Revision), st.SHA256, st.URL)
	case r.OnMissing == bundle.OnMissingClosed:
		fmt.Fprintf(w, "revision      none fetched yet: every fire that can block is blocked (on_missing closed)\n")
	default:
		fmt.Fprintf(w, "revision      none fetched yet: hooks run without it (on_missing open)\n")
	}
	fmt.Fprintf(w, "fetched       %s\n", when(st.FetchedAt))
	fmt.Fprintf(w, "last checked  %s (last tried %s)\n", when(st.CheckedAt), when(st.TriedAt))
	if st.LastError != "" {
		fmt.Fprintf(w, "last error    %s (%s)\n", st.LastError, when(st.LastErrorAt))
	} else {
		fmt.Fprintf(w, "last error    none\n")
	}
	if st.RolledBackFrom != "" {
		fmt.Fprintf(w, "rolled back   from revision %s: the server serves a revision it served before\n", st.RolledBackFrom)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "error         %s\n", r.Error)
	}
	fmt.Fprintf(w, "cache         %s\n", a.shortPath(r.Cache))
	daemonLine := "no daemon polls it now (one starts with the first hook call, or: hookexec status --fetch)"
	if polled {
		daemonLine = "the daemon polls it every " + r.PollInterval
	}
	fmt.Fprintf(w, "polling       %s\n", daemonLine)
}

// bundleLine is plain status's one line on the policy bundle, when one is configured.
func (a *app) bundleLine() {
	r := bundle.Describe(a.bundleConfigPath())
	switch {
	case !r.Configured:
	case r.URL == "":
		fmt.Fprintf(a.stdout, "\npolicy bundle: %s\n", r.Error)
	case r.Active:
		fmt.Fprintf(a.stdout, "\npolicy bundle: revision %s from %s, fetched %s (hookexec status --bundle)\n", orNone(r.State.Revision), r.URL, when(r.State.FetchedAt))
	default:
		fmt.Fprintf(a.stdout, "\npolicy bundle: none fetched yet from %s, on_missing %s (hookexec status --bundle)\n", r.URL, r.OnMissing)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.RFC3339) + " (" + time.Since(t).Round(time.Second).String() + " ago)"
}
