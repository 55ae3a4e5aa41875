package trust

import (
	"maps"
	"slices"
	"strings"
)

// Verdict is whether a project-level hook may run, and if not, what changed.
type Verdict struct {
	Approved bool
	// Reason is "" when approved, else what a person needs to know: "new hook",
	// "command changed", "script .claude/hooks/guard.py changed", ...
	Reason string
	// Approval is the record the hook matches (nil for a new hook).
	Approval *Approval
}

// Check compares a hook and the current hashes of its files (from HashAll) with the
// project's approvals. An approval counts only for the same entry (Fingerprint) and the
// same files with the same content.
func Check(h Hook, files map[string]string, approvals []Approval) Verdict {
	fp := h.Fingerprint()
	for i := range approvals {
		a := &approvals[i]
		if a.Fingerprint != fp {
			continue
		}
		if why := FilesChanged(a.Files, files); why != "" {
			return Verdict{Reason: why, Approval: a}
		}
		return Verdict{Approved: true, Approval: a}
	}
	// An approval of the same hook in an earlier shape: same file and event, and the same
	// name or matcher. Say what changed rather than "new hook".
	for i := range approvals {
		a := &approvals[i]
		if a.Source != h.Source || a.Event != h.Event || (a.ID != h.ID && a.Matcher != h.Matcher) {
			continue
		}
		if ch := h.changes(a.Hook); len(ch) > 0 {
			return Verdict{Reason: strings.Join(ch, ", "), Approval: a}
		}
	}
	return Verdict{Reason: "new hook"}
}

// FilesChanged says how the hashes now differ from the approved ones ("" when equal),
// naming each file in path order.
func FilesChanged(approved, now map[string]string) string {
	var out []string
	keys := slices.Sorted(maps.Keys(now))
	for k := range approved {
		if _, ok := now[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		was, is := approved[k], now[k]
		if was == "" {
			was = Absent
		}
		if is == "" {
			is = Absent
		}
		what := "script " + k
		if k == "./" {
			what = "the project's files (pinned whole)"
		} else if strings.HasSuffix(k, "/") {
			what = "files under " + k
		}
		switch {
		case was == is:
		case was == Absent:
			out = append(out, what+" added")
		case is == Absent:
			out = append(out, what+" removed")
		default:
			out = append(out, what+" changed")
		}
	}
	return strings.Join(out, ", ")
}
