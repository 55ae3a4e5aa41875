package template

import (
	"strings"
)

// This file holds the per-program rules for programs that take data but have options or operands that run code.

// commandOptions are options of programs that otherwise take data whose value is a
// command line or configuration that runs one (git -c core.sshCommand=..., tar
// --to-command=..., rsync -e ...): a value in such an option is refused.
var commandOptions = map[string][]string{
	"git": {"-c", "--config-env", "--config", "--exec-path", "--upload-pack", "--receive-pack", "--exec", "-u",
		"-O", "--open-files-in-pager", "-x", "--extcmd", "--sendmail-cmd", "--to-cmd", "--cc-cmd", "--template",
		"-C", "--git-dir", "--work-tree"},
	"tar":   {"--to-command", "--use-compress-program", "-I", "--rsh-command", "--info-script", "--new-volume-script", "-F", "--checkpoint-action"},
	"rsync": {"-e", "--rsh", "--rsync-path"},
	"scp":   {"-S", "-o", "-F"},
	"sftp":  {"-S", "-o", "-F", "-D"},
	"zip":   {"-TT", "--unzip-command"},
	"sort":  {"--compress-program"},
	"man":   {"-P", "--pager", "-H", "--html", "-p", "--preprocessor"},
	// curl and wget read a file named after @ or by the option (-d @/secret posts it) or a
	// configuration that sets any option.
	"curl": {"-d", "--data", "--data-binary", "--data-urlencode", "--data-ascii", "--data-raw", "--json", "-F",
		"--form", "-T", "--upload-file", "-K", "--config", "-b", "--cookie", "-H", "--header"},
	"rg":   {"--pre"},
	"wget": {"--post-file", "--body-file", "-i", "--input-file", "-e", "--execute", "--config", "--use-askpass"},
}

// codeSubcommands are subcommands that run their operands or store them where a later
// command runs them (git config core.pager, git submodule foreach CMD): every value in
// such a command is refused.
var codeSubcommands = map[string]map[string]bool{
	"git": set("bisect submodule filter-branch config difftool mergetool"),
}

// codeOptions refuses a value given to one of name's commandOptions, as the option's
// next word (-e <<x>>), after = (--rsh=<<x>>) or glued to a short option (-e<<x>>).
func (a *analysis) codeOptions(name string, ws []arg) {
	opts := commandOptions[name]
	if len(opts) == 0 {
		return
	}
	for _, w := range ws[1:] {
		if w.literal && len(w.marks) == 0 && codeSubcommands[name][w.lit] {
			a.denyArgs(ws[1:], "it is an argument of "+name+" "+w.lit+", which runs a command or stores one that git runs later")
			return
		}
	}
	for i := 1; i < len(ws); i++ {
		text := a.word(ws[i])
		if ws[i].literal && text == "--" {
			return
		}
		for _, o := range opts {
			switch {
			case ws[i].literal && text == o && i+1 < len(ws):
				a.denyArgs(ws[i+1:i+2], "it is the value of "+name+" "+o+", which may run it as a command or read the file it names")
			case strings.HasPrefix(text, o+"=") || (len(o) == 2 && len(text) > 2 && strings.HasPrefix(text, o)):
				a.denyArgs(ws[i:i+1], "it is the value of "+name+" "+o+", which may run it as a command or read the file it names")
			}
		}
	}
}

// find reads its whole command line as an expression: -- does not end it, so a value
// ("-delete", "(", "!") could be an action or an operator wherever it stands, and in the
// command of -exec, -execdir, -ok or -okdir find replaces {} inside a value with file
// names. No value is passed to find.
func (a *analysis) find(ws []arg) {
	a.denyArgs(ws[1:], "it is an argument of find, whose expression a value could extend (-delete, -exec) even after --, and which replaces {} in a find -exec command")
}

// sed's script (the first operand, or the word after -e) may run commands (GNU sed's
// e and s///e): a value there is refused; a value naming an input file is data.
func (a *analysis) sed(name string, ws []arg) {
	script := false
	var files []arg
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		switch {
		case w.literal && len(w.marks) == 0 && (w.lit == "-e" || w.lit == "-f" || w.lit == "--expression" || w.lit == "--file"):
			a.mark(w)
			if i+1 < len(ws) {
				a.denyArgs(ws[i+1:i+2], "it is in the script of "+name+", which may run commands")
			}
			i++
			script = true
		case len(w.marks) > 0 && !script:
			a.denyArgs(ws[i:i+1], "it is in the script of "+name+", which may run commands")
			script = true
		case w.literal && strings.HasPrefix(w.lit, "-") && len(w.marks) == 0:
			if strings.HasPrefix(w.lit, "-e") || strings.HasPrefix(w.lit, "--expression=") {
				script = true
			}
			a.mark(w)
		case !script:
			a.mark(w)
			script = true
		default:
			files = append(files, w)
		}
	}
	a.data(files, false)
}

// jq's first operand is its program: a value there is refused; files after it are data.
func (a *analysis) jq(name string, ws []arg) {
	program := false
	var rest []arg
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if w.literal && len(w.marks) == 0 && strings.HasPrefix(w.lit, "-") && !program {
			a.mark(w)
			switch w.lit {
			case "--arg", "--argjson", "--slurpfile", "--rawfile":
				rest = append(rest, ws[min(i+1, len(ws)-1):min(i+3, len(ws))]...)
				i += 2
			case "-f", "--from-file":
				program = true
			case "--indent", "-L":
				i++
			}
			continue
		}
		if !program {
			a.denyArgs(ws[i:i+1], "it is the program of "+name)
			program = true
			continue
		}
		rest = append(rest, w)
	}
	a.data(rest, false)
}
