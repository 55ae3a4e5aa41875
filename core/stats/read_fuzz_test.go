package stats_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hookexec/core/audit"
	"github.com/hookexec/hookexec/core/stats"
)

// Any bytes as a log: read without a panic, every non-blank line either a fire or a bad
// line, and every run in its hook's histogram.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"time":"2026-01-02T03:04:05Z","event":"Stop","matched":1,"blocked":true,"decision":"deny","duration_ms":3,"hooks":[{"id":"h","source":"/s","line":2,"ran":true,"duration_ms":2.5,"decision":"deny","timed_out":true}]}` + "\n"))
	f.Add([]byte("garbage\n{\"event\":\"Stop\",\"matched\":0,\"hooks\":[]}\n\n[1]\n{\"event\":\"x\",\"matched\":0,\"hooks\":[{\"ran\":true,\"duration_ms\":-1e308}]}"))
	f.Add([]byte(`{"event":"Stop","matched":0,"hooks":[{"ran":true,"duration_ms":1e308},{"ran":true,"duration_ms":-1e308}]}`))
	g := generate(rand.New(rand.NewPCG(1, 1)), 3, time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), func(string, time.Time) bool { return true })
	files := writeAudit(f, g.fires, audit.Options{})
	entries, err := os.ReadFile(files[0])
	if err != nil {
		f.Fatal(err)
	}
	f.Add(entries)
	f.Add(append(append([]byte(nil), entries[:len(entries)/2]...), entries...))
	f.Fuzz(func(t *testing.T, data []byte) {
		agg := stats.New(stats.Filter{})
		rep, err := agg.ReadFile(bytes.NewReader(data), "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		blank := 0
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if strings.TrimSpace(line) == "" && len(data) > 0 {
				blank++
			}
		}
		if len(data) > 0 && rep.Fires+rep.Other+rep.Bad+blank != rep.Lines {
			t.Fatalf("lines %d = fires %d + other %d + bad %d + blank %d?", rep.Lines, rep.Fires, rep.Other, rep.Bad, blank)
		}
		s := agg.Summary()
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("the summary does not encode: %v", err)
		}
		if s.Fires != rep.Fires {
			t.Fatalf("summary fires %d, read %d", s.Fires, rep.Fires)
		}
		for _, h := range s.Hooks {
			n := 0
			for _, b := range h.Histogram {
				n += b.Count
			}
			if n != h.Count {
				t.Fatalf("%s: %d runs, %d in the histogram", h.ID, h.Count, n)
			}
		}
	})
}
