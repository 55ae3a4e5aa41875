package engine

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hookexec/hookexec/core/decide"
	"github.com/hookexec/hookexec/core/dialect"
)

// A value never decides: a hook whose definition was filled from the payload, or whose
// command reads a variable hookexec filled from it, may have printed what the model wrote,
// so its answer may only restrict (decide.Verdict.Restrict, docs/hook-io.md), and what it
// writes to CLAUDE_ENV_FILE is not exported. Every hook's verdict passes here (finish), whatever ran it: the shell,
// a direct or exec-form command, a git built-in, the host's evaluator, and whether the
// engine was called from Go, the C library, Python or serve.

// inputValue is a `${path}` an mcp_tool hook's input is filled with (fillInput).
var inputValue = regexp.MustCompile(`\$\{([^}]*)\}`)

// templateValues lists the payload paths a hook's definition is filled with: the
// placeholders of its command or args (mycode's $FILE_PATH included), of its prompt or
// message, and the `${…}` of its input. nil for a hook that gets values only on stdin and
// in its environment, as every Claude Code command hook does.
func (h *hook) templateValues() []string {
	var out []string
	if h.cfg.Cmd != nil && len(h.cfg.CmdPaths) > 0 {
		out = append(out, h.cfg.Cmd.Placeholders()...)
	}
	if h.cfg.Text != nil && len(h.cfg.TextPaths) > 0 {
		out = append(out, h.cfg.Text.Placeholders()...)
	}
	for _, m := range inputValue.FindAllSubmatch(h.cfg.Input, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// valueEnv names the environment variables hookexec fills from the payload (payloadEnv,
// every dialect's PayloadEnv, and the session id, which is the payload's session_id when
// it has one): the same values as placeholders, under a name. As with placeholders, a
// field the host sets counts too, since hookexec cannot tell which ones the model chose.
var valueEnv = func() map[string]bool {
	names := map[string]bool{"HOOK_SESSION_ID": true, "SESSION_ID": true}
	for _, v := range payloadEnv {
		names[v.name] = true
	}
	for _, d := range dialect.All() {
		for _, kv := range d.PayloadEnv {
			names[kv[0]] = true
		}
		if d.ToolEnv != "" {
			names[d.ToolEnv] = true
		}
	}
	return names
}()

// envName finds a variable name as a word: `$X`, `${X:-}`, `${#X}`, `printenv X`,
// os.environ["X"], getenv("X") all read X, and so does any spelling a shell or a language
// has, since each writes the name.
var envName = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// envDump finds what reads the whole environment without naming a variable: env, printenv,
// set, export, declare and typeset with no operand (or -p), compgen -e/-v, ${!prefix*},
// /proc/…/environ, os.environ and process.env other than indexed by a name, %ENV.
var envDump = regexp.MustCompile("(?:^|[;&|(`{\n]|\\$\\()\\s*(?:env|printenv|set|export|declare|typeset|readonly)\\s*(?:$|[;&|)>`}\n])" +
	`|\b(?:export|declare|typeset|readonly|local)\s+-[A-Za-z]*p|\bcompgen\s+-[A-Za-z]*[ev]|\$\{!|\benviron(?:$|[^\[A-Za-z0-9_])|\bprocess\.env(?:$|[^\[A-Za-z0-9_.])|%ENV\b`)

// envValues lists the payload-filled variables of env (the fire's part of a hook's
// environment and its own env after it) that the hook's command, args or http headers
// read: those it names as a word, or all of them when it reads the whole environment. A
// variable the hook's own env sets holds the file's value, not the payload's. What a
// script or program the command runs reads of its environment is its author's code, as
// stdin is.
func (h *hook) envValues(env []string) []string {
	r := h.envReads()
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if valueEnv[name] && (r.all || r.mentioned[name]) && !slices.Contains(out, name) && !ownEnv(h.cfg.Env, name) {
			out = append(out, name)
		}
	}
	return out
}

// envReads is what a hook's definition reads of the payload-filled variables, found once
// (its definition does not change) rather than at every fire.
type envReads struct {
	once      sync.Once
	mentioned map[string]bool // the payload-filled variables it names
	all       bool            // it reads the whole environment
}

func (h *hook) envReads() *envReads {
	r := &h.envRead
	r.once.Do(func() {
		text := h.cfg.Command + "\n" + strings.Join(h.cfg.Args, "\n")
		if h.cfg.Cmd != nil {
			text += "\n" + h.cfg.Cmd.Source()
		}
		for _, kv := range h.cfg.Headers {
			text += "\n" + kv[1] // an http hook's header sends the value to its server
		}
		r.mentioned = map[string]bool{}
		for _, w := range envName.FindAllString(text, -1) {
			if valueEnv[w] {
				r.mentioned[w] = true
			}
		}
		r.all = envDump.MatchString(text)
	})
	return r
}

// ownEnv reports whether the hook's own env sets name.
func ownEnv(env []string, name string) bool {
	return slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
}

// ownEnvFile gives a hook given values a CLAUDE_ENV_FILE of its own when the fire has one:
// its exports would otherwise reach the result's env, which the host applies to every
// later command (BASH_ENV, PATH), so they are a grant. finish removes the file and says in
// the warning that they were ignored. The file is not created: `>>` creates it.
func (f *fire) ownEnvFile(j *job, env []string) []string {
	if len(j.values) == 0 || f.envFile == "" {
		return env
	}
	j.envFile = fmt.Sprintf("%s.%d", f.envFile, f.envSeq.Add(1))
	return append(env[:len(env):len(env)], "CLAUDE_ENV_FILE="+j.envFile)
}

// ignoredEnv removes the hook's own env file and returns "env" when it set something.
func (j *job) ignoredEnv() []string {
	if j.envFile == "" {
		return nil
	}
	data, err := os.ReadFile(j.envFile)
	os.Remove(j.envFile)
	if err != nil || len(strings.TrimSpace(string(data))) == 0 {
		return nil
	}
	return []string{"env"}
}

// restrictTemplated applies the rule to the verdict of a hook given values, and says in a
// warning what it dropped and why.
func (j *job) restrictTemplated(v *decide.Verdict) {
	values := j.values
	if len(values) == 0 {
		return
	}
	dropped := append(v.Restrict(j.ev), j.ignoredEnv()...)
	if len(dropped) > 0 {
		// The hook's output is not shown as its answer either: a host (or the cli-agent
		// drop-in) reading a hook's own output must not find the fields dropped here.
		// stdout keeps the text.
		v.Output = nil
		v.Warnings = append(v.Warnings, fmt.Sprintf("%s ignored: %s (its definition is filled with %s; see docs/hook-io.md, \"A value never decides\")",
			strings.Join(dropped, ", "), decide.RestrictRule, strings.Join(values, ", ")))
	}
}
