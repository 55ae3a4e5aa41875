//go:build linux

// Command fakeagent stands in for an agent, or a process above one, in cmd/hookexec's
// stopAgent tests (stopagent_linux_test.go): the test copies it under the name it needs
// ("claude", "fish"), so that /proc/PID/exe names it so, and it runs its arguments as a
// child and waits for it.
//
//	fakeagent [-pidfile F] [-subreaper] [-pipes] [-inherit] command args...
//
// Like Claude Code 2.1.330, it gives the child a socketpair of its own as stdout and
// another as stderr and relays what comes through them to its stdout, so it holds the
// other end of the child's stdout; -pipes gives pipes instead (as a shell does), -inherit
// its own stdout and stderr. The child's stdin
// is its own. -pidfile writes its pid to F before it starts the child. -subreaper makes it
// adopt the orphans below it (PR_SET_CHILD_SUBREAPER, as systemd --user does): it then
// reaps them, writing "reaped PID STATUS" to stdout for each, until it is killed.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	pidfile := flag.String("pidfile", "", "write this process's pid here")
	subreaper := flag.Bool("subreaper", false, "adopt orphaned descendants and reap them until killed")
	inherit := flag.Bool("inherit", false, "give the child this process's stdout and stderr")
	pipes := flag.Bool("pipes", false, "give the child pipes, not socketpairs")
	flag.Parse()
	if *subreaper {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent: PR_SET_CHILD_SUBREAPER:", err)
			os.Exit(125)
		}
	}
	if *pidfile != "" {
		if err := os.WriteFile(*pidfile, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent:", err)
			os.Exit(125)
		}
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin = os.Stdin
	var relays, ends []*os.File
	switch {
	case *inherit:
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	case *pipes:
		// Not *os.File: exec makes a pipe for each and copies it here.
		cmd.Stdout, cmd.Stderr = struct{ io.Writer }{os.Stdout}, struct{ io.Writer }{os.Stdout}
	default:
		for _, w := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				fmt.Fprintln(os.Stderr, "fakeagent: socketpair:", err)
				os.Exit(125)
			}
			end := os.NewFile(uintptr(fds[0]), "child")
			*w, ends = end, append(ends, end)
			relays = append(relays, os.NewFile(uintptr(fds[1]), "relay"))
		}
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent:", err)
		os.Exit(125)
	}
	for _, end := range ends { // the child has them
		end.Close()
	}
	done := make(chan struct{}, len(relays))
	for _, r := range relays {
		go func() { _, _ = io.Copy(os.Stdout, r); done <- struct{}{} }()
	}
	if !*subreaper {
		err := cmd.Wait()
		for range relays {
			<-done
		}
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		return
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.ECHILD {
			time.Sleep(50 * time.Millisecond) // nothing to reap yet: wait to be killed or to adopt
			continue
		}
		if err == nil {
			fmt.Printf("reaped %d %d\n", pid, ws)
		}
	}
}
