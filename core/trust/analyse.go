package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mattn/go-shellwords"
)

// Command is a hook's command as the analyser reads it.
type Command struct {
	Shell   string   // the shell string; ignored when Args is set
	Args    []string // the exec form
	Env     []string // the hook's own KEY=VALUE pairs
	Dir     string   // where it runs, absolute
	Project string   // the project directory, absolute
	Home    string   // expands ~ and $HOME
	// Path is the host's PATH: entries inside the project (or relative ones) are where a
	// bare program name may be found among the project's files.
	Path string
}

// Pin is one part of the project an approval holds fixed: a file, whose content is
// hashed, or a directory tree, whose every entry is.
type Pin struct {
	Path string // absolute
	Key  string // relative to the project, slash-separated; a tree's ends in "/"
	Tree bool
	Why  string // for a tree: why its whole content is pinned
}

// Analysis is what a command runs from the project, as far as reading it can tell.
type Analysis struct {
	Pins []Pin // sorted by key; no file lies under a pinned tree
	// Unpinned names what the command uses that no approval can hold fixed: values from
	// the payload, files outside the project.
	Unpinned []string
}

// Markers stand in for a variable's value while splitting: \x00$NAME\x00 for a value
// hookexec cannot know before the run, \x01$NAME\x01 for a value from the payload.
const (
	dynMark  = "\x00"
	dataMark = "\x01"
)

func dynVar(name string) string  { return dynMark + "$" + name + dynMark }
func dataVar(name string) string { return dataMark + "$" + name + dataMark }

// shown is a word as a person reads it: variables by name.
func shown(w string) string { return strings.NewReplacer(dynMark, "", dataMark, "").Replace(w) }

// Analyse finds what of the project a command may run. It fails closed: a word it can
// read exactly pins that file (whether or not it exists yet); where the files cannot be
// named exactly (a path computed at run time, a glob, a `cd` to a computed place, a
// module looked up by name, a directory run as a program, `..` through a possible
// symlink, a command it cannot parse) it pins the smallest directory tree that surely
// holds them, the whole project when nothing smaller is sure. Files outside the project
// are the user's and are not pinned. See docs/trust.md for the model.
func Analyse(c Command) Analysis {
	a := &analyser{c: c, dirs: []string{c.Dir}, pins: map[string]Pin{}}
	a.env = map[string]string{}
	for _, kv := range c.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			a.env[k] = v
		}
	}
	a.pathValue = c.Path
	if v, ok := a.env["PATH"]; ok {
		a.pathValue = a.expandEnvValue("PATH", v)
	}
	if len(c.Args) > 0 {
		seg := append([]string{}, c.Args...)
		a.segments = append(a.segments, seg)
		for _, w := range c.Args[1:] {
			if strings.ContainsAny(w, shellSyntax) { // the script of sh -c, in exec form
				a.script(w, maxDepth)
			}
		}
	} else {
		a.script(c.Shell, maxDepth)
	}
	for _, kv := range c.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			a.assignment(k, a.expandEnvValue(k, v))
		}
	}
	a.cwds()
	for _, seg := range a.segments {
		a.command(seg)
	}
	return a.result()
}

// shellSyntax are the bytes that make an exec-form word worth reading as a script.
const shellSyntax = " \t\n;&|<>$`(){}*?["

// maxDepth bounds how deep scripts of sh -c inside scripts are read.
const maxDepth = 3

type analyser struct {
	c         Command
	env       map[string]string // the hook's own env
	pathValue string            // PATH as the command sees it
	segments  [][]string        // simple commands, words with markers
	cds       [][]string        // cd targets, in order
	dirs      []string          // every directory the command may run in
	pins      map[string]Pin    // by key
	unpinned  []string
}

// getenv is what a variable holds as far as the analysis knows: the project for the
// variables hookexec sets to it, the hook's own env, a marker otherwise.
func (a *analyser) getenv(name string) string {
	switch name {
	case "CLAUDE_PROJECT_DIR", "HOOK_WORKSPACE", "CWD", "GEMINI_PROJECT_DIR":
		return a.c.Project
	case "HOME":
		return a.c.Home
	}
	if v, ok := a.env[name]; ok {
		return a.expandEnvValue(name, v)
	}
	if payloadVar(name) {
		return dataVar(name)
	}
	return dynVar(name)
}

