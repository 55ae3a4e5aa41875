package engine

import (
	"context"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/run"
)

// AutoAgent's git built-ins (seed 000) run git directly, without a shell, in the hook's
// working directory with the hooks' environment:
//
//	git-commit: git add -A; then, if anything is staged, git commit [--no-verify] -m MESSAGE
//	git-push:   git push REMOTE BRANCH   (remote "origin"; branch "current" is HEAD)
//
// git-commit stages the workspace first because it replaces AutoAgent's
// performGitCommitAndPush, which committed the work an issue produced. With nothing to
// commit it succeeds and says so, like a commit hook that has nothing to do.

// gitCommand describes the built-in the way results and config() show it.
func (h *hook) gitCommand() string {
	if h.cfg.Type == "git-commit" {
		flag := ""
		if h.cfg.NoVerify {
			flag = " --no-verify"
		}
		return "git add -A && git commit" + flag + " -m " + h.cfg.Message
	}
	return strings.Join(h.gitPush(), " ")
}

func (h *hook) gitPush() []string {
	remote, branch := h.cfg.Remote, h.cfg.Branch
	if remote == "" {
		remote = "origin"
	}
	if branch == "" || branch == "current" {
		branch = "HEAD" // the checked-out branch, pushed under its own name
	}
	return []string{"git", "push", remote, branch}
}

// runGit runs the built-in's git commands one after another within the hook's timeout and
// returns them as one result: output concatenated, the first failure ends the run.
func (j *job) runGit(ctx context.Context) run.Result {
	start := time.Now()
	deadline := start.Add(j.spec.Timeout)
	var total run.Result
	step := func(argv ...string) run.Result {
		spec := j.spec
		spec.Argv = argv
		spec.Timeout = max(time.Until(deadline), time.Millisecond)
		r := run.Run(ctx, spec)
		total.Stdout = append(total.Stdout, r.Stdout...)
		total.Stderr = append(total.Stderr, r.Stderr...)
		total.StdoutTruncated = total.StdoutTruncated || r.StdoutTruncated
		total.StderrTruncated = total.StderrTruncated || r.StderrTruncated
		total.ExitCode, total.Signal, total.TimedOut, total.Err = r.ExitCode, r.Signal, r.TimedOut, r.Err
		return r
	}
	ok := func(r run.Result) bool { return r.ExitCode == 0 && r.Err == nil && !r.TimedOut }
	switch j.h.cfg.Type {
	case "git-commit":
		if r := step("git", "add", "-A"); !ok(r) {
			break
		}
		// diff --cached --quiet exits 1 when something is staged.
		staged := step("git", "diff", "--cached", "--quiet")
		switch {
		case staged.ExitCode == 0:
			total.Stdout = append(total.Stdout, "nothing to commit\n"...)
		case staged.ExitCode == 1 && staged.Err == nil:
			argv := []string{"git", "commit", "-m", j.prompt}
			if j.h.cfg.NoVerify {
				argv = append(argv, "--no-verify")
			}
			step(argv...)
		}
	case "git-push":
		step(j.h.gitPush()...)
	}
	total.Duration = time.Since(start)
	return total
}
