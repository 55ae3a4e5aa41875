package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/engine"
)

func init() {
	register(&verb{
		name:    "list",
		summary: "list the configured hooks by event, enabled or not, with where each is defined",
		help: `Hooks are grouped by event in config order (highest precedence first). Each row shows
whether the hook runs, its id (for enable/disable/remove), matcher, type, command and the
file and line it comes from; a disabled hook's reason follows its event's table.`,
		example: `hookexec list
hookexec --profile claude --project ~/src/app list --json`,
		run: runList,
	})
}

// listJSON is list's --json output.
type listJSON struct {
	Profile    string              `json:"profile"`
	ProjectDir string              `json:"project_dir"`
	DisableAll bool                `json:"disable_all"`
	Total      int                 `json:"total"`
	Enabled    int                 `json:"enabled"`
	Disabled   int                 `json:"disabled"`
	Sources    []config.SourceInfo `json:"sources"`
	Hooks      []engine.HookInfo   `json:"hooks"`
	Warnings   int                 `json:"warnings"`
}

func runList(a *app, args []string) int {
	if err := noArgs("list", args); err != nil {
		return a.fail(err)
	}
	return a.withEngine(func(eng *engine.Engine) (int, error) {
		rep, err := eng.Config()
		if err != nil {
			return 0, err
		}
		a.printList(rep)
		return exitOK, nil
	})
}

func (a *app) printList(rep *engine.ConfigReport) {
	enabled := 0
	for _, h := range rep.Hooks {
		if h.Enabled {
			enabled++
		}
	}
	if a.globals.json {
		a.printJSON(listJSON{
			Profile: rep.Profile, ProjectDir: rep.ProjectDir, DisableAll: rep.DisableAll,
			Total: len(rep.Hooks), Enabled: enabled, Disabled: len(rep.Hooks) - enabled,
			Sources: rep.Sources, Hooks: rep.Hooks, Warnings: len(rep.Warnings),
		})
		return
	}
	t := a.term
	w := a.stdout
	if len(rep.Hooks) == 0 {
		fmt.Fprintf(w, "No hooks configured (profile %s). Looked in:\n", rep.Profile)
		for _, s := range rep.Sources {
			fmt.Fprintf(w, "  %s (%s)\n", a.shortPath(s.Path), s.Status)
		}
		a.warningsHint(len(rep.Warnings))
		return
	}
	if rep.DisableAll {
		fmt.Fprintln(w, t.paint(yellow, "Mode: all hooks off (disableAllHooks is true)"))
		fmt.Fprintln(w)
	}
	for i, ev := range groupByEvent(rep.Hooks) {
		if i > 0 {
			fmt.Fprintln(w)
		}
		on := 0
		for _, h := range ev.hooks {
			if h.Enabled {
				on++
			}
		}
		fmt.Fprintf(w, "%s %s\n", t.paint(bold, ev.name), t.paint(dim, fmt.Sprintf("(%d/%d enabled)", on, len(ev.hooks))))
		// The IF column (Claude Code's permission rules) only where some hook has one.
		hasIf := false
		for _, h := range ev.hooks {
			hasIf = hasIf || h.If != ""
		}
		header := []string{"STATE", "ID", "MATCHER", "TYPE", "COMMAND", "SOURCE"}
		if hasIf {
			header = slices.Insert(header, 3, "IF")
		}
		// The DIALECT column where some hook is written in another agent's format than the
		// profile's own (a mix of dialects, or --source files of another agent).
		mixed := false
		for _, h := range ev.hooks {
			mixed = mixed || h.Dialect != rep.Profile
		}
		if mixed {
			header = append(header, "DIALECT")
		}
		tb := newTable(t, header...)
		tb.shrink = slices.Index(header, "COMMAND")
		var notes []string
		for _, h := range ev.hooks {
			state := cell{text: "on", paint: green}
			if !h.Enabled {
				state = cell{text: "off", paint: red}
				notes = append(notes, fmt.Sprintf("%s: %s", h.ID, plainMessage(h.Disabled)))
			}
			row := []cell{state, {text: h.ID, paint: cyan}, {text: matcherText(h)}, {text: h.Type},
				{text: oneLine(h.Command)}, {text: a.where(h.Source, h.Line), paint: dim}}
			if hasIf {
				row = slices.Insert(row, 3, cell{text: h.If})
			}
			if mixed {
				d := h.Dialect
				if h.EventAsWritten != "" {
					d += " (" + h.EventAsWritten + ")"
				}
				row = append(row, cell{text: d, paint: dim})
			}
			tb.rowCells(row...)
		}
		tb.write(w, "  ")
		for _, n := range notes {
			fmt.Fprintf(w, "  %s\n", t.paint(dim, "off: "+n))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Total: %d hooks (%d enabled, %d disabled)\n", len(rep.Hooks), enabled, len(rep.Hooks)-enabled)
	a.warningsHint(len(rep.Warnings))
}

// warningsHint points at validate when the configuration has problems.
func (a *app) warningsHint(n int) {
	if n == 0 {
		return
	}
	s := "s"
	if n == 1 {
		s = ""
	}
	fmt.Fprintf(a.stderr, "%d config warning%s: run 'hookexec validate' for details\n", n, s)
}

type eventHooks struct {
	name  string
	hooks []engine.HookInfo
}

// groupByEvent groups hooks by event, events in order of first appearance.
func groupByEvent(hooks []engine.HookInfo) []eventHooks {
	var out []eventHooks
	at := map[string]int{}
	for _, h := range hooks {
		i, ok := at[h.Event]
		if !ok {
			i = len(out)
			at[h.Event] = i
			out = append(out, eventHooks{name: h.Event})
		}
		out[i].hooks = append(out[i].hooks, h)
	}
	return out
}

// matcherText shows the matcher and autohand's filter; "*" for match-all.
func matcherText(h engine.HookInfo) string {
	m := h.Matcher
	if strings.TrimSpace(m) == "" {
		m = "*"
	}
	if f := h.Filter; f != nil {
		if len(f.Tool) > 0 {
			m += " tool=" + strings.Join(f.Tool, ",")
		}
		if len(f.Path) > 0 {
			m += " path=" + strings.Join(f.Path, ",")
		}
	}
	return m
}

// where renders a source and line as file:line, shortened.
func (a *app) where(source string, line int) string {
	s := a.shortPath(source)
	if line > 0 {
		s += ":" + strconv.Itoa(line)
	}
	return s
}
