package main

import (
	bin "encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// startParent is this process's parent when it started. A hook whose parent has changed
// since was orphaned (what ran it has ended): the process that adopted it — init, or a
// subreaper such as systemd --user, which SIGTERM would tear down — is never signalled.
var startParent = os.Getppid()

// maxAncestors bounds the walk from the hook to the agent: Claude Code runs a hook through
// a shell, and a user's wrapper (timeout, env, nice, direnv exec, nix develop) may sit in
// between; past this many levels a Claude Code found is not the one that ran the hook.
const maxAncestors = 8

// stopAgent ends the Claude Code process that runs this hook, where the session cannot be
// stopped from its answer: Claude Code 2.1.330 runs a session on after a SessionStart
// answer of continue:false (seen live, tests/live/claude TestHTTPTransportAnotherUser).
//
// It signals only a process that is certainly that agent: this hook's parent is still the
// one it started with; walking up from it (at most maxAncestors levels, never past a
// process of another uid) the first process whose executable is Claude Code's (see
// isClaudeCode); run by this user; holding the other end of this hook's stdout, which is
// how the agent reads the hook's answer. The signal is SIGKILL, through a pidfd taken
// before the checks are made again, so a pid reused meanwhile is never hit: on SIGTERM
// (or SIGINT, SIGHUP) Claude Code 2.1.330 shuts down gracefully and runs the session's
// SessionEnd hooks, which under the http transport post to whatever holds the port — the
// very listener the session is being stopped for — with the secret. Since the agent dies
// without showing the hook's answer, msg is written where the agent's own errors go (its
// stderr, reopened through /proc before the kill).
//
// It returns the pid killed, or 0 and nil when no agent ran this hook ($CLAUDE_PROJECT_DIR,
// set for every command hook, unset: a hook run by hand is never cause to end anything),
// or 0 and why nothing was signalled.
func stopAgent(msg string) (int, error) {
	if os.Getenv("CLAUDE_PROJECT_DIR") == "" {
		return 0, nil
	}
	agent, err := findAgent()
	if err != nil {
		return 0, err
	}
	fd, err := unix.PidfdOpen(agent.pid, 0)
	if err != nil {
		return 0, fmt.Errorf("Claude Code (pid %d) cannot be held to signal it (pidfd_open: %v, Linux 5.3 or later is needed)", agent.pid, err)
	}
	defer unix.Close(fd)
	// The pidfd names one process for good; if the walk still ends at it, that process is
	// the agent, and the kill through the pidfd cannot reach any other.
	again, err := findAgent()
	if err != nil {
		return 0, err
	}
	if again.pid != agent.pid || again.start != agent.start {
		return 0, fmt.Errorf("the agent changed while it was being stopped (pid %d, then pid %d)", agent.pid, again.pid)
	}
	tell := agentStderr(agent.pid)
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil {
		if tell != nil {
			tell.Close()
		}
		return 0, fmt.Errorf("Claude Code (pid %d) could not be killed: %w", agent.pid, err)
	}
	if tell != nil {
		line := msg + " " + stoppedNote(agent.pid) + "\n"
		if isatty(tell) { // the agent may have left it raw: start a line of our own
			line = "\r\n" + strings.ReplaceAll(line, "\n", "\r\n")
		}
		_, _ = tell.WriteString(line)
		tell.Close()
	}
	return agent.pid, nil
}

// stoppedNote says what stopAgent did to the agent, for the reason the user is given.
func stoppedNote(pid int) string {
	return fmt.Sprintf("(Claude Code, pid %d, was killed with SIGKILL: it runs a session on after a SessionStart hook's continue:false, and on SIGTERM it would run the session's SessionEnd hooks, which post to that port)", pid)
}

// proc is what the walk reads of one process from /proc.
type proc struct {
	pid, ppid, uid int
	start          uint64 // start time in clock ticks after boot: with pid, one process
	exe            string // the executable's path; empty when it cannot be read
	args           []string
}

func (p proc) String() string {
	exe := p.exe
	if exe == "" {
		exe = "?"
	}
	return fmt.Sprintf("pid %d %s", p.pid, exe)
}

// findAgent walks up from the hook's parent to the Claude Code process that runs it.
func findAgent() (proc, error) {
	if now := os.Getppid(); now != startParent {
		return proc{}, fmt.Errorf("this hook was orphaned: its parent, pid %d, has ended (its parent is now pid %d, which did not run it and is left alone)", startParent, now)
	}
	out, err := stdoutPeer()
	if err != nil {
		return proc{}, err
	}
	var seen []string
	pid := startParent
	for i := 0; i < maxAncestors && pid > 1; i++ {
		p, err := readProc(pid)
		if err != nil {
			return proc{}, fmt.Errorf("the process above this hook cannot be read (%v) after %s", err, strings.Join(seen, ", "))
		}
		if p.uid != os.Getuid() {
			seen = append(seen, p.String()+" (uid "+strconv.Itoa(p.uid)+")")
			break
		}
		seen = append(seen, p.String())
		if isClaudeCode(p) {
			if !holds(pid, out) {
				return proc{}, fmt.Errorf("%s is Claude Code but does not hold the other end of this hook's stdout (%s), so it did not run this hook", p, out)
			}
			return p, nil
		}
		pid = p.ppid
	}
	return proc{}, fmt.Errorf("no process above this hook is Claude Code run by uid %d (%s)", os.Getuid(), strings.Join(seen, ", "))
}

// isClaudeCode tells Claude Code by its executable, as its own updater does: the native
// binary ("claude", npm's "bin/claude.exe" copy of it, or the native installer's
// …/claude/versions/VERSION), or Node or Bun running the npm package's script. A process's
// name (comm) is not enough: any process sets its own, and a shell script named claude is
// a shell.
func isClaudeCode(p proc) bool {
	base := filepath.Base(p.exe)
	switch {
	case p.exe == "":
		return false
	case base == "claude" || base == "claude.exe":
		return true
	case strings.Contains(p.exe, "/claude/versions/"):
		return true
	case base == "node" || base == "nodejs" || base == "bun":
		for _, a := range p.args[min(1, len(p.args)):] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			return strings.Contains(a, "/@anthropic-ai/claude-code/") || filepath.Base(a) == "claude"
		}
	}
	return false
}

