package stats_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/stats"
	"github.com/hookexec/hookexec/core/stats/pagecheck"
)

// hostile is a hook id that would run script if the page put it in the markup unescaped.
const hostile = `</script><script>document.title="pwned"</script><b onmouseover=x>`

func pageSummary(t *testing.T) *stats.Summary {
	t.Helper()
	g := generate(rand.New(rand.NewPCG(11, 12)), 400, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), func(string, time.Time) bool { return true })
	lines := append(g.lines,
		`{"time":"2026-01-03T00:00:00Z","event":"Stop","matched":1,"blocked":false,"decision":"none","duration_ms":2,"hooks":[{"id":"`+strings.ReplaceAll(hostile, `"`, `\"`)+`","source":"/x/\"quoted\".json","line":1,"ran":true,"duration_ms":1.5}]}`,
		`{"time":"2026-01-03T00:00:01Z","event":"Stop","matched":1,"blocked":false,"decision":"none","duration_ms":2,"hooks":[{"id":"once","source":"/x/a.json","line":2,"ran":true,"duration_ms":7}]}`,
		"a bad line")
	agg := stats.New(stats.Filter{})
	_, err := agg.ReadFile(strings.NewReader(strings.Join(lines, "\n")), "gen.log")
	require.NoError(t, err)
	return agg.Summary()
}

func writePage(t *testing.T, s *stats.Summary) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, stats.WriteHTML(&buf, stats.Page{Summary: s, Generated: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)}))
	path := filepath.Join(t.TempDir(), "stats.html")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path, buf.String()
}

// CheckPage asserts what a browser made of a stats page: no console message (no script
// error, no blocked load), the drawing finished, and one histogram per hook whose bars are
// the summary's bins.
func checkPage(t *testing.T, r pagecheck.Result, s *stats.Summary) {
	t.Helper()
	assert.Empty(t, r.Console, "the page wrote to the console")
	for _, attr := range []string{"data-script-errors", "data-csp-violations", "data-error-log"} {
		v, ok := r.Attr("html", attr)
		assert.False(t, ok, "%s=%q", attr, v)
	}
	rendered, _ := r.Attr("body", "data-rendered")
	assert.Equal(t, "ok", rendered, "the drawing script finished")
	hs, err := r.Histograms()
	require.NoError(t, err)
	require.Len(t, hs, len(s.Hooks), "one histogram per hook")
	for i, h := range hs {
		want := s.Hooks[h.HookIndex]
		assert.Equal(t, i, h.HookIndex, "in table order")
		var counts []int
		total := 0
		for _, b := range want.Histogram {
			counts = append(counts, b.Count)
			total += b.Count
		}
		assert.Equal(t, len(want.Histogram), h.Bars, want.ID)
		assert.Equal(t, counts, h.Counts, want.ID)
		assert.Equal(t, want.Count, total, want.ID)
	}
}

func TestPageInBrowser(t *testing.T) {
	t.Parallel()
	browser := pagecheck.Browser(t)
	s := pageSummary(t)
	require.Len(t, s.Hooks, len(genHooks)+2)
	path, html := writePage(t, s)

	// Self-contained: nothing names a resource elsewhere.
	for _, re := range []string{`\ssrc=`, `href="(?:https?:)?//`, `url\(`, `@import`, `<link`, `<iframe`} {
		assert.NotRegexp(t, regexp.MustCompile(re), html)
	}
	r := pagecheck.Load(t, browser, path)
	checkPage(t, r, s)
	assert.Contains(t, r.DOM, "<title>hookexec stats</title>", "the hostile id ran no script")
	assert.Contains(t, r.DOM, "&lt;/script&gt;&lt;script&gt;document.title=", "the hostile id is shown as text")
	assert.Equal(t, 1, strings.Count(r.DOM, `<section class="hook" id="hook-`+strconv.Itoa(indexOf(s, "once"))+`"`))
}

// A log in which no hook ran still makes a page that renders.
func TestPageWithoutHooksInBrowser(t *testing.T) {
	t.Parallel()
	browser := pagecheck.Browser(t)
	agg := stats.New(stats.Filter{})
	_, err := agg.ReadFile(strings.NewReader(`{"time":"2026-01-03T00:00:00Z","event":"Stop","matched":0,"blocked":false,"decision":"none","duration_ms":0.1,"hooks":[]}`), "x")
	require.NoError(t, err)
	s := agg.Summary()
	require.Empty(t, s.Hooks)
	path, _ := writePage(t, s)
	r := pagecheck.Load(t, browser, path)
	checkPage(t, r, s)
	assert.Contains(t, r.DOM, "No hook ran in these fires.")
	n, _ := r.Attr("body", "data-histograms")
	assert.Equal(t, "0", n)
}

// The check itself can fail: a page whose drawing script throws, and one that loads a
// resource from elsewhere, are caught.
func TestPageCheckCatchesBrokenPages(t *testing.T) {
	t.Parallel()
	browser := pagecheck.Browser(t)
	s := pageSummary(t)
	_, html := writePage(t, s)
	for _, tc := range []struct {
		name, old, new, console string
	}{
		{"script error", `var drawn = 0;`, `var drawn = 0; data.hooks[1] = null;`, "Uncaught TypeError"},
		{"external image", `<h2>Events</h2>`, `<h2>Events</h2><img alt="" src="http://127.0.0.1:9/x.png">`, "Content Security Policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, html, tc.old)
			path := filepath.Join(t.TempDir(), "broken.html")
			require.NoError(t, os.WriteFile(path, []byte(strings.Replace(html, tc.old, tc.new, 1)), 0o644))
			r := pagecheck.Load(t, browser, path)
			require.NotEmpty(t, r.Console)
			assert.Contains(t, strings.Join(r.Console, "\n"), tc.console)
			if tc.name == "script error" {
				n, ok := r.Attr("html", "data-script-errors")
				assert.True(t, ok)
				assert.Equal(t, "1", n)
				_, ok = r.Attr("body", "data-rendered")
				assert.False(t, ok)
			}
		})
	}
}

func indexOf(s *stats.Summary, id string) int {
	for i, h := range s.Hooks {
		if h.ID == id {
			return i
		}
	}
	return -1
}
