package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mattn/go-shellwords"
)

// Scripts returns the files inside project that a hook's command names, as absolute
// cleaned paths, sorted and without duplicates: `bash scripts/check.sh`, `./tool`,
// `python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/x.py`, and the words of `sh -c '...'`.
// command is a shell string, or args the exec form (args wins when set); dir is the
// directory the hook runs in (relative words resolve there), home expands `~`.
//
// A word counts when, resolved, it lies inside the project and either is a regular file
// now or looks like a path (has a slash, no blanks): the repository may add it later. A bare first word is looked up
// on PATH by the shell, not in dir, so it counts only when spelt as a path. Words holding
// placeholders are values from the payload, not files of the project.
func Scripts(command string, args []string, dir, project, home string) []string {
	var words [][]string // per simple command
	if len(args) > 0 {
		words = [][]string{args}
	} else {
		words = splitCommands(command, project, home, 2)
	}
	var out []string
	for _, cmd := range words {
		for i, w := range cmd {
			if strings.Contains(w, "<<") || strings.Contains(w, "{{") || w == "" {
				continue
			}
			cands := []string{w}
			if eq := strings.IndexByte(w, '='); eq > 0 {
				cands = append(cands, w[eq+1:]) // --config=path, VAR=path
			}
			for _, c := range cands {
				if i == 0 && !strings.Contains(c, "/") {
					continue
				}
				p := resolve(c, dir, home)
				if p == "" || p == filepath.Clean(project) || !Within(p, project) {
					continue
				}
				// A word with blanks is usually a script for sh -c (split above); as
				// itself it counts only when such a file exists.
				if strings.Contains(c, "/") && !strings.ContainsAny(c, " \t\n;&|") {
					out = append(out, p)
				} else if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
					out = append(out, p)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func resolve(w, dir, home string) string {
	switch {
	case w == "~" || strings.HasPrefix(w, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, strings.TrimPrefix(w, "~"))
	case filepath.IsAbs(w):
		return filepath.Clean(w)
	}
	return filepath.Join(dir, w)
}

// splitCommands splits a shell string into its simple commands' words with go-shellwords,
// one segment at a time (it stops at ; & | < >). Variables that name the project
// ($CLAUDE_PROJECT_DIR and the like) expand to it; others are empty. A word with blanks
// (the script of `sh -c '...'`) is split again, depth times. When shellwords cannot parse a
// segment (a subshell, an open quote), its blank-separated pieces stand in for words:
// reading too many words costs a stat, reading too few would miss a script.
func splitCommands(command, project, home string, depth int) [][]string {
	getenv := func(name string) string {
		switch name {
		case "CLAUDE_PROJECT_DIR", "HOOK_WORKSPACE", "CWD", "PWD", "GEMINI_PROJECT_DIR":
			return project
		case "HOME":
			return home
		}
		return ""
	}
	var out [][]string
	rest := command
	redirect := false // the segment starts with a redirection's target: read or written, not run
	for strings.TrimSpace(rest) != "" {
		p := shellwords.NewParser()
		p.ParseEnv = true
		p.Getenv = getenv
		ws, err := p.Parse(rest)
		if err != nil {
			out = append(out, lenientWords(rest))
			break
		}
		if redirect && len(ws) > 0 {
			ws = ws[1:]
		}
		if len(ws) > 0 {
			out = append(out, ws)
		}
		for _, w := range ws {
			if depth > 0 && strings.ContainsAny(w, " \t\n;&|") {
				out = append(out, splitCommands(w, project, home, depth-1)...)
			}
		}
		if p.Position < 0 {
			break
		}
		// Position counts runes; skip the fd digits of "2>" and the operator itself.
		next := []rune(rest)[p.Position:]
		n := 0
		for n < len(next) && next[n] >= '0' && next[n] <= '9' {
			n++
		}
		ops := n
		for ops < len(next) && strings.ContainsRune(";&|<>", next[ops]) {
			ops++
		}
		redirect = strings.ContainsAny(string(next[n:ops]), "<>")
		if ops == 0 {
			ops = 1 // never loop in place
		}
		rest = string(next[ops:])
	}
	return out
}

func lenientWords(s string) []string {
	ws := strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune(" \t\n;&|<>()`", r)
	})
	for i, w := range ws {
		ws[i] = strings.Trim(w, `"'$`)
	}
	return ws
}
