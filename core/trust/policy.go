package trust

import (
	"os"
	"path/filepath"

	"github.com/hookexec/hookexec/core/policy"
)

// policyPins is what a project-level policy hook's approval holds fixed besides its
// definition (the expression, the Rego path and query, decision and reason, in the
// entry): the content of its Rego modules, a file or a directory tree, so that editing
// a module withdraws the approval. Modules outside the project cannot be pinned.
func policyPins(s *policy.Spec, project string) Analysis {
	var a Analysis
	if s == nil || s.Rego == "" {
		return a
	}
	path := filepath.Clean(s.Rego)
	if !Within(path, project) {
		a.Unpinned = append(a.Unpinned, "Rego modules outside the project: "+path)
		return a
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		a.Pins = []Pin{{Path: path, Key: Rel(path, project) + "/", Tree: true, Why: "the policy's Rego modules"}}
		return a
	}
	a.Pins = []Pin{{Path: path, Key: Rel(path, project)}}
	return a
}