// readProc reads pid's parent, start time, real uid, executable and arguments.
func readProc(pid int) (proc, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	p := proc{pid: pid}
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return p, err
	}
	s := string(stat)
	shut := strings.LastIndexByte(s, ')')
	if shut < 0 {
		return p, fmt.Errorf("%s/stat: no command name", dir)
	}
	f := strings.Fields(s[shut+1:]) // from field 3, the state
	if len(f) < 20 {
		return p, fmt.Errorf("%s/stat: %d fields", dir, len(f)+2)
	}
	if p.ppid, err = strconv.Atoi(f[1]); err != nil {
		return p, fmt.Errorf("%s/stat: parent %q", dir, f[1])
	}
	if p.start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return p, fmt.Errorf("%s/stat: start time %q", dir, f[19])
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return p, err
	}
	p.uid = -1
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Uid:"); ok {
			ids := strings.Fields(v) // real, effective, saved, filesystem
			if len(ids) == 4 && ids[0] == ids[1] {
				p.uid, _ = strconv.Atoi(ids[0])
			}
		}
	}
	if exe, err := os.Readlink(dir + "/exe"); err == nil {
		p.exe = strings.TrimSuffix(exe, " (deleted)") // an updated Claude Code runs on
	}
	if cmd, err := os.ReadFile(dir + "/cmdline"); err == nil {
		p.args = strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
	}
	return p, nil
}

