package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// agentjail is the peer of issue 27's comparison (github.com/LuD1161/agentjail): a hook binary
// that sends each call to a daemon evaluating OPA Rego behind a Unix socket. It is not on the
// Go module proxy, so the bench builds it from a source tree given with -agentjail (or
// HOOKEXEC_BENCH_AGENTJAIL), with its own go.mod's dependencies, and starts its daemon by hand
// as its cmd/agentjail-daemon allows (-socket, -rules, -policy, -log, -db), with one rule:
// ajRule.
type agentjail struct {
	daemon, hook string
	socket       string // set by start
}

// ajRule is docs/policy.md's rm -rf guard in agentjail's terms (package agentjail, a
// `decision` of action allow or deny). agentjail's daemon has no hookexec facts, so the
// command's words are split at the shell's separators and blanks and "outside the project"
// is a word starting with ~, naming .., or an absolute path not under the call's cwd: the
// same verdict as the docs' rule on the bench's calls (echo call-N, and the probe's rm -rf of
// an absolute path outside the project).
const ajRule = `package agentjail

import rego.v1

default decision := {"action": "allow", "reason": "no rule", "rule_id": "default"}

decision := {"action": "deny", "reason": "rm -rf outside the project", "rule_id": "rmrf"} if {
	input.tool_name == "Bash"
	some part in regex.split(` + "`" + `\s*(&&|\|\||;|\|)\s*` + "`" + `, trim_space(input.tool_input.command))
	words := regex.split(` + "`" + `\s+` + "`" + `, trim_space(part))
	words[0] == "rm"
	some flag in words
	regex.match(` + "`" + `^-[a-zA-Z]*(r[a-zA-Z]*f|f[a-zA-Z]*r)` + "`" + `, flag)
	some w in array.slice(words, 1, count(words))
	not startswith(w, "-")
	outside(w)
}

outside(w) if startswith(w, "~")

outside(w) if contains(w, "..")

outside(w) if {
	startswith(w, "/")
	not startswith(w, concat("", [input.cwd, "/"]))
}
`

// buildAgentjail builds agentjail's daemon and hook from src into a directory of the bench's
// cache (the Go build cache makes a second build quick).
func buildAgentjail(src string) (*agentjail, error) {
	src, err := filepath.Abs(src)
	if err != nil {
		return nil, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "hookexec-agentbench", "agentjail")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "build", "-o", out+"/", "./cmd/agentjail-daemon", "./cmd/agentjail-hook")
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build in %s: %v\n%s", src, err, b)
	}
	return &agentjail{daemon: filepath.Join(out, "agentjail-daemon"), hook: filepath.Join(out, "agentjail-hook")}, nil
}

// start runs the daemon under root with ajRule as its only rule, waits for its socket and
// returns what stops it.
func (aj *agentjail) start(root string) (func(), error) {
	dir := filepath.Join(root, "aj")
	rules := filepath.Join(dir, "rules")
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o700); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(rules, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(rules, "rmrf.rego"), []byte(ajRule), 0o644); err != nil {
		return nil, err
	}
	aj.socket = filepath.Join(dir, "d.sock")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, aj.daemon, "-socket", aj.socket, "-rules", rules, "-policy", filepath.Join(dir, "policy.yaml"),
		"-log", filepath.Join(dir, "daemon.log"), "-db", filepath.Join(dir, "agentjail.db"))
	cmd.Env = []string{"HOME=" + filepath.Join(dir, "home"), "PATH=" + os.Getenv("PATH"), "AGENTJAIL_NO_UPDATE_CHECK=1",
		"AGENTJAIL_AUTO_UPDATE=false", "DO_NOT_TRACK=1"}
	logf, err := os.Create(filepath.Join(dir, "daemon.out"))
	if err != nil {
		cancel()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	stop := func() { cancel(); _ = cmd.Wait(); logf.Close() }
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(aj.socket); err == nil {
			return stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			out, _ := os.ReadFile(filepath.Join(dir, "daemon.out"))
			return nil, fmt.Errorf("its daemon made no socket in 30 s:\n%s", out)
		}
	}
}

// hookCommand is the agent's hook command: agentjail's hook pointed at the bench's daemon.
func (aj *agentjail) hookCommand(agent string) string {
	return fmt.Sprintf("AGENTJAIL_SOCKET=%s AGENTJAIL_NO_UPDATE_CHECK=1 %s --agent=%s", aj.socket, aj.hook, agent)
}
