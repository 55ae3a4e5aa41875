package template

import (
	"strings"
)

// This file looks through wrappers with known options (env, timeout, nice, ...) to the command they run.

// unwrap returns the command a wrapper runs, when its options are known: rest is the
// words from the wrapped program on. Otherwise why says why the value is refused.
func unwrap(name string, ws []arg) (rest []arg, why string) {
	unknown := "it is an argument of " + name + ", which runs its arguments as a command; only its known options are looked through"
	spec, known := wrapperSpecs[name]
	if !known {
		return nil, unknown
	}
	i := 1
	for i < len(ws) {
		w := ws[i]
		if name == "env" && w.literal && !strings.HasPrefix(w.lit, "-") && strings.Contains(w.lit, "=") {
			if len(w.marks) > 0 {
				return nil, "it is put in the environment of the program env runs, which a program may read as code (LD_PRELOAD, BASH_ENV, PAGER)"
			}
			i++
			continue
		}
		if len(w.marks) > 0 || !w.literal {
			break // the wrapped program or an operand: checked below
		}
		s := w.lit
		if s == "--" {
			i++
			break
		}
		if !strings.HasPrefix(s, "-") || s == "-" {
			break
		}
		switch {
		case spec.flags[s]:
			i++
		case spec.withValue[s]:
			i += 2
		case strings.HasPrefix(s, "--") && strings.Contains(s, "=") && spec.withValue[s[:strings.Index(s, "=")]]:
			i++
		case len(s) > 2 && s[1] != '-' && spec.withValue[s[:2]]:
			i++ // -sKILL
		default:
			return nil, unknown
		}
	}
	i += spec.operands
	if i >= len(ws) {
		return nil, unknown
	}
	for _, w := range ws[1:i] {
		if len(w.marks) > 0 || !w.literal {
			return nil, unknown
		}
	}
	return ws[i:], ""
}

type wrapperSpec struct {
	flags, withValue map[string]bool
	operands         int // words before the command (timeout's duration)
}

var wrapperSpecs = map[string]wrapperSpec{
	"env":     {flags: set("-i --ignore-environment -0 --null"), withValue: set("-u --unset -C --chdir")},
	"command": {flags: set("-p")},
	"exec":    {flags: set("-c -l"), withValue: set("-a")},
	"builtin": {},
	"nice":    {withValue: set("-n --adjustment")},
	"nohup":   {},
	"setsid":  {flags: set("-f --fork -w --wait -c --ctty")},
	"stdbuf":  {withValue: set("-i -o -e --input --output --error")},
	"time":    {flags: set("-p -v --verbose --portability"), withValue: set("-f --format -o --output")},
	"timeout": {flags: set("--foreground --preserve-status -v --verbose"), withValue: set("-s --signal -k --kill-after"), operands: 1},
	// npx prettier --write <<x>>: the package's program runs with the arguments (-c runs code).
	"npx":  {flags: set("-y --yes --no --no-install -q --quiet --silent"), withValue: set("-p --package")},
	"bunx": {flags: set("--bun")},
}
