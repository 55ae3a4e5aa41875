package engine

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// CLAUDE_ENV_FILE: on the events that have it (SessionStart, Setup, CwdChanged,
// FileChanged) every fire gets a fresh empty file whose path is in the hooks' environment.
// Hooks append `export NAME=value` lines to it; after they ran, the file is read back, its
// exports are returned in the fire result's "env" (for the host to apply to the commands
// it runs later, as Claude Code does), and the file is removed.

// envFileEvents are the events whose hooks get CLAUDE_ENV_FILE (the hooks reference).
var envFileEvents = map[string]bool{"SessionStart": true, "Setup": true, "CwdChanged": true, "FileChanged": true}

// newEnvFile creates the fire's empty env file.
func newEnvFile() (string, error) {
	f, err := os.CreateTemp("", "hookexec-env-*.sh")
	if err != nil {
		return "", err
	}
	name := f.Name()
	return name, f.Close()
}

// readEnvFile reads the env file, returning its exports.
func readEnvFile(path string, env []string) (map[string]string, []string) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, []string{"CLAUDE_ENV_FILE was removed by a hook; its exports are lost"}
	}
	if err != nil {
		return nil, []string{"CLAUDE_ENV_FILE: " + err.Error()}
	}
	return parseEnvFile(data, env)
}

// removeEnvFile removes the env file now, or once the fire's async hooks finished (they get
// the same file and may still be writing to it).
func (e *Engine) removeEnvFile(path string, hasAsync bool, async *sync.WaitGroup) {
	if !hasAsync {
		os.Remove(path)
		return
	}
	e.async.Add(1)
	go func() {
		defer e.async.Done()
		async.Wait()
		os.Remove(path)
	}()
}

// parseEnvFile reads the exports of a shell fragment: `export A=1 B="x $A"`, bash's
// `declare -x A="1"` (what `export -p` prints), and plain `A=1` shell variables, which a later
// `export A` exports. Values are unquoted and $VAR/${VAR} expanded from earlier lines and
// the hooks' environment env (KEY=VALUE pairs), as a shell sourcing the file would; a line
// that needs anything more (command substitution, other commands) is left out with a warning.
func parseEnvFile(data []byte, env []string) (map[string]string, []string) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(string(data)), "CLAUDE_ENV_FILE")
	if err != nil {
		return nil, []string{"CLAUDE_ENV_FILE is not valid shell, nothing read from it: " + err.Error()}
	}
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	exported := map[string]string{}
	var warnings []string
	cfg := &expand.Config{Env: expand.FuncEnviron(func(name string) string { return vars[name] })}
	set := func(a *syntax.Assign, export bool) error {
		if a.Name == nil {
			return nil // an option such as declare's -x
		}
		name := a.Name.Value
		if a.Naked {
			if export {
				if v, ok := vars[name]; ok {
					exported[name] = v
				}
			}
			return nil
		}
		if a.Array != nil || a.Index != nil || a.Append {
			return fmt.Errorf("%s: arrays and += are not read", name)
		}
		val := ""
		if a.Value != nil {
			var err error
			if val, err = expand.Literal(cfg, unescaped(a.Value)); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
		}
		vars[name] = val
		if export {
			exported[name] = val
		}
		return nil
	}
	for _, st := range f.Stmts {
		line := fmt.Sprintf("line %d", st.Pos().Line())
		var err error
		switch c := st.Cmd.(type) {
		case *syntax.DeclClause:
			export := c.Variant.Value == "export"
			if c.Variant.Value == "declare" || c.Variant.Value == "typeset" {
				for _, a := range c.Args {
					if a.Name == nil && a.Value != nil && strings.HasPrefix(a.Value.Lit(), "-") && strings.Contains(a.Value.Lit(), "x") {
						export = true
					}
				}
			}
			for _, a := range c.Args {
				if err == nil {
					err = set(a, export)
				}
			}
		case *syntax.CallExpr:
			if len(c.Args) > 0 {
				err = errors.New("runs a command, which hookexec does not do")
				break
			}
			for _, a := range c.Assigns {
				if err == nil {
					err = set(a, false)
				}
			}
		default:
			err = errors.New("is not an export")
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("CLAUDE_ENV_FILE %s left out: %v", line, err))
		}
	}
	return exported, warnings
}

// unescaped returns w with the backslashes of its unquoted literal parts removed, the
// quote removal a shell does that expand.Literal leaves to its caller.
func unescaped(w *syntax.Word) *syntax.Word {
	out := *w
	out.Parts = make([]syntax.WordPart, len(w.Parts))
	for i, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, `\`) {
			c := *l
			var b strings.Builder
			for j := 0; j < len(c.Value); j++ {
				if c.Value[j] == '\\' && j+1 < len(c.Value) {
					j++
				}
				b.WriteByte(c.Value[j])
			}
			c.Value = b.String()
			p = &c
		}
		out.Parts[i] = p
	}
	return &out
}
