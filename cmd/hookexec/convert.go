package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hookexec/hookexec/core/atomicfile"
	"github.com/hookexec/hookexec/core/convert"
)

var convertOpts struct {
	from, to, out string
	check, force  bool
}

func init() {
	register(&verb{
		name:    "convert",
		summary: "write a hook configuration for another agent, with a report of what does not carry over",
		help: `Reads FILE (or stdin when FILE is absent or "-") as agent --from's configuration and
writes the equivalent for agent --to on stdout, or to -o FILE. The report of everything
that does not carry over (per hook: dropped hooks, lost features, changed meanings) goes
to stderr; --check prints only the report. -o never replaces an existing file unless
--force is given; the file is written atomically.

Sources: every dialect hookexec reads. Targets: ` + strings.Join(convert.Targets, ", ") + `.

Exit status: 0 converted, 1 a hook was dropped (a guard the target cannot run: the output
is still written, so it can be reviewed), 64 bad arguments or an unreadable source.`,
		example: `hookexec convert --from claude --to cursor .claude/settings.json
hookexec convert --from cursor --to copilot -o .github/hooks/hooks.json .cursor/hooks.json
hookexec convert --from windsurf --to claude --check < .windsurf/hooks.json`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&convertOpts.from, "from", convertOpts.from, "the source `AGENT`")
			fs.StringVar(&convertOpts.to, "to", convertOpts.to, "the target `AGENT`")
			fs.StringVar(&convertOpts.out, "o", convertOpts.out, "write the result to `FILE` (atomically; see --force)")
			fs.BoolVar(&convertOpts.check, "check", convertOpts.check, "print the report only")
			fs.BoolVar(&convertOpts.force, "force", convertOpts.force, "let -o replace an existing file")
		},
		run: runConvert,
	})
}

func runConvert(a *app, args []string) int {
	o := convertOpts
	switch {
	case o.from == "" || o.to == "":
		return a.fail(usagef("convert: needs --from and --to"))
	case len(args) > 1:
		return a.fail(usagef("convert: takes one FILE (got %d)", len(args)))
	case o.check && o.out != "":
		return a.fail(usagef("convert: --check writes nothing; leave out -o"))
	}
	name, data, err := "<stdin>", []byte(nil), error(nil)
	if len(args) == 1 && args[0] != "-" {
		name = args[0]
		data, err = os.ReadFile(name)
	} else {
		data, err = io.ReadAll(a.stdin)
	}
	if err != nil {
		return a.fail(usagef("convert: %v", err))
	}
	res, err := convert.Convert(o.from, o.to, name, data)
	if err != nil {
		return a.fail(usagef("%v", err))
	}
	if a.globals.json {
		a.printJSON(struct {
			From   string         `json:"from"`
			To     string         `json:"to"`
			Hooks  int            `json:"hooks"`
			Losses []convert.Loss `json:"losses"`
			Output *string        `json:"output,omitempty"`
		}{o.from, o.to, res.Hooks, nonNil(res.Losses), outputOf(res, o.check)})
	} else {
		fmt.Fprint(a.stderr, res.Report(o.from, o.to))
	}
	if !o.check && !a.globals.json {
		if o.out == "" {
			_, _ = a.stdout.Write(res.Output)
		} else {
			if _, err := os.Stat(o.out); err == nil && !o.force {
				return a.fail(errors.New("convert: " + o.out + " exists; --force replaces it"))
			}
			if err := atomicfile.Write(o.out, res.Output, 0o644); err != nil {
				return a.fail(err)
			}
		}
	}
	if res.Dropped() {
		return exitFail
	}
	return exitOK
}

func nonNil(l []convert.Loss) []convert.Loss {
	if l == nil {
		return []convert.Loss{}
	}
	return l
}

func outputOf(r *convert.Result, check bool) *string {
	if check {
		return nil
	}
	s := string(r.Output)
	return &s
}
