package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// stopAgent ends the agent that ran this hook (SIGTERM), where the session cannot be
// stopped from its answer: Claude Code 2.1.330 runs a session on after a SessionStart
// answer of continue:false (seen live, tests/live/claude TestHTTPTransportAnotherUser).
// The agent is the nearest ancestor that is not a shell, and only when the agent's variable
// says Claude Code ran this ($CLAUDE_PROJECT_DIR, set for every command hook); a hook run
// by hand is never cause to end anything. It reports the pid it signalled (0: none).
func stopAgent() int {
	if os.Getenv("CLAUDE_PROJECT_DIR") == "" {
		return 0
	}
	pid := os.Getppid()
	for i := 0; i < 4 && pid > 1; i++ {
		comm, ppid, ok := procStat(pid)
		if !ok {
			return 0
		}
		switch comm {
		case "sh", "bash", "dash", "zsh", "ash", "busybox":
			pid = ppid
			continue
		}
		if syscall.Kill(pid, syscall.SIGTERM) != nil {
			return 0
		}
		return pid
	}
	return 0
}

// procStat reads a process's command name and parent from /proc/PID/stat.
func procStat(pid int) (string, int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	s := string(b)
	open, shut := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || shut < open {
		return "", 0, false
	}
	f := strings.Fields(s[shut+1:])
	if len(f) < 2 {
		return "", 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return s[open+1 : shut], ppid, err == nil
}
