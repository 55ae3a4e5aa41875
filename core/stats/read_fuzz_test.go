package stats_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookexec/hookexec/core/stats"
)

// Any bytes as a log: read without a panic, every non-blank line either a fire or a bad
// line, and every run in its hook's histogram.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"time":"2026-01-02T03:04:05Z","event":"Stop","matched":1,"blocked":true,"decision":"deny","duration_ms":3,"hooks":[{"id":"h","source":"/s","line":2,"ran":true,"duration_ms":2.5,"decision":"deny","timed_out":true}]}` + "\n"))
	f.Add([]byte("garbage\n{\"event\":\"Stop\",\"matched\":0,\"hooks\":[]}\n\n[1]\n{\"event\":\"x\",\"matched\":0,\"hooks\":[{\"ran\":true,\"duration_ms\":-1e308}]}"))
	f.Add([]byte(`{"event":"Stop","matched":0,"hooks":[{"ran":true,"duration_ms":1e308},{"ran":true,"duration_ms":-1e308}]}`))
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
		if len(data) > 0 && rep.Fires+rep.Bad+blank != rep.Lines {
			t.Fatalf("lines %d = fires %d + bad %d + blank %d?", rep.Lines, rep.Fires, rep.Bad, blank)
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
