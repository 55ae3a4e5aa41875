package agents

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// DeclaredEvents reads the hook events an installed package declares, for make test-latest's
// "events added or removed" (a release's new event is one the suite's recorder does not listen
// to yet, so no run can show it). It looks, in every file of the install (JavaScript, or a
// compiled binary that embeds its JavaScript, as Claude Code's and Bun's single-file builds
// do), for array literals of quoted names in which at least three names, and at least half of
// them, are known events: the agent's own list of hook events, whose other names are then
// events too. It returns their union, sorted, and how many such lists it found; none found
// (a native binary keeps no such literal: Codex's Rust) is not an error, the caller says so.
// It does not run the agent.
func DeclaredEvents(dir string, known []string) ([]string, int, error) {
	isKnown := map[string]bool{}
	for _, k := range known {
		isKnown[k] = true
	}
	names := map[string]bool{}
	lists := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, list := range eventLists(data, isKnown) {
			lists++
			for _, n := range list {
				names[n] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("agents: reading the events %s declares: %w", dir, err)
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, lists, nil
}

// maxList bounds the length of an event list literal.
const maxList = 4096

// eventLists finds the array literals of quoted names in data that are event lists (at
// least three known names, and at least half of the list), in one pass over the '[' bytes:
// the installs are a few hundred MB.
func eventLists(data []byte, isKnown map[string]bool) [][]string {
	var out [][]string
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], '[')
		if i < 0 {
			break
		}
		start := off + i
		off = start + 1
		end := closing(data, start)
		if end < 0 {
			continue
		}
		list := splitList(data[start+1 : end])
		n := 0
		for _, name := range list {
			if isKnown[name] {
				n++
			}
		}
		if n >= 3 && 2*n >= len(list) {
			out = append(out, list)
			off = end + 1
		}
	}
	return out
}

// closing finds the ] of the [ at start when everything between them can be part of a list
// of quoted names that starts with a quote; -1 when it cannot.
func closing(data []byte, start int) int {
	j := start + 1
	for j < len(data) && (data[j] == ' ' || data[j] == '\n' || data[j] == '\t' || data[j] == '\r') {
		j++
	}
	if j >= len(data) || data[j] != '"' {
		return -1
	}
	for ; j < len(data) && j-start < maxList; j++ {
		if data[j] == ']' {
			return j
		}
		if !listByte(data[j]) {
			return -1
		}
	}
	return -1
}

// listByte is a byte of a list of quoted names: the names' letters, digits, _ and -, the
// quotes, commas and blanks.
func listByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '_', '-', '"', ',', ' ', '\n', '\t', '\r':
		return true
	}
	return false
}

// splitList reads `"A","B", "C"` into its names; nil when something between the quotes is
// not a name or the commas are not where they belong.
func splitList(b []byte) []string {
	var out []string
	for _, part := range bytes.Split(b, []byte(",")) {
		part = bytes.TrimSpace(part)
		if len(part) < 3 || part[0] != '"' || part[len(part)-1] != '"' {
			return nil
		}
		name := part[1 : len(part)-1]
		if bytes.ContainsAny(name, "\" \n\t\r") {
			return nil
		}
		out = append(out, string(name))
	}
	return out
}
