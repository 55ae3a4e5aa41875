package policy

// Facts are what a guard usually needs and the payload does not say, computed lazily and
// only when a policy asks (see the policy-cel engineer's implementation; this file is the
// shared home of the facts both languages read).
type Facts struct {
	// ProjectDir is the engine's project directory; Cwd the payload's cwd ("" for none).
	ProjectDir string
	Cwd        string
}
