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
	merge         bool
}

func init() {
	register(&verb{
		name:    "convert",
		summary: "write a hook configuration for another agent, with a report of what does not carry over",
		help: `Reads FILE (or stdin when FILE is absent or "-") as agent --from's configuration and
writes the equivalent for agent --to on stdout, or to -o FILE. The report of everything
that does not carry over (per hook: dropped hooks, lost features, changed meanings) goes
to stderr; --check prints only the report. -o never replaces an existing file unless
--force is given; --merge writes the converted hooks into the existing file instead (each
matcher group appended to its event unless already there; every other setting kept byte
for byte), as into a settings.json that holds more than hooks. The file is written
atomically.

Where the target reads a command's answer in other words than the source agent (Claude
Code's hookSpecificOutput means nothing to Gemini CLI), the command is written to run
through "hookexec adapt" (see hookexec adapt -h), so that a block stays a block.

Sources: every dialect hookexec reads. Targets: ` + strings.Join(convert.Targets, ", ") + `.

Exit status: 0 converted, 1 a hook was dropped (a guard the target cannot run: the output
is still written, so it can be reviewed), 64 bad arguments or an unreadable source.`,
		example: `hookexec convert --from claude --to cursor .claude/settings.json
hookexec convert --from cursor --to copilot -o .github/hooks/hooks.json .cursor/hooks.json
hookexec convert --from windsurf --to claude --check < .windsurf/hooks.json
hookexec convert --from claude --to gemini --merge -o .gemini/settings.json .claude/settings.json`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&convertOpts.from, "from", convertOpts.from, "the source `AGENT`")
			fs.StringVar(&convertOpts.to, "to", convertOpts.to, "the target `AGENT`")
			fs.StringVar(&convertOpts.out, "o", convertOpts.out, "write the result to `FILE` (atomically; see --force)")
			fs.BoolVar(&convertOpts.check, "check", convertOpts.check, "print the report only")
			fs.BoolVar(&convertOpts.force, "force", convertOpts.force, "let -o replace an existing file")
			fs.BoolVar(&convertOpts.merge, "merge", convertOpts.merge, "write the hooks into the existing -o file, keeping the rest of it")
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
	case o.merge && o.out == "":
		return a.fail(usagef("convert: --merge writes into the -o FILE; give one"))
	case o.merge && o.force:
		return a.fail(usagef("convert: --merge keeps the file and --force replaces it: choose one"))
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
			data, mode := res.Output, os.FileMode(0o644)
			if st, err := os.Stat(o.out); err == nil {
				switch {
				case o.merge:
					old, err := os.ReadFile(o.out)
					if err != nil {
						return a.fail(err)
					}
					if data, err = convert.Merge(old, res.Output); err != nil {
						return a.fail(err)
					}
					mode = st.Mode().Perm()
				case !o.force:
					return a.fail(errors.New("convert: " + o.out + " exists; --merge writes the hooks into it, --force replaces it"))
				}
			}
			if err := atomicfile.Write(o.out, data, mode); err != nil {
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
