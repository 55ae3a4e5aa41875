package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
)

// rule is docs/policy.md's `rm -rf` guard ("Deny rm -rf outside the project"), read from the
// page as core/engine TestPolicyGuardsInTheDocs reads it: the CEL matcher group, the Rego
// matcher group (its module at guards/rmrf.rego beside the settings file) and the module.
type rule struct {
	cel, rego map[string]any
	module    string
}

func docRule() (rule, error) {
	_, here, _, _ := runtime.Caller(0)
	page := filepath.Join(filepath.Dir(here), "..", "..", "..", "docs", "policy.md")
	raw, err := os.ReadFile(page)
	if err != nil {
		return rule{}, err
	}
	m := regexp.MustCompile("(?s)<!-- guard: rmrf -->.*?```json\n(.*?)\n```.*?```json\n(.*?)\n```.*?```rego\n(.*?)\n```").FindSubmatch(raw)
	if m == nil {
		return rule{}, fmt.Errorf("%s: no rmrf guard (a json, a json and a rego block after <!-- guard: rmrf -->)", page)
	}
	var r rule
	if err := json.Unmarshal(m[1], &r.cel); err != nil {
		return rule{}, fmt.Errorf("%s: the CEL group: %w", page, err)
	}
	if err := json.Unmarshal(m[2], &r.rego); err != nil {
		return rule{}, fmt.Errorf("%s: the Rego group: %w", page, err)
	}
	r.module = string(m[3]) + "\n"
	return r, nil
}
