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
		for _, list := range eventLists(data, known, isKnown) {
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

// maxList bounds how far an event list literal reaches either side of a known name.
const maxList = 4096

// eventLists finds the array literals of quoted names around every quoted known name in data
// that are event lists (at least three known names, and at least half of the list).
func eventLists(data []byte, known []string, isKnown map[string]bool) [][]string {
	var out [][]string
	seen := map[int]bool{} // a list's start, found once for each of its names
	for _, k := range known {
		needle := []byte(`"` + k + `"`)
		for off := 0; ; {
			i := bytes.Index(data[off:], needle)
			if i < 0 {
				break
			}
			i += off
			off = i + len(needle)
			start, end := enclosing(data, i)
			if start < 0 || seen[start] {
				continue
			}
			seen[start] = true
			list := splitList(data[start+1 : end])
			n := 0
			for _, name := range list {
				if isKnown[name] {
					n++
				}
			}
			if n >= 3 && 2*n >= len(list) {
				out = append(out, list)
			}
		}
	}
	return out
}

// enclosing finds the [ and ] around position i when everything between them can be part of
// a list of quoted names; -1 when it cannot.
func enclosing(data []byte, i int) (int, int) {
	start := -1
	for j := i; j >= 0 && i-j < maxList; j-- {
		if data[j] == '[' {
			start = j
			break
		}
		if !listByte(data[j]) {
			return -1, -1
		}
	}
	if start < 0 {
		return -1, -1
	}
	for j := i; j < len(data) && j-i < maxList; j++ {
		if data[j] == ']' {
			return start, j
		}
		if !listByte(data[j]) {
			return -1, -1
		}
	}
	return -1, -1
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