// payloadVar reports the variables hookexec fills from the payload (engine's fire
// environment): their values are data the hook handles, not files of the project.
func payloadVar(name string) bool {
	switch name {
	case "HOOK_WORKSPACE":
		return false
	case "TOOL_NAME", "FILE_PATH", "EXIT_CODE", "SESSION_ID", "CLAUDE_ENV_FILE":
		return true
	}
	return strings.HasPrefix(name, "HOOK_")
}

// expandEnvValue expands the variables in one of the hook's env values; $PATH inside
// PATH is the host's.
func (a *analyser) expandEnvValue(name, v string) string {
	return os.Expand(v, func(n string) string {
		switch {
		case n == name && name == "PATH":
			return a.c.Path
		case n == name:
			return dynVar(n)
		}
		switch n {
		case "CLAUDE_PROJECT_DIR", "HOOK_WORKSPACE", "CWD", "GEMINI_PROJECT_DIR":
			return a.c.Project
		case "HOME":
			return a.c.Home
		}
		if payloadVar(n) {
			return dataVar(n)
		}
		return dynVar(n)
	})
}

// script splits a shell string into simple commands with go-shellwords, one segment at a
// time (it stops at ; & | < >). Words with blanks (the script of sh -c '...') are read
// again as scripts, depth times. A segment it cannot parse (a subshell, an open quote,
// process substitution) pins the whole project.
func (a *analyser) script(command string, depth int) {
	rest := command
	input, skip := false, false // the segment starts with a redirection's target
	for strings.TrimSpace(rest) != "" {
		p := shellwords.NewParser()
		p.ParseEnv = true
		p.Getenv = a.getenv
		ws, err := p.Parse(rest)
		if err != nil {
			a.tree(a.c.Project, "the command could not be read exactly (subshell, group or unclosed quote)")
			return
		}
		if len(ws) > 0 && (input || skip) {
			if input { // `bash < x`: x is read, and a shell runs what it reads
				a.segments = append(a.segments, []string{"<", ws[0]})
			}
			ws = ws[1:]
		}
		if len(ws) > 0 {
			a.segments = append(a.segments, ws)
			a.noteCd(ws)
		}
		for _, w := range ws {
			if depth > 0 && strings.ContainsAny(w, " \t\n;&|") {
				a.script(w, depth-1)
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
		op := string(next[n:ops])
		// `< x` and `<> x` are read (and a shell runs what it reads); the target of `>`,
		// a heredoc's delimiter and a here-string are not files that run.
		input = strings.HasPrefix(op, "<") && !strings.HasPrefix(op, "<<") && !strings.Contains(op, "&")
		skip = strings.ContainsAny(op, "<>") && !input
		if strings.HasPrefix(op, "<(") || strings.HasPrefix(op, ">(") {
			a.tree(a.c.Project, "process substitution")
		}
		if ops == 0 {
			ops = 1 // never loop in place
		}
		rest = string(next[ops:])
	}
}

// noteCd records where a `cd` or `pushd` may take the commands that follow.
func (a *analyser) noteCd(ws []string) {
	i := 0
	for i < len(ws) && isAssignment(ws[i]) {
		i++
	}
	if i >= len(ws) || (ws[i] != "cd" && ws[i] != "pushd") {
		return
	}
	for _, w := range ws[i+1:] {
		if !strings.HasPrefix(w, "-") || w == "-" {
			a.cds = append(a.cds, []string{w})
			return
		}
	}
	a.cds = append(a.cds, []string{"~"})
}

// cwds resolves the cd targets into the directories the command may run in.
func (a *analyser) cwds() {
	for _, cd := range a.cds {
		w := cd[0]
		switch {
		case w == "-":
			continue
		case isDynamic(w) || strings.Contains(w, dataMark):
			a.tree(a.c.Project, "`cd "+shown(w)+"` goes to a directory computed at run time: relative paths after it could be anywhere")
			continue
		}
		for _, d := range slices.Clone(a.dirs) {
			if p := a.resolve(w, d); p != "" && !slices.Contains(a.dirs, p) {
				a.dirs = append(a.dirs, p)
			}
		}
	}
}

// isAssignment reports whether w is NAME=value with NAME a shell identifier.
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i, r := range w[:eq] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// isDynamic reports whether a word's value is computed when it runs: a variable the
// analysis cannot know, a command substitution, an expansion left unexpanded, a glob or
// a brace list.
func isDynamic(w string) bool {
	if strings.Contains(w, dynMark) || strings.ContainsAny(w, "$`*?") || braces(w) {
		return true
	}
	i := strings.IndexByte(w, '[')
	return i >= 0 && strings.IndexByte(w[i+1:], ']') >= 0
}

func braces(w string) bool {
	i := strings.IndexByte(w, '{')
	return i >= 0 && strings.IndexByte(w[i:], '}') > 0 && strings.ContainsAny(w[i:], ",.")
}

// moduleFlags load code by module name, looked up from the working directory (Python's
// -m, Node's --require/--import/--loader, Ruby's -r, Perl's -M).
var moduleFlags = []string{"-m", "-r", "-M", "--require", "--import", "--loader", "--experimental-loader", "--module"}

// interpreter reports whether a program loads modules by name (moduleFlags).
func interpreter(w string) bool {
	b := filepath.Base(w)
	for _, p := range []string{"python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "perl"} {
		if strings.HasPrefix(b, p) {
			return true
		}
	}
	return false
}

// command pins what one simple command may run.
func (a *analyser) command(ws []string) {
	if len(ws) == 2 && ws[0] == "<" {
		a.word(ws[1], false)
		return
	}
	interp := slices.ContainsFunc(ws, interpreter)
	first := true
	for i, w := range ws {
		if first && isAssignment(w) { // VAR=value before the program: its environment
			name, v, _ := strings.Cut(w, "=")
			a.assignment(name, v)
			continue
		}
		if first && (w == "cd" || w == "pushd") {
			return // its target is where later words resolve (cwds), not a file that runs
		}
		a.word(w, first)
		if !first && interp {
			for _, f := range moduleFlags {
				if w == f || (len(f) == 2 && strings.HasPrefix(w, f) && len(w) > 2 && !strings.Contains(w, "/")) {
					for _, d := range a.dirs {
						a.tree(d, "`"+strings.Join(ws[:min(i+2, len(ws))], " ")+"` loads a module by name from the working directory")
					}
				}
			}
		}
		first = false
	}
}

// assignment pins what an environment value may make the command load: every path in it
// (PATH, PYTHONPATH, NODE_OPTIONS=--require ./x.js, LD_PRELOAD, ...).
func (a *analyser) assignment(name, value string) {
	for _, w := range splitValue(value) {
		a.word(w, false)
	}
}

// splitValue splits an environment value into the paths it may hold: at blanks, colons
// and an option's "=".
func splitValue(v string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ':' }) {
		if _, after, ok := strings.Cut(f, "="); ok && strings.HasPrefix(f, "-") {
			f = after
		}
		if f != "" {
			out = append(out, strings.Trim(f, `"'`))
		}
	}
	return out
}

