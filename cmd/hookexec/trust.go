package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookexec/hookexec/core/engine"
)

// trustFlags are the trust verb's own flags.
type trustFlags struct {
	all   bool
	show  bool
	store string
}

var trustOpts trustFlags

func init() {
	register(&verb{
		name:    "trust",
		args:    "list | approve ID... | approve --all | revoke ID...",
		summary: "show project hooks awaiting approval, approve or revoke them",
		help: `Hooks defined in files inside the project (.claude/settings*.json,
.config/agent/settings*.json, .gen/, .autoagent/, .iteratr.hooks.yml, project-relative
--source files) arrive with the repository. With trust "project" (a host's option, or
HOOKEXEC_TRUST=project in your environment) they run only once approved here.

list shows each project hook, what it would run, what of the project an approval pins
(each file its command names, by sha256; the whole directory tree, and why, where the
command computes its paths at run time), what could not be pinned, and whether it is
approved or what changed since ("new hook", "command changed", "script
.claude/hooks/guard.py changed"). approve records the hook as it is now; editing the
hook's entry, or changing or adding a pinned file, later revokes the approval by itself.
revoke removes an approval. Approvals are kept in ~/.config/hookexec/trust.json
($XDG_CONFIG_HOME/hookexec/trust.json when set; --store to use another file).

Exit status: 0 done, 1 the store cannot be read or written, or no such hook.`,
		example: `hookexec trust list --show
hookexec --profile claude trust approve guard
hookexec trust approve --all --json
hookexec trust revoke guard`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&trustOpts.all, "all", trustOpts.all, "approve: every hook awaiting approval")
			fs.BoolVar(&trustOpts.show, "show", trustOpts.show, "list: print the files (and the paths under pinned trees) of hooks awaiting approval, to read before approving")
			fs.StringVar(&trustOpts.store, "store", trustOpts.store, "the trust store `FILE` (default ~/.config/hookexec/trust.json)")
		},
		run: runTrust,
	})
}

func runTrust(a *app, args []string) int {
	if len(args) == 0 {
		return a.fail(usagef("trust: needs list, approve or revoke"))
	}
	sub, ids := args[0], args[1:]
	switch {
	case sub != "list" && sub != "approve" && sub != "revoke":
		return a.fail(usagef("trust: unknown subcommand %q (list, approve, revoke)", sub))
	case sub == "list" && len(ids) > 0:
		return a.fail(usagef("trust list: takes no arguments (got %q)", ids[0]))
	case sub != "approve" && trustOpts.all:
		return a.fail(usagef("trust %s: --all is for approve", sub))
	case sub != "list" && trustOpts.show:
		return a.fail(usagef("trust %s: --show is for list", sub))
	case sub == "approve" && trustOpts.all == (len(ids) > 0):
		return a.fail(usagef("trust approve: give hook ids or --all (not both)"))
	case sub == "revoke" && len(ids) == 0:
		return a.fail(usagef("trust revoke: needs a hook id"))
	}
	o, err := a.options()
	if err != nil {
		return a.fail(err)
	}
	if trustOpts.store != "" {
		if o.TrustStore, err = filepath.Abs(expandHome(trustOpts.store, a.globals.home)); err != nil {
			return a.fail(usagef("--store %s: %v", trustOpts.store, err))
		}
	}
	eng, err := engine.Open(o)
	if err != nil {
		return a.fail(err)
	}
	defer eng.Close()

	var before *engine.TrustReport
	if sub == "approve" && trustOpts.all {
		if before, err = eng.TrustList(); err != nil {
			return a.fail(err)
		}
	}
	var rep *engine.TrustReport
	switch sub {
	case "list":
		rep, err = eng.TrustList()
	case "approve":
		rep, err = eng.Approve(ids...)
	case "revoke":
		rep, err = eng.Revoke(ids...)
	}
	if err != nil {
		return a.fail(err)
	}
	if a.globals.json {
		a.printJSON(rep)
		if rep.Error != "" {
			return exitFail
		}
		return exitOK
	}
	switch sub {
	case "list":
		return a.printTrustList(rep)
	case "approve":
		if before != nil {
			ids = nil
			for _, h := range before.Hooks {
				if h.Status != "approved" {
					ids = append(ids, h.ID)
				}
			}
			if len(ids) == 0 {
				fmt.Fprintln(a.stdout, "Nothing awaits approval.")
			}
		}
		for _, h := range pick(rep, ids) {
			fmt.Fprintf(a.stdout, "%s %s\n", a.term.paint(green, "approved"), a.trustedHook(h))
			a.printFiles(h)
		}
	case "revoke":
		for _, id := range ids {
			fmt.Fprintf(a.stdout, "%s %s\n", a.term.paint(yellow, "revoked"), a.term.paint(cyan, id))
		}
	}
	return exitOK
}

// pick returns the report's hooks with the given ids, in report order.
func pick(rep *engine.TrustReport, ids []string) []engine.TrustEntry {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []engine.TrustEntry
	for _, h := range rep.Hooks {
		if want[h.ID] {
			out = append(out, h)
		}
	}
	return out
}

