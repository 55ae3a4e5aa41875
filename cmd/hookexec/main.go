// Command hookexec lets a user see, check, try and explain the hooks an agent would run, edit
// them, and serve the engine to hosts in any language over JSON-RPC (serve --stdio).
//
// It is a thin layer over core/engine and core/config: every decision it prints (which hook
// runs, why one does not, what a fire decided) comes from the core, so the CLI, the C library
// and the Python package never disagree. It parses flags with the standard library's flag
// package; see the README for why.
//
// Exit status: 0 success, 1 a check failed (validate found errors, replay found mismatches,
// a hook file could not be written), 2 a fire was blocked, 64 bad usage or input.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	hxversion "github.com/hookexec/hookexec/core/version"
)

// Exit codes.
const (
	exitOK      = 0
	exitFail    = 1
	exitBlocked = 2
	exitUsage   = 64 // sysexits EX_USAGE: 2 is taken by "blocked", which shell agents test for
	exitPanic   = 70 // EX_SOFTWARE
)

// version is the one version of the repository (the VERSION file, through core/version).
var version = hxversion.Version

func main() {
	a := newApp(os.Stdin, os.Stdout, os.Stderr)
	os.Exit(a.main(os.Args[1:]))
}

// verb is one subcommand. Files that add verbs register them in init (see register).
type verb struct {
	name    string
	args    string // positional arguments, for the usage line, e.g. "EVENT"
	summary string // one line for the verb list
	help    string // paragraphs after the usage line
	example string // at least one example command line
	flags   func(fs *flag.FlagSet)
	run     func(a *app, args []string) int
}

var verbs = map[string]*verb{}

// register adds a verb; a second verb of the same name is a programming error.
func register(v *verb) {
	if _, dup := verbs[v.name]; dup {
		panic("hookexec: verb registered twice: " + v.name)
	}
	verbs[v.name] = v
}

// usageError is bad input: one line on stderr and exitUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// main runs one command line and returns the exit status. A panic anywhere becomes one line
// and exitPanic rather than a Go stack trace.
func (a *app) main(args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(a.stderr, "hookexec: internal error: %v (please report it)\n", r)
			if os.Getenv("HOOKEXEC_DEBUG") != "" {
				a.stderr.Write(debug.Stack())
			}
			code = exitPanic
		}
	}()
	fs := a.flagSet("hookexec", nil)
	showVersion := fs.Bool("version", false, "print the version and exit")
	rest, err := a.parse(fs, args, true)
	if err != nil {
		return a.fail(err)
	}
	if *showVersion {
		fmt.Fprintf(a.stdout, "hookexec %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return exitOK
	}
	if a.wantHelp {
		a.topHelp(a.stdout)
		return exitOK
	}
	if len(rest) == 0 {
		a.topHelp(a.stderr)
		return exitUsage
	}
	name := rest[0]
	if name == "help" {
		if len(rest) > 1 {
			if v := verbs[rest[1]]; v != nil {
				a.verbHelp(a.stdout, v)
				return exitOK
			}
			return a.fail(unknownVerb(rest[1]))
		}
		a.topHelp(a.stdout)
		return exitOK
	}
	v := verbs[name]
	if v == nil {
		return a.fail(unknownVerb(name))
	}
	vfs := a.flagSet("hookexec "+v.name, v)
	pos, err := a.parse(vfs, rest[1:], false)
	if err != nil {
		return a.fail(fmt.Errorf("%s: %w", v.name, err))
	}
	if a.wantHelp {
		a.verbHelp(a.stdout, v)
		return exitOK
	}
	a.setup()
	return v.run(a, pos)
}

func unknownVerb(name string) error {
	return usagef("unknown command %q (commands: %s)", name, strings.Join(verbNames(), ", "))
}

func verbNames() []string { return slices.Sorted(maps.Keys(verbs)) }

// fail prints err as one line and returns its exit status.
func (a *app) fail(err error) int {
	if err == nil {
		return exitOK
	}
	msg := strings.TrimPrefix(err.Error(), "hookexec: ")
	// Keep it to one line: the first line names the problem.
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	fmt.Fprintf(a.stderr, "hookexec: %s\n", msg)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFail
}

// flagSet makes a flag set with the global flags and v's own (v nil: globals only).
func (a *app) flagSet(name string, v *verb) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported as one line by fail; --help by verbHelp
	a.globals.register(fs)
	fs.BoolVar(&a.wantHelp, "help", a.wantHelp, "show help")
	fs.BoolVar(&a.wantHelp, "h", a.wantHelp, "show help")
	if v != nil && v.flags != nil {
		v.flags(fs)
	}
	return fs
}

// parse parses flags wherever they appear among the arguments (flag stops at the first
// positional one). With stopAtVerb it stops at the first positional argument instead, so
// that the verb's own flags are left for the verb's flag set. "--" ends the flags.
func (a *app) parse(fs *flag.FlagSet, args []string, stopAtVerb bool) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				a.wantHelp = true
				return pos, nil
			}
			return nil, usagef("%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag consumed a "--" if the arguments before rest end with it.
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		if stopAtVerb {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
