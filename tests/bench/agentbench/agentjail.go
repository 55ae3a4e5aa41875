package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// agentjail is the peer of issues 27 and 30 (github.com/LuD1161/agentjail): a hook binary
// that sends each call to a daemon evaluating OPA Rego behind a Unix socket. The issue asks
// for `go install` of its commands from the Go module proxy at a pinned version; that cannot
// be done: the proxy answers 403 ("This module version is not available") for
// github.com/LuD1161/agentjail and its agentjail submodule, and the module's go.mod has a
// replace directive (./agentpolicy), which `go install pkg@version` refuses. So the bench
// builds it from a source tree given with -agentjail (or HOOKEXEC_BENCH_AGENTJAIL), with its
// own go.mod's dependencies (those come from the proxy), and starts its daemon by hand as
// its cmd/agentjail-daemon allows (-socket, -policy, -log, -db) with no -rules: the daemon
// then evaluates its inline default policy, "deny rm -rf, allow everything else"
// (`contains(input.tool_input.command, "rm -rf")` for tool Bash), the Python guard's and the
// http guard's rule.
type agentjail struct {
	daemon, hook string
	socket       string // set by start
	pid          int    // its daemon's, set by start
}

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

// start runs the daemon under root with its inline policy, waits for its socket and returns
// what stops it.
func (aj *agentjail) start(root string) (func(), error) {
	dir := filepath.Join(root, "aj")
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o700); err != nil {
		return nil, err
	}
	aj.socket = filepath.Join(dir, "d.sock")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, aj.daemon, "-socket", aj.socket, "-policy", filepath.Join(dir, "policy.yaml"),
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
	aj.pid = cmd.Process.Pid
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
