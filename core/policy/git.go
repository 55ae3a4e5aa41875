package policy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The git facts. The branch is read from the repository's HEAD file (a guard's most
// common question, answered with no process); whether the tree is dirty needs the index
// compared with the files, which only git does right, so it runs git status.

// gitTimeout bounds git status: a fire never waits longer for the dirty fact.
const gitTimeout = 5 * time.Second

// gitDir finds the git directory of the repository holding dir: the nearest .git, a
// directory or a file saying "gitdir: PATH" (a worktree, a submodule). "" for none.
func gitDir(dir string) (string, error) {
	for {
		dotgit := filepath.Join(dir, ".git")
		fi, err := os.Stat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			return dotgit, nil
		case err == nil:
			b, err := os.ReadFile(dotgit)
			if err != nil {
				return "", fmt.Errorf("hookexec: policy: git: %w", err)
			}
			target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return "", fmt.Errorf("hookexec: policy: git: %s is not a gitdir file", dotgit)
			}
			target = strings.TrimSpace(target)
			if !filepath.IsAbs(target) {
				target = filepath.Join(dir, target)
			}
			return target, nil
		case !errors.Is(err, os.ErrNotExist) && !isNotDir(err):
			return "", fmt.Errorf("hookexec: policy: git: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// gitBranch reads the branch HEAD names: "ref: refs/heads/NAME".
func gitBranch(root string) (string, error) {
	dir, err := gitDir(root)
	if err != nil || dir == "" {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(dir, "HEAD"))
	if err != nil {
		return "", fmt.Errorf("hookexec: policy: git: %w", err)
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref:")
	if !ok {
		return "", nil // detached: HEAD holds a commit id
	}
	branch, _ := strings.CutPrefix(strings.TrimSpace(ref), "refs/heads/")
	return branch, nil
}

// gitDirty runs git status in root. The repository's own configuration could run a
// program from git status (core.fsmonitor); it is switched off, and git's optional locks
// too, so a guard never writes to the repository.
func gitDirty(ctx context.Context, root string) (bool, error) {
	if dir, err := gitDir(root); err != nil || dir == "" {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-c", "core.fsmonitor=false", "-C", root,
		"status", "--porcelain", "--ignore-submodules=dirty")
	cmd.Env = gitEnv()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return false, fmt.Errorf("hookexec: policy: git status: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out.Len() > 0, nil
}

// gitEnv is the environment without the variables that point git at another repository
// or index than the project's (set when the agent itself runs inside a git hook).
func gitEnv() []string {
	env := []string{"GIT_OPTIONAL_LOCKS=0"}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
			"GIT_OPTIONAL_LOCKS", "GIT_CEILING_DIRECTORIES", "GIT_NAMESPACE":
			continue
		}
		env = append(env, kv)
	}
	return env
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