// word pins what one word may name.
func (a *analyser) word(w string, program bool) {
	if w == "" {
		return
	}
	if strings.Contains(w, "<<") || strings.Contains(w, "{{") || strings.Contains(w, dataMark) {
		a.unpinned = append(a.unpinned, "`"+shown(w)+"`: a value from the payload, data the hook handles")
		return
	}
	cands := []string{w}
	if !program && isAssignment(w) {
		name, v, _ := strings.Cut(w, "=")
		a.assignment(name, v)
		return
	}
	if eq := strings.IndexByte(w, '='); eq > 0 && strings.HasPrefix(w, "-") {
		cands = []string{w[eq+1:]} // --config=path
	} else if strings.HasPrefix(w, "-") {
		if len(w) > 2 && w[1] != '-' && strings.Contains(w, "/") {
			cands = []string{w[2:]} // -I./lib
		} else {
			return
		}
	}
	for _, x := range cands {
		a.candidate(x, program)
	}
}

func (a *analyser) candidate(x string, program bool) {
	if x == "" {
		return
	}
	if isDynamic(x) {
		a.dynamic(x)
		return
	}
	if !strings.Contains(x, "/") && x != "~" {
		// A bare name: looked up on PATH (a program) or in the working directory (an
		// argument, such as bash's script: it may be created after the approval).
		for _, d := range a.pathDirs() {
			a.file(filepath.Join(d, x))
		}
		if program {
			return
		}
	}
	if strings.ContainsAny(x, " \t\n") {
		return // the script of sh -c, read on its own
	}
	if slices.Contains(strings.Split(filepath.ToSlash(x), "/"), "..") {
		a.tree(a.c.Project, "`"+x+"` goes up with .., which a symlinked directory can send anywhere")
		return
	}
	for _, d := range a.dirs {
		p := a.resolve(x, d)
		switch {
		case p == "":
		case !Within(p, a.c.Project):
			// Outside the project: the user's file, or data; not pinned.
		case p == filepath.Clean(a.c.Project):
			a.tree(p, "`"+x+"` names the project directory")
		case strings.HasSuffix(x, "/") || isDir(p):
			a.tree(p, "`"+x+"` is a directory: a program may run anything in it")
		default:
			a.file(p)
		}
	}
}

