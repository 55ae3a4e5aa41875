// Package pagecheck loads a page that hookexec stats wrote in headless Chromium and reads
// back what the browser made of it: the DOM after the page's scripts ran (--dump-dom) and
// every message the page put on the browser console (script errors, blocked loads). It is
// a test helper for the stats page; it does not parse HTML in general, only the elements
// and attributes core/stats/page.html writes.
package pagecheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RequireEnv set to 1 makes a missing browser fail the test instead of skipping it (.ci/run
// sets it: CI installs Debian's chromium).
const RequireEnv = "HOOKEXEC_REQUIRE_BROWSER"

// BrowserEnv names a Chromium binary to use instead of the first of chromium,
// chromium-browser, google-chrome on PATH.
const BrowserEnv = "HOOKEXEC_CHROMIUM"

// Browser returns the Chromium binary, or skips t (fails it under RequireEnv=1) when
// there is none.
func Browser(t testing.TB) string {
	t.Helper()
	if b := os.Getenv(BrowserEnv); b != "" {
		return b
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no headless browser: install Debian's chromium (apt-get install chromium) or set " + BrowserEnv + " to check the stats page in a real browser"
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s (%s=1)", msg, RequireEnv)
	}
	t.Skip(msg)
	return ""
}

// Result is what the browser made of a page.
type Result struct {
	DOM string // the document after its scripts ran
	// Console holds the page's console messages, one per entry: a script error, a load
	// the Content-Security-Policy blocked, a console.log. The stats page writes none.
	Console []string
}

var consoleLine = regexp.MustCompile(`:CONSOLE[:(]\d*\)?\] (.*)$`)

// Load opens the HTML file at path in a fresh headless Chromium with its own profile and
// returns the DOM and the console. The browser has a minute.
func Load(t testing.TB, browser, path string) Result {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0",
		"--dump-dom", "file://"+abs)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 10 * time.Second // a helper process still holding the pipes after a timeout
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("%s did not finish loading %s in a minute", browser, path)
		}
		t.Fatalf("%s --dump-dom %s: %v\n%s", browser, path, err, stderr.String())
	}
	r := Result{DOM: stdout.String()}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if m := consoleLine.FindStringSubmatch(line); m != nil {
			r.Console = append(r.Console, m[1])
		}
	}
	if !strings.Contains(r.DOM, "<html") {
		t.Fatalf("%s printed no document for %s:\n%s", browser, path, stderr.String())
	}
	return r
}

// Histogram is one drawn histogram: the hook it belongs to, the bar count the script
// declared (data-bars) and each bar's count (data-count), in order.
type Histogram struct {
	HookIndex int
	Bars      int
	Counts    []int
}

var (
	svgRE  = regexp.MustCompile(`(?s)<svg ([^>]*)>(.*?)</svg>`)
	rectRE = regexp.MustCompile(`<rect ([^>]*)>`)
	attrRE = regexp.MustCompile(`([a-zA-Z-]+)="([^"]*)"`)
)

// Histograms returns the <svg class="histogram"> elements of the DOM in document order.
func (r Result) Histograms() ([]Histogram, error) {
	var out []Histogram
	for _, m := range svgRE.FindAllStringSubmatch(r.DOM, -1) {
		attrs := attributes(m[1])
		if attrs["class"] != "histogram" {
			continue
		}
		h := Histogram{}
		var err error
		if h.HookIndex, err = strconv.Atoi(attrs["data-hook-index"]); err != nil {
			return nil, fmt.Errorf("histogram without data-hook-index: %s", m[1])
		}
		if h.Bars, err = strconv.Atoi(attrs["data-bars"]); err != nil {
			return nil, fmt.Errorf("histogram without data-bars: %s", m[1])
		}
		for _, rm := range rectRE.FindAllStringSubmatch(m[2], -1) {
			ra := attributes(rm[1])
			if ra["class"] != "bar" {
				continue
			}
			n, err := strconv.Atoi(ra["data-count"])
			if err != nil {
				return nil, fmt.Errorf("bar without data-count: %s", rm[1])
			}
			h.Counts = append(h.Counts, n)
		}
		out = append(out, h)
	}
	return out, nil
}

// Attr returns the value of attribute name on the first element named tag, and whether
// it is there.
func (r Result) Attr(tag, name string) (string, bool) {
	m := regexp.MustCompile(`<` + regexp.QuoteMeta(tag) + `(\s[^>]*)?>`).FindStringSubmatch(r.DOM)
	if m == nil {
		return "", false
	}
	v, ok := attributes(m[1])[name]
	return v, ok
}

func attributes(s string) map[string]string {
	attrs := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(s, -1) {
		attrs[m[1]] = m[2]
	}
	return attrs
}
