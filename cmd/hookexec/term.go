package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// terminal is what the command knows about where its output goes.
type terminal struct {
	tty      bool // stdout is a terminal: shorten long cells, allow colour
	errTTY   bool // stderr is a terminal: progress lines
	colour   bool // tty and NO_COLOR unset (https://no-color.org) and TERM is not "dumb"
	errColor bool
	width    int // columns of stdout; 0 when unknown or not a terminal
}

func detectTerminal(stdout, stderr io.Writer) terminal {
	var t terminal
	t.tty = isTerminal(stdout)
	t.errTTY = isTerminal(stderr)
	noColour := os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb"
	t.colour = t.tty && !noColour
	t.errColor = t.errTTY && !noColour
	if t.tty {
		if f, ok := stdout.(*os.File); ok {
			t.width = termWidth(f)
		}
		if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
			t.width = n
		}
	}
	return t
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && st.Mode()&os.ModeDevice != 0 && isatty(f)
}

// Colours, applied only when the terminal allows them.
const (
	bold   = "1"
	dim    = "2"
	red    = "31"
	green  = "32"
	yellow = "33"
	cyan   = "36"
)

func (t terminal) paint(code, s string) string {
	if !t.colour || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// table lays out rows in aligned columns. Widths count runes of the plain text, so colour
// added by a cell's paint does not disturb the alignment.
type table struct {
	t      terminal
	header []string
	rows   [][]cell
	right  map[int]bool // right-aligned columns
	shrink int          // column shortened to fit the terminal width; -1 none
}

type cell struct {
	text  string
	paint string // colour code or ""
}

// newTable makes a table; header cells may be empty for a table without a header.
func newTable(t terminal, header ...string) *table {
	tb := &table{t: t, right: map[int]bool{}, shrink: -1}
	for _, h := range header {
		if h != "" {
			tb.header = header
			break
		}
	}
	return tb
}

func (tb *table) row(cells ...string) {
	r := make([]cell, len(cells))
	for i, c := range cells {
		r[i] = cell{text: c}
	}
	tb.rows = append(tb.rows, r)
}

// rowCells adds a row with painted cells.
func (tb *table) rowCells(cells ...cell) { tb.rows = append(tb.rows, cells) }

func (tb *table) write(w io.Writer, indent string) {
	n := len(tb.header)
	for _, r := range tb.rows {
		n = max(n, len(r))
	}
	widths := make([]int, n)
	measure := func(i int, s string) { widths[i] = max(widths[i], utf8.RuneCountInString(s)) }
	for i, h := range tb.header {
		measure(i, h)
	}
	for _, r := range tb.rows {
		for i, c := range r {
			measure(i, c.text)
		}
	}
	if tb.shrink >= 0 && tb.shrink < n && tb.t.width > 0 {
		total := len(indent)
		for i, wd := range widths {
			if i != tb.shrink {
				total += wd + 2
			}
		}
		if room := tb.t.width - total - 2; room >= 12 && widths[tb.shrink] > room {
			widths[tb.shrink] = room
		}
	}
	line := func(cells []cell) {
		var b strings.Builder
		b.WriteString(indent)
		for i := 0; i < n; i++ {
			var c cell
			if i < len(cells) {
				c = cells[i]
			}
			text := c.text
			if utf8.RuneCountInString(text) > widths[i] {
				text = ellipsis(text, widths[i])
			}
			pad := widths[i] - utf8.RuneCountInString(text)
			last := i == n-1
			painted := text
			if c.paint != "" {
				painted = tb.t.paint(c.paint, text)
			}
			switch {
			case tb.right[i]:
				b.WriteString(strings.Repeat(" ", pad))
				b.WriteString(painted)
			case last:
				b.WriteString(painted)
			default:
				b.WriteString(painted)
				b.WriteString(strings.Repeat(" ", pad))
			}
			if !last {
				b.WriteString("  ")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	if tb.header != nil {
		hc := make([]cell, len(tb.header))
		for i, h := range tb.header {
			hc[i] = cell{text: h, paint: dim}
		}
		line(hc)
	}
	for _, r := range tb.rows {
		line(r)
	}
}

// ellipsis shortens s to n runes, the last one "…".
func ellipsis(s string, n int) string {
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// oneLine folds a multi-line command into one line for a table cell.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
