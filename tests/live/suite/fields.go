package suite

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/hookexec/hookexec/tests/live/livetest"
)

// fieldSet collects the payload keys each event was fired with, across vectors.
type fieldSet struct {
	mu sync.Mutex
	m  map[string]map[string]bool
}

func (s *fieldSet) add(fires []livetest.Fire) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]map[string]bool{}
	}
	for _, f := range fires {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(f.Payload), &m) != nil {
			continue
		}
		if s.m[f.Event] == nil {
			s.m[f.Event] = map[string]bool{}
		}
		for k := range m {
			s.m[f.Event][k] = true
		}
	}
}

// sorted returns event → sorted field names.
func (s *fieldSet) sorted() map[string][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]string{}
	for ev, set := range s.m {
		for k := range set {
			out[ev] = append(out[ev], k)
		}
		sort.Strings(out[ev])
	}
	return out
}

// fieldDiffs compares the fields seen with the recorded ones, one line per event that
// differs. A recorded name ending in "?" is a field the agent sends only at times. A field (or event) seen that the record lacks is always a difference: the agent
// sent something our payload model does not know; an event the record lacks says so. A recorded field of an event that fired
// but was not seen counts only on a full run: a partial run (-run, HOOKEXEC_LIVE_ONLY) fires
// an event only with what its vectors make it send. A recorded event that did not fire at
// all is a note, not a difference (some fire on a file watcher's time: FileChanged).
func fieldDiffs(seen, golden map[string][]string, version string, full bool) (diffs, notes []string) {
	events := map[string]bool{}
	for ev := range seen {
		events[ev] = true
	}
	if full {
		for ev := range golden {
			if _, fired := seen[ev]; !fired {
				notes = append(notes, ev)
			}
		}
		sort.Strings(notes)
	}
	names := make([]string, 0, len(events))
	for ev := range events {
		names = append(names, ev)
	}
	sort.Strings(names)
	for _, ev := range names {
		known := map[string]bool{}
		for _, k := range golden[ev] {
			known[strings.TrimSuffix(k, "?")] = true
		}
		got := map[string]bool{}
		var added, missing []string
		for _, k := range seen[ev] {
			got[k] = true
			if !known[k] {
				added = append(added, k)
			}
		}
		if full {
			for _, k := range golden[ev] {
				// "name?" is a field the agent sends only at times (PostModelSwitch's prompt_id,
				// present when the switch follows a prompt still in flight).
				if !got[k] && !strings.HasSuffix(k, "?") {
					missing = append(missing, k)
				}
			}
		}
		switch _, recorded := golden[ev]; {
		case !recorded:
			// An event the record has no line for: one the pinned version never fired.
			diffs = append(diffs, fmt.Sprintf("%s: an event %s never fired, fields %v", ev, version, added))
		case len(added) > 0 && len(missing) > 0:
			diffs = append(diffs, fmt.Sprintf("%s: new fields %v; %s's %v not sent", ev, added, version, missing))
		case len(added) > 0:
			diffs = append(diffs, fmt.Sprintf("%s: new fields %v", ev, added))
		case len(missing) > 0:
			diffs = append(diffs, fmt.Sprintf("%s: %s's %v not sent", ev, version, missing))
		}
	}
	return diffs, notes
}

// fieldsFile is the payload-field record: the version that sent them, and per event the
// sorted field names.
type fieldsFile struct {
	Version string              `json:"version"`
	Events  map[string][]string `json:"events"`
}

// checkPayloadFields compares the payload fields seen with the record in file;
// HOOKEXEC_LIVE_UPDATE=1 rewrites the record instead (a partial run adds what it saw and
// keeps the rest). It prints what it found and returns the exit code.
func checkPayloadFields(file, version string, full bool) int {
	seen := state.fields.sorted()
	var golden fieldsFile
	data, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(data, &golden)
	}
	if os.Getenv("HOOKEXEC_LIVE_UPDATE") != "" {
		events := seen
		if !full && golden.Events != nil {
			events = union(golden.Events, seen)
		}
		if err := writeFields(file, version, events); err != nil {
			fmt.Println("payload fields:", err)
			return 1
		}
		fmt.Println("payload fields: wrote", file)
		return 0
	}
	if err != nil {
		fmt.Println("payload fields:", err, "(HOOKEXEC_LIVE_UPDATE=1 writes it)")
		return 1
	}
	diffs, notes := fieldDiffs(seen, golden.Events, golden.Version, full)
	if len(notes) > 0 {
		fmt.Printf("payload fields: no vector fired %s this run\n", strings.Join(notes, ", "))
	}
	if len(diffs) > 0 {
		fmt.Printf("payload fields differ from %s (check the new fields, then HOOKEXEC_LIVE_UPDATE=1):\n  %s\n", file, strings.Join(diffs, "\n  "))
		return 1
	}
	scope := "every event"
	if !full {
		scope = "the events this partial run fired"
	}
	fmt.Printf("payload fields: %d events as %s recorded them (%s)\n", len(seen), golden.Version, scope)
	return 0
}

func union(a, b map[string][]string) map[string][]string {
	sets := map[string]map[string]bool{}
	for _, m := range []map[string][]string{a, b} {
		for ev, fields := range m {
			if sets[ev] == nil {
				sets[ev] = map[string]bool{}
			}
			for _, k := range fields {
				sets[ev][k] = true
			}
		}
	}
	out := map[string][]string{}
	for ev, set := range sets {
		for k := range set {
			out[ev] = append(out[ev], k)
		}
		sort.Strings(out[ev])
	}
	return out
}

// writeFields writes the record one line per event, so a new version's fields show as a
// one-line diff.
func writeFields(file, version string, events map[string][]string) error {
	names := make([]string, 0, len(events))
	for ev := range events {
		names = append(names, ev)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "{\n  \"version\": %q,\n  \"events\": {\n", version)
	for i, ev := range names {
		fields, _ := json.Marshal(events[ev])
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    %q: %s%s\n", ev, fields, sep)
	}
	b.WriteString("  }\n}\n")
	return os.WriteFile(file, []byte(b.String()), 0o644)
}
