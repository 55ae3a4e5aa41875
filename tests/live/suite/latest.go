package suite

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hookexec/hookexec/tests/live/agents"
)

// latestEvents is make test-latest's check of the hook events a release declares
// (agents.DeclaredEvents), which no run can show for an event the recorder does not listen
// to: the newest release's list against the pinned release's (when its install is in the
// cache) and against the events the suite records. It prints one "events ..." line each and
// returns 1 when the release added or removed an event, 0 otherwise.
func latestEvents(a Agent, version string) int {
	versions, err := agents.Versions()
	if err != nil {
		fmt.Println("events:", err)
		return 1
	}
	pin := versions[a.Package]
	known := slices.Clone(a.Events)
	if a.PayloadFields != "" {
		var rec fieldsFile
		if data, err := os.ReadFile(a.PayloadFields); err == nil && json.Unmarshal(data, &rec) == nil {
			for ev := range rec.Events {
				known = append(known, ev)
			}
		}
	}
	declared := func(v string) ([]string, int, error) {
		dir, err := agents.CacheDir(a.Package, v)
		if err != nil {
			return nil, 0, err
		}
		if _, err := os.Stat(filepath.Join(dir, ".installed")); err != nil {
			return nil, 0, err
		}
		return agents.DeclaredEvents(dir, known)
	}
	got, lists, err := declared(version)
	if err != nil {
		fmt.Println("events:", err)
		return 1
	}
	if lists == 0 {
		fmt.Printf("events: %s %s keeps no list of its hook events a scan can read (a native binary); only the recorded events were compared\n", a.Title, version)
		return 0
	}
	code := 0
	switch old, _, err := declared(pin); {
	case pin == version:
	case err != nil:
		fmt.Printf("events: %s %s is not installed (%v): the declared events were not compared with it\n", a.Title, pin, err)
	default:
		added, removed := minus(got, old), minus(old, got)
		if len(added) > 0 {
			fmt.Printf("events added since %s: %s\n", pin, strings.Join(added, ", "))
			code = 1
		}
		if len(removed) > 0 {
			fmt.Printf("events removed since %s: %s\n", pin, strings.Join(removed, ", "))
			code = 1
		}
		if code == 0 {
			fmt.Printf("events: %s %s declares the %d events %s does\n", a.Title, version, len(got), pin)
		}
	}
	if missing := minus(got, a.Events); len(missing) > 0 {
		fmt.Printf("events declared that the suite does not record: %s\n", strings.Join(missing, ", "))
	}
	return code
}

// minus is a's names that b lacks, sorted.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
