package event

// CanonicalNames returns the canonical names of the known events (no aliases), sorted.
func CanonicalNames() []string {
	var out []string
	for _, n := range Names() {
		if Canonical(n) == n {
			out = append(out, n)
		}
	}
	return out
}