// dynamic pins what a word computed at run time may name: the tree of its static
// directory prefix when the rest cannot climb out of it (a glob), else the project.
func (a *analyser) dynamic(x string) {
	cut := strings.IndexAny(x, "$`*?[{\x00")
	prefix := x[:cut]
	onlyGlob := !strings.ContainsAny(x, dynMark+"$`")
	if !onlyGlob || strings.Contains(x, "..") || strings.Contains(x, "/.") || strings.HasPrefix(x[cut:], ".") {
		a.tree(a.c.Project, "`"+shown(x)+"` is computed at run time")
		return
	}
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		prefix = prefix[:i+1]
	} else {
		prefix = ""
	}
	for _, d := range a.dirs {
		root := d
		if prefix != "" {
			root = a.resolve(prefix, d)
		}
		if root != "" && Within(root, a.c.Project) {
			a.tree(root, "`"+x+"` is a pattern matched at run time")
		}
	}
}

// pathDirs are the directories of PATH inside the project, for every directory the
// command may run in (relative entries, and the empty one, are relative to it).
func (a *analyser) pathDirs() []string {
	var out []string
	if a.pathValue == "" {
		return nil // no PATH at all (an empty entry in one is the working directory)
	}
	for _, e := range strings.Split(a.pathValue, ":") {
		if strings.Contains(e, dataMark) {
			continue
		}
		if isDynamic(e) {
			a.tree(a.c.Project, "PATH holds a directory computed at run time")
			continue
		}
		for _, d := range a.dirs {
			p := d
			if e != "" {
				p = a.resolve(e, d)
			}
			if p != "" && Within(p, a.c.Project) {
				out = append(out, p)
			}
		}
	}
	return out
}

func (a *analyser) resolve(w, dir string) string {
	switch {
	case w == "~" || strings.HasPrefix(w, "~/"):
		if a.c.Home == "" {
			return ""
		}
		return filepath.Join(a.c.Home, strings.TrimPrefix(w, "~"))
	case filepath.IsAbs(w):
		return filepath.Clean(w)
	}
	return filepath.Join(dir, w)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func (a *analyser) file(p string) {
	if !Within(p, a.c.Project) || p == filepath.Clean(a.c.Project) {
		return
	}
	k := Rel(p, a.c.Project)
	if _, ok := a.pins[k]; !ok {
		a.pins[k] = Pin{Path: p, Key: k}
	}
}

func (a *analyser) tree(p, why string) {
	if !Within(p, a.c.Project) {
		return
	}
	k := Rel(p, a.c.Project) + "/"
	if k == "./" || k == "/" {
		k = "./"
	}
	if old, ok := a.pins[k]; !ok || !old.Tree {
		a.pins[k] = Pin{Path: filepath.Clean(p), Key: k, Tree: true, Why: why}
	}
}

// result drops the pins a pinned tree holds already and sorts the rest.
func (a *analyser) result() Analysis {
	var trees []string
	for _, p := range a.pins {
		if p.Tree {
			trees = append(trees, p.Path)
		}
	}
	var out Analysis
	for _, p := range a.pins {
		covered := false
		for _, t := range trees {
			covered = covered || (t != p.Path || !p.Tree) && Within(p.Path, t)
		}
		if !covered {
			out.Pins = append(out.Pins, p)
		}
	}
	slices.SortFunc(out.Pins, func(x, y Pin) int { return strings.Compare(x.Key, y.Key) })
	slices.Sort(a.unpinned)
	out.Unpinned = slices.Compact(a.unpinned)
	return out
}
