package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// runExec is Run on os/exec: the runner everywhere but Linux. It builds on Linux too, so
// that its tests hold it to the contract the pidfd runner is held to.
func runExec(parent context.Context, spec *Spec, start time.Time) Result {
	r := Result{ExitCode: -1}
	if len(spec.Argv) == 0 {
		r.Err = errEmptyArgv
		return r
	}
	if parent == nil {
		parent = context.Background()
	}
	env, err := childEnv(spec.Env, spec.Dir)
	if err != nil {
		r.Err = fmt.Errorf("hookexec: run %q: %w", spec.Argv[0], err)
		return r
	}
	path, err := findExecutable(spec.Argv[0], env, spec.Dir)
	if err != nil {
		r.Err = fmt.Errorf("hookexec: run: %w", err)
		return r
	}
	grace, outCap, errCap := spec.limits()
	ctx, cancel := parent, context.CancelFunc(func() {})
	if spec.Timeout > 0 {
		ctx, cancel = context.WithDeadline(parent, start.Add(spec.Timeout))
	}
	defer cancel()
	if ctx.Err() != nil {
		// As os/exec refuses to, the child is not started once ctx has ended.
		endedByContext(&r, parent.Err() == nil, parent)
		return r
	}

	cmd := exec.CommandContext(ctx, path)
	cmd.Args, cmd.Env, cmd.Dir = spec.Argv, env, spec.Dir
	if len(spec.Stdin) > 0 {
		cmd.Stdin = bytes.NewReader(spec.Stdin) // else os/exec gives the child os.DevNull
	}
	out, errs := &capture{limit: outCap}, &capture{limit: errCap}
	cmd.Stdout, cmd.Stderr = (*captureWriter)(out), (*captureWriter)(errs)
	g := newGroup(cmd)
	defer g.release()
	// Cancel ends the whole tree, not only the leader; WaitDelay is the grace before
	// os/exec kills the leader and closes pipes a grandchild still holds.
	cmd.Cancel = g.terminate
	cmd.WaitDelay = grace
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			endedByContext(&r, parent.Err() == nil, parent)
			return r
		}
		r.Err = fmt.Errorf("hookexec: run %q: %w", spec.Argv[0], err)
		return r
	}
	g.started()
	werr := cmd.Wait()
	if at, ok := g.terminated(); ok {
		g.reap(at.Add(grace))
		endedByContext(&r, parent.Err() == nil, parent)
		werr = nil // the error is the kill we asked for
	}

	r.Stdout, r.StdoutBytes, r.StdoutTruncated = out.buf, out.total, out.truncated()
	r.Stderr, r.StderrBytes, r.StderrTruncated = errs.buf, errs.total, errs.truncated()
	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) && !errors.Is(werr, exec.ErrWaitDelay) {
		r.Err = fmt.Errorf("hookexec: run %q: wait: %w", spec.Argv[0], werr)
		return r
	}
	if ps := cmd.ProcessState; ps != nil {
		r.ExitCode, r.Signal = ps.ExitCode(), exitSignal(ps)
		if _, killed := g.terminated(); killed && r.Signal == "" {
			r.ExitCode = -1 // Windows: the job was terminated, its exit code is ours
		}
	}
	return r
}

// captureWriter lets os/exec copy a stream into a capture; each stream has its own, written
// by one goroutine of os/exec, and read only after Wait.
type captureWriter capture

func (w *captureWriter) Write(p []byte) (int, error) {
	(*capture)(w).keep(p)
	return len(p), nil
}

// findExecutable finds file on the PATH that env sets (the child's, not necessarily the
// host's), as exec.LookPath does for the host's: a name with a separator is used as is,
// an empty PATH element means ".", and a match in a relative directory (looked for in dir,
// where the child would look) is refused with exec.ErrDot.
func findExecutable(file string, env []string, dir string) (string, error) {
	if strings.ContainsAny(file, `/`+string(os.PathSeparator)) {
		return file, nil
	}
	list := ""
	if env == nil {
		list = os.Getenv("PATH")
	} else {
		for i := len(env) - 1; i >= 0; i-- {
			// The last PATH wins; Windows spells it Path and compares names ignoring case.
			k, v, _ := strings.Cut(env[i], "=")
			if k == "PATH" || runtime.GOOS == "windows" && strings.EqualFold(k, "PATH") {
				list = v
				break
			}
		}
	}
	if file != "" && list != "" {
		for _, elem := range filepath.SplitList(list) {
			if elem == "" {
				elem = "."
			}
			p := filepath.Join(elem, file)
			if filepath.IsAbs(p) {
				if found, err := exec.LookPath(p); err == nil {
					return found, nil
				}
				continue
			}
			if dir != "" {
				p = filepath.Join(dir, p)
			}
			if _, err := exec.LookPath(p); err == nil {
				return "", &exec.Error{Name: file, Err: exec.ErrDot}
			}
		}
	}
	return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
}
