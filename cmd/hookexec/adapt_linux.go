package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
)

// adaptWorkerEnv marks the process a supervising "hookexec adapt" started to do the work.
const adaptWorkerEnv = "HOOKEXEC_ADAPT_WORKER"

// superviseAdapt keeps the adapted command from outliving adapt. An agent may end a hook
// with SIGKILL, which adapt cannot catch: the command (and what it started) would run on
// until its own timeout. So adapt runs the work in a child of its own (the same command
// line), whose parent-death signal is SIGTERM: when this process dies, however it dies,
// the kernel signals the worker, which kills the command's process tree (its process
// group and cgroup) as it does on the agent's SIGTERM, and exits. The worker's exit
// status is adapt's; SIGTERM, SIGINT and SIGHUP are passed on to it. ok is false in the
// worker itself and when the worker cannot be started (adapt then does the work itself).
func superviseAdapt(a *app) (code int, ok bool) {
	if os.Getenv(adaptWorkerEnv) != "" {
		_ = os.Unsetenv(adaptWorkerEnv) // the command's own "hookexec adapt" supervises again
		return 0, false
	}
	self, err := os.Executable()
	if err != nil {
		return 0, false
	}
	cmd := exec.Command(self, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.stdin, a.stdout, a.stderr
	cmd.Env = append(os.Environ(), adaptWorkerEnv+"=1")
	// Its own process group, so that a SIGKILL of adapt's group (an agent killing the hook's
	// group) leaves the worker to clean up; not when reading a terminal, which a
	// background group may not.
	f, isFile := a.stdin.(*os.File)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: !isFile || !isatty(f)}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sig)
	// The parent-death signal is sent when the thread that forked the worker ends: this
	// goroutine keeps its thread until the worker is gone.
	started := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return 0, false
	}
	for {
		select {
		case s := <-sig:
			_ = cmd.Process.Signal(s)
		case err := <-done:
			var ee *exec.ExitError
			switch {
			case err == nil:
				return 0, true
			case errors.As(err, &ee) && ee.ExitCode() >= 0:
				return ee.ExitCode(), true
			}
			fmt.Fprintf(a.stderr, "hookexec: adapt: the worker ended: %v\n", err)
			return exitBlock, true
		}
	}
}
