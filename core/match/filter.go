package match

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Filter is autohand's per-hook filter (seed 001): a list of tool names and a list of path
// globs with "**". Each list that is set must accept the fire; a nil *Filter accepts all.
type Filter struct {
	tools *Matcher // nil: any tool
	paths []string // doublestar patterns over slash-separated paths relative to root
	root  string
}

// CompileFilter compiles tool names (each matched like a Names matcher: the bare name
// whichever way the host spells the tool) and path globs, which are matched against file
// paths relative to root. It returns nil when both lists are empty.
func CompileFilter(tools, paths []string, root string) (*Filter, error) {
	if len(tools) == 0 && len(paths) == 0 {
		return nil, nil
	}
	f := &Filter{paths: paths, root: root}
	if len(tools) > 0 {
		f.tools = &Matcher{pattern: strings.Join(tools, "|"), kind: Names}
		for _, t := range tools {
			if t = strings.TrimSpace(t); t != "" {
				f.tools.alts = append(f.tools.alts, compileAlt(t))
			}
		}
	}
	for _, p := range paths {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("hookexec: match: filter.path %q is not a valid glob", p)
		}
	}
	return f, nil
}

// Match reports whether a fire with this tool name and file path passes the filter. A
// tool list needs a tool, a path list needs a path inside root.
func (f *Filter) Match(tool, path string) bool {
	if f == nil {
		return true
	}
	if f.tools != nil && (tool == "" || !f.tools.matchAlts(tool)) {
		return false
	}
	if len(f.paths) == 0 {
		return true
	}
	rel, ok := f.relative(path)
	if !ok {
		return false
	}
	for _, p := range f.paths {
		if ok, _ := doublestar.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// relative returns path relative to the root, slash-separated; ok is false for no path or
// one outside the root.
func (f *Filter) relative(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	if filepath.IsAbs(path) {
		rel, err := filepath.Rel(f.root, path)
		if err != nil {
			return "", false
		}
		path = rel
	}
	path = filepath.ToSlash(filepath.Clean(path))
	if path == ".." || strings.HasPrefix(path, "../") || path == "." {
		return "", false
	}
	return path, true
}