// stdoutPeer names the other end of the channel the hook answers on, as /proc/PID/fd
// shows it: the agent reads the hook's answer there, so the agent holds it. Claude Code
// 2.1.330 gives a hook a socketpair (seen live: "socket:[INODE]"), whose other end is
// another socket, found with netlink sock_diag; a Node-era agent or a shell may give a
// pipe, whose both ends are one "pipe:[INODE]". A hook whose stdout is neither (a
// terminal, a file) was not run by an agent that reads its answer.
func stdoutPeer() (string, error) {
	out, err := os.Readlink("/proc/self/fd/1")
	if err != nil {
		return "", fmt.Errorf("this hook's stdout cannot be read: %w", err)
	}
	if strings.HasPrefix(out, "pipe:[") {
		return out, nil
	}
	ino, ok := strings.CutPrefix(out, "socket:[")
	if !ok {
		return "", fmt.Errorf("this hook's stdout is %s, not a pipe or socket an agent reads", out)
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(ino, "]"), 10, 32)
	if err != nil {
		return "", fmt.Errorf("this hook's stdout is %s", out)
	}
	peer, err := unixPeer(uint32(n))
	if err != nil {
		return "", fmt.Errorf("the other end of this hook's stdout (%s) cannot be told: %w", out, err)
	}
	return "socket:[" + strconv.FormatUint(uint64(peer), 10) + "]", nil
}

// unixPeer asks the kernel (NETLINK_SOCK_DIAG, AF_UNIX, UDIAG_SHOW_PEER) for the inode of
// the socket connected to the Unix socket whose inode is ino.
func unixPeer(ino uint32) (uint32, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	const reqLen = 16 + 24 // struct nlmsghdr + struct unix_diag_req
	req := make([]byte, reqLen)
	ne := bin.NativeEndian
	ne.PutUint32(req[0:], reqLen)
	ne.PutUint16(req[4:], 20) // SOCK_DIAG_BY_FAMILY
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	r := req[16:]
	r[0] = unix.AF_UNIX
	ne.PutUint32(r[4:], 0xffffffff) // every state
	ne.PutUint32(r[8:], ino)
	ne.PutUint32(r[12:], 4)          // UDIAG_SHOW_PEER
	ne.PutUint32(r[16:], 0xffffffff) // no cookie
	ne.PutUint32(r[20:], 0xffffffff)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, err
	}
	buf := make([]byte, 8192)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return 0, err
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil {
		return 0, err
	}
	for _, m := range msgs {
		if m.Header.Type != 20 {
			continue
		}
		// struct unix_diag_msg (16 bytes: family, type, state, pad, ino, cookie), then
		// attributes; UNIX_DIAG_PEER (2) holds the peer's inode.
		if len(m.Data) < 16 || ne.Uint32(m.Data[4:]) != ino {
			return 0, errors.New("sock_diag answered for another socket")
		}
		for a := m.Data[16:]; len(a) >= 4; {
			l, typ := int(ne.Uint16(a)), ne.Uint16(a[2:])
			if l < 4 || l > len(a) {
				break
			}
			if typ == 2 && l >= 8 {
				return ne.Uint32(a[4:]), nil
			}
			a = a[min(len(a), (l+3)&^3):]
		}
		return 0, errors.New("it has no peer")
	}
	return 0, errors.New("sock_diag does not know it")
}

// holds tells whether pid has a descriptor open on out ("pipe:[N]" or "socket:[N]").
func holds(pid int, out string) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && l == out {
			return true
		}
	}
	return false
}

// agentStderr opens the agent's stderr anew through /proc, to say why it was ended; nil
// when it cannot (a socket, a FIFO nobody reads). O_NONBLOCK keeps a full pipe or a FIFO
// from holding the stop; O_APPEND keeps a log file's contents.
func agentStderr(pid int) *os.File {
	path := "/proc/" + strconv.Itoa(pid) + "/fd/2"
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), path)
}
