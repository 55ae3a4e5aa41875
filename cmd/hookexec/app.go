package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/engine"
)

// globals are the flags every verb accepts, before or after the verb.
type globals struct {
	profile string
	project string
	home    string
	sources stringList
	json    bool
	log     string
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.profile, "profile", g.profile, "`NAME` of where hooks are read from: "+strings.Join(config.ProfileNames(), ", ")+" (default cli-agent)")
	fs.StringVar(&g.project, "project", g.project, "the project `DIR` (default: the current directory)")
	fs.StringVar(&g.home, "home", g.home, "the home `DIR` holding user-level settings (default: $HOME)")
	fs.Var(&g.sources, "source", "read this config `FILE` instead of the profile's locations (repeatable, highest precedence first)")
	fs.BoolVar(&g.json, "json", g.json, "print JSON instead of text")
	fs.StringVar(&g.log, "log", g.log, "append one JSON line per fire to `FILE`: every hook considered and why it ran or not (also $HOOKEXEC_LOG)")
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// app is one run of the command: its streams, flags and what it knows about the terminal.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	globals        globals
	wantHelp       bool
	term           terminal
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr}
}

// setup inspects the terminal once the flags are known.
func (a *app) setup() {
	a.term = detectTerminal(a.stdout, a.stderr)
}

// options turns the global flags into engine options.
func (a *app) options() (engine.Options, error) {
	g := &a.globals
	if g.profile != "" {
		if _, err := config.LookupProfile(g.profile); err != nil {
			return engine.Options{}, usagef("--profile: unknown profile %q (known: %s)", g.profile, strings.Join(config.ProfileNames(), ", "))
		}
	}
	o := engine.Options{Profile: g.profile, ProjectDir: g.project, Home: g.home, LogFile: g.log}
	if g.project != "" {
		st, err := os.Stat(g.project)
		if err != nil || !st.IsDir() {
			return o, usagef("--project %s: not a directory", g.project)
		}
	}
	for _, s := range g.sources {
		abs, err := filepath.Abs(expandHome(s, g.home))
		if err != nil {
			return o, usagef("--source %s: %v", s, err)
		}
		o.Sources = append(o.Sources, abs)
	}
	return o, nil
}

// open opens an engine on the global flags' configuration.
func (a *app) open() (*engine.Engine, error) {
	o, err := a.options()
	if err != nil {
		return nil, err
	}
	return engine.Open(o)
}

// withEngine opens the engine of the global flags, runs fn on it, closes it, and turns
// fn's error into the one-line report and exit status.
func (a *app) withEngine(fn func(eng *engine.Engine) (int, error)) int {
	eng, err := a.open()
	if err != nil {
		return a.fail(err)
	}
	defer eng.Close()
	code, err := fn(eng)
	if err != nil {
		return a.fail(err)
	}
	return code
}

// noArgs rejects positional arguments of a verb that takes none.
func noArgs(verb string, args []string) error {
	if len(args) > 0 {
		return usagef("%s: takes no arguments (got %q)", verb, args[0])
	}
	return nil
}

// projectDir and homeDir are the directories in force, absolute.
func (a *app) projectDir() string { return absDir(a.globals.project, os.Getwd) }
func (a *app) homeDir() string    { return absDir(a.globals.home, os.UserHomeDir) }

// absDir is dir made absolute, or the default when dir is "".
func absDir(dir string, def func() (string, error)) string {
	if dir == "" {
		d, _ := def()
		return d
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

func expandHome(p, home string) string {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// shortPath shows a path relative to the project ("./" omitted) or the home ("~/"), as a
// user would type it; other paths stay absolute.
func (a *app) shortPath(p string) string {
	if p == "" || p == config.InlineSource {
		return p
	}
	if rel, ok := under(a.projectDir(), p); ok {
		return rel
	}
	if rel, ok := under(a.homeDir(), p); ok {
		return "~/" + rel
	}
	return p
}

func under(dir, p string) (string, bool) {
	if dir == "" {
		return "", false
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// printJSON writes v as indented JSON on stdout.
func (a *app) printJSON(v any) {
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(a.stderr, "hookexec: encoding JSON: %v\n", err)
	}
}

// printRawJSON re-indents JSON the core already encoded.
func (a *app) printRawJSON(b []byte) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		a.stdout.Write(b)
		fmt.Fprintln(a.stdout)
		return
	}
	a.printJSON(json.RawMessage(b))
}

// topHelp prints the command list.
func (a *app) topHelp(w io.Writer) {
	fmt.Fprintf(w, "hookexec %s: see, check, try and explain the hooks an agent runs.\n\n", version)
	fmt.Fprintln(w, "Usage: hookexec [global flags] COMMAND [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	t := newTable(a.term, "", "")
	for _, n := range verbNames() {
		v := verbs[n]
		t.row(v.name, v.summary)
	}
	t.write(w, "  ")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Global flags (before or after the command):")
	a.flagHelp(w, a.flagSet("hookexec", nil))
	fmt.Fprintln(w, "  --version")
	fmt.Fprintln(w, "        print the version and exit")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'hookexec COMMAND --help' for a command's flags and an example.")
}

// verbHelp prints one verb's usage, description, flags and example.
func (a *app) verbHelp(w io.Writer, v *verb) {
	fmt.Fprintf(w, "Usage: hookexec %s [flags]", v.name)
	if v.args != "" {
		fmt.Fprintf(w, " %s", v.args)
	}
	fmt.Fprintf(w, "\n\n%s\n", v.summary)
	if v.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(v.help))
	}
	if v.flags != nil {
		fs := flag.NewFlagSet(v.name, flag.ContinueOnError)
		v.flags(fs)
		fmt.Fprintln(w, "\nFlags:")
		a.flagHelp(w, fs)
	}
	fmt.Fprintln(w, "\nExample:")
	for _, line := range strings.Split(strings.TrimSpace(v.example), "\n") {
		fmt.Fprintf(w, "  %s\n", strings.TrimSpace(line))
	}
	fmt.Fprintln(w, "\nGlobal flags: --profile NAME --project DIR --home DIR --source FILE (repeatable) --json --log FILE")
}

func (a *app) flagHelp(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "help" || f.Name == "h" {
			return
		}
		name, usage := flag.UnquoteUsage(f)
		if name != "" {
			name = " " + name
		}
		fmt.Fprintf(w, "  --%s%s\n        %s\n", f.Name, name, usage)
	})
}
