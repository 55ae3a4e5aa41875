package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hookexec/hookexec/core/config"
	"github.com/hookexec/hookexec/core/template"
)

// Check returns every problem with the configuration in force: the loader's warnings
// (Config().Warnings) and then advice only a look at the machine can give, such as a hook
// whose program is not on PATH. It runs nothing. Advice never disables a hook: the PATH at
// fire time may differ.
func (e *Engine) Check() ([]config.Warning, error) {
	if !e.gate.enter() {
		return nil, ErrClosed
	}
	defer e.gate.leave()
	p := e.plan.Load()
	out := append([]config.Warning(nil), p.warnings...)
	if e.logWarning != "" {
		out = append(out, config.Warning{Source: LogEnv, Message: e.logWarning})
	}
	if e.telWarning != "" {
		out = append(out, config.Warning{Source: TelemetryEnv, Message: e.telWarning})
	}
	for _, h := range p.hooks {
		if h.cfg.Disabled != "" || h.cfg.Cmd == nil {
			continue
		}
		prog := program(h.cfg.Cmd)
		if prog == "" {
			continue
		}
		dir := h.cfg.Cwd
		if dir == "" {
			dir = e.opts.ProjectDir
		}
		if msg := e.findProgram(prog, dir); msg != "" {
			out = append(out, config.Warning{Source: h.cfg.Source, Hook: h.cfg.ID, Message: msg})
		}
	}
	return out, nil
}

// program is the program a command starts, when it can be known before a fire: argv[0] of
// a direct or exec-form command, or the first word of a shell script when it is a plain
// word and not a shell builtin. "" when it cannot be known (a placeholder, shell syntax).
func program(c *template.Command) string {
	if c.Mode() != template.Shell {
		argv := c.Argv(nil)
		if len(argv) == 0 || containsPlaceholder(c, 0) {
			return ""
		}
		return argv[0]
	}
	script := strings.TrimSpace(c.Source())
	word, _, _ := strings.Cut(script, " ")
	if word == "" || strings.IndexFunc(word, notPlainWordRune) >= 0 || shellBuiltins[word] {
		return ""
	}
	return word
}

// containsPlaceholder reports whether argv[i] of an exec command comes from a placeholder
// (rendered empty with nil values, so compare with a rendering that fills them).
func containsPlaceholder(c *template.Command, i int) bool {
	if len(c.Placeholders()) == 0 {
		return false
	}
	a := c.Argv(nil)
	b := c.Argv(func(int) string { return "x" })
	return len(a) <= i || len(b) <= i || a[i] != b[i]
}

func notPlainWordRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("_-./~+@%:,", r)
}

// shellBuiltins are first words the shell runs itself.
var shellBuiltins = map[string]bool{
	".": true, ":": true, "[": true, "alias": true, "break": true, "case": true, "cd": true,
	"command": true, "continue": true, "echo": true, "eval": true, "exec": true, "exit": true,
	"export": true, "false": true, "for": true, "if": true, "local": true, "printf": true,
	"pwd": true, "read": true, "readonly": true, "return": true, "set": true, "shift": true,
	"source": true, "test": true, "times": true, "trap": true, "true": true, "type": true,
	"ulimit": true, "umask": true, "unset": true, "until": true, "wait": true, "while": true,
	"{": true, "!": true,
}

// findProgram says what is wrong with running prog from dir, or "".
func (e *Engine) findProgram(prog, dir string) string {
	if strings.HasPrefix(prog, "~/") {
		home := e.opts.Home
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		prog = filepath.Join(home, prog[2:])
	}
	if !strings.Contains(prog, "/") {
		if _, err := exec.LookPath(prog); err != nil {
			return fmt.Sprintf("%s is not on PATH", prog)
		}
		return ""
	}
	path := prog
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Sprintf("%s does not exist", prog)
	case st.IsDir():
		return fmt.Sprintf("%s is a directory", prog)
	case st.Mode()&0o111 == 0:
		return fmt.Sprintf("%s is not executable (chmod +x it)", prog)
	}
	return ""
}
