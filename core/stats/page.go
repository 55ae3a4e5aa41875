package stats

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"sync"
	"time"
)

// The HTML page: one file, nothing fetched. Its Content-Security-Policy forbids every
// resource from elsewhere (default-src 'none'), the style and scripts are inline, and the
// histograms are SVG drawn by the inline script from the summary embedded as JSON.
//
// The page records on its <html> element what a headless check needs: data-script-errors
// and data-csp-violations count script errors and blocked loads (absent when none), and
// the drawing script sets data-rendered="ok" on <body> when it has drawn every histogram.
// Each histogram is an <svg class="histogram"> with data-hook-index and data-bars, one
// <rect class="bar"> per bin with data-count.

//go:embed page.html
var pageSource string

// page is parsed on first use, not at the program's start: every hookexec process (the
// daemon, each dispatcher call) links this package, and parsing the page at init took
// 40 ms of a loaded machine's start (GODEBUG=inittrace=1) for a page only `stats --html`
// writes. A page that does not parse still panics, on its first use.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"ms": FormatMs,
	}).Parse(pageSource))
})

// Page is what WriteHTML shows.
type Page struct {
	Title     string
	Generated time.Time
	Summary   *Summary
}

// WriteHTML writes the summary as a self-contained HTML page: the event and hook tables and
// a latency histogram per hook.
func WriteHTML(w io.Writer, p Page) error {
	if p.Title == "" {
		p.Title = "hookexec stats"
	}
	return page().Execute(w, p)
}

// FormatMs shows a duration given in milliseconds as the page and the CLI's table do:
// "0.4ms", "250ms", "12.5s".
func FormatMs(ms float64) string {
	switch {
	case ms >= 10000:
		return fmt.Sprintf("%.1fs", ms/1000)
	case ms >= 100:
		return fmt.Sprintf("%.0fms", ms)
	default:
		return fmt.Sprintf("%.1fms", ms)
	}
}