func (a *app) printTrustList(rep *engine.TrustReport) int {
	t, w := a.term, a.stdout
	fmt.Fprintf(w, "Trust store: %s\n", a.shortPath(rep.Store))
	if rep.Mode == "project" {
		fmt.Fprintln(w, "Mode: project (project hooks run only once approved)")
	} else {
		fmt.Fprintln(w, "Mode: all (approvals are recorded but not enforced; hosts enforce them with trust \"project\", or set HOOKEXEC_TRUST=project)")
	}
	if rep.Error != "" {
		fmt.Fprintf(a.stderr, "hookexec: %s: no project-level hook runs until it can be read\n", strings.TrimPrefix(rep.Error, "hookexec: "))
	}
	if len(rep.Hooks) == 0 {
		fmt.Fprintln(w, "\nNo project-level hooks.")
		if rep.Error != "" {
			return exitFail
		}
		return exitOK
	}
	fmt.Fprintln(w)
	waiting := 0
	for i, h := range rep.Hooks {
		if i > 0 {
			fmt.Fprintln(w)
		}
		status := cell{text: h.Status, paint: green}
		if h.Status != "approved" {
			status.paint = yellow
			waiting++
		}
		fmt.Fprintf(w, "%s  %s\n", t.paint(status.paint, status.text), a.trustedHook(h))
		if h.Reason != "" {
			fmt.Fprintf(w, "  %s %s\n", t.paint(dim, "why:"), h.Reason)
		}
		if !h.Enabled {
			fmt.Fprintf(w, "  %s\n", t.paint(dim, "(turned off in the configuration)"))
		}
		a.printFiles(h)
		if trustOpts.show && h.Status != "approved" {
			a.showFiles(rep.ProjectDir, h)
		}
	}
	fmt.Fprintln(w)
	switch waiting {
	case 0:
		fmt.Fprintf(w, "All %s approved.\n", plural(len(rep.Hooks), "project hook"))
	default:
		fmt.Fprintf(w, "%s of %d awaiting approval: 'hookexec trust approve ID' or 'hookexec trust approve --all'\n", plural(waiting, "hook"), len(rep.Hooks))
	}
	if rep.Error != "" {
		return exitFail
	}
	return exitOK
}

// trustedHook is one line naming a hook and what it runs.
func (a *app) trustedHook(h engine.TrustEntry) string {
	cmd := h.Command
	switch {
	case len(h.Args) > 0:
		cmd = strings.Join(h.Args, " ")
	case h.URL != "":
		cmd = "POST " + h.URL
	}
	m := h.Matcher
	if strings.TrimSpace(m) == "" {
		m = "*"
	}
	return fmt.Sprintf("%s  %s %s  %s  %s", a.term.paint(cyan, h.ID), h.Event, m, oneLine(cmd), a.term.paint(dim, a.shortPath(h.Source)))
}

// printFiles says what an approval of the hook pins: files by content, directory trees
// whole (and why), and what could not be pinned; the approved hashes where they differ.
func (a *app) printFiles(h engine.TrustEntry) {
	t := a.term
	for _, f := range h.Files {
		what, sum := "pins "+f.Path, shortHash(f.SHA256)
		switch {
		case f.Tree && f.Path == "./":
			what = "pins the whole project (every file but .git)"
		case f.Tree:
			what = "pins everything under " + f.Path
		case f.SHA256 == "absent":
			sum = "absent (creating it revokes the approval)"
		}
		line := fmt.Sprintf("  %s  %s", what, sum)
		if f.Approved != "" && f.Approved != f.SHA256 {
			line += t.paint(yellow, "  (approved: "+shortHash(f.Approved)+")")
		}
		fmt.Fprintln(a.stdout, line)
		if f.Why != "" {
			fmt.Fprintf(a.stdout, "    %s %s\n", t.paint(dim, "because"), f.Why)
		}
	}
	for _, u := range h.Unpinned {
		fmt.Fprintf(a.stdout, "  %s %s\n", t.paint(dim, "not pinned:"), u)
	}
}

// showLimit is how much of a file --show prints; showEntries how many paths of a tree.
const (
	showLimit   = 64 << 10
	showEntries = 200
)

// showFiles prints the content of each file a hook runs, each line behind "| ", and the
// paths under each pinned tree.
func (a *app) showFiles(project string, h engine.TrustEntry) {
	for _, f := range h.Files {
		if f.SHA256 == "absent" {
			continue
		}
		p := filepath.Join(project, filepath.FromSlash(f.Path))
		if f.Tree {
			a.showTree(p, f.Path)
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintf(a.stdout, "  %s: %v\n", f.Path, err)
			continue
		}
		cut := len(data) > showLimit
		if cut {
			data = data[:showLimit]
		}
		fmt.Fprintf(a.stdout, "  --- %s\n", f.Path)
		for _, line := range strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n") {
			fmt.Fprintf(a.stdout, "  | %s\n", strings.TrimSuffix(strings.ToValidUTF8(line, "?"), "\n"))
		}
		if cut {
			fmt.Fprintf(a.stdout, "  (first %d KiB shown)\n", showLimit>>10)
		}
	}
}

// showTree lists the files under a pinned tree (.git left out, as the pin leaves it).
func (a *app) showTree(root, rel string) {
	fmt.Fprintf(a.stdout, "  --- %s (files pinned)\n", rel)
	n := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		if n++; n > showEntries {
			return filepath.SkipAll
		}
		r, _ := filepath.Rel(root, p)
		fmt.Fprintf(a.stdout, "  | %s\n", filepath.ToSlash(r))
		return nil
	})
	if n > showEntries {
		fmt.Fprintf(a.stdout, "  (first %d shown)\n", showEntries)
	}
}

// shortHash keeps "sha256:" and 16 hex digits: enough for a person to compare.
func shortHash(h string) string {
	if strings.HasPrefix(h, "sha256:") && len(h) > 7+16 {
		return h[:7+16]
	}
	return h
}
