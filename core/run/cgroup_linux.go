package run

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A process group does not hold a hook's tree: a process that calls setsid (a
// double fork, a daemon) leaves it, and no group kill reaches it. A cgroup does
// hold it: nothing inside can leave on its own. So when the host may create cgroups
// (cgroup v2, the current cgroup writable: root, or a delegated subtree), each run
// gets a child cgroup of the host's own, its child is cloned straight into it
// (CLONE_INTO_CGROUP), and whatever the group kill leaves behind is killed through
// the cgroup. Where that is not permitted, Run falls back to the process group
// alone, silently: the cgroup only ever adds to it.

// container holds one run's process tree beyond its process group.
type container interface {
	// fd is the descriptor the child is cloned into.
	fd() int
	// signal sends sig to every process inside.
	signal(sig syscall.Signal)
	// kill SIGKILLs every process inside and waits, bounded, until none is left.
	kill()
	// release removes the container. Processes still inside (background processes the
	// hook left running on purpose) are first moved to the host's cgroup.
	release()
}

// cgroupRoot is the directory of the host's own cgroup v2 ("" when there is none),
// found once; finding it also removes the empty run cgroups of hosts that died.
var cgroupRoot = sync.OnceValue(func() string {
	root := findCgroup()
	if root != "" {
		sweep(root)
	}
	return root
})

// cgroupsOff is set once creating or entering a cgroup failed: later runs do not retry.
var cgroupsOff atomic.Bool

// cgroupSeq makes run cgroup names unique within the host process.
var cgroupSeq atomic.Uint64

// idle holds emptied run cgroups for reuse. The first process to enter a fresh cgroup
// costs the kernel a new css_set and its removal an RCU grace period, together
// longer than the fork; entering a used one costs nothing. The pool is as large as
// the most runs at once, bounded; what it holds stays until the host exits, and the
// next host to use cgroups sweeps it away.
var idle struct {
	sync.Mutex
	free []*cgroup
}

const maxIdle = 64

// newContainer returns an empty cgroup for one run, or nil when cgroups are not
// available or not permitted.
func newContainer() container {
	if cgroupsOff.Load() {
		return nil
	}
	var c *cgroup
	idle.Lock()
	if n := len(idle.free); n > 0 {
		c = idle.free[n-1]
		idle.free = idle.free[:n-1]
	}
	idle.Unlock()
	if c == nil {
		root := cgroupRoot()
		if root == "" {
			cgroupsOff.Store(true)
			return nil
		}
		c = &cgroup{parent: root, dir: filepath.Join(root, cgroupPrefix+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(cgroupSeq.Add(1), 10))}
		if err := syscall.Mkdir(c.dir, 0o755); err != nil {
			cgroupsOff.Store(true) // EACCES, EROFS, EAGAIN (max.descendants): not ours to use
			return nil
		}
	}
	// Opened per run, so that idle cgroups hold no descriptor of the host's.
	fd, err := syscall.Open(c.dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		syscall.Rmdir(c.dir)
		cgroupsOff.Store(true)
		return nil
	}
	c.dirfd = fd
	return c
}

const cgroupPrefix = "hookexec-"

// sweep removes the run cgroups of hosts that are gone. rmdir refuses populated
// ones, so nothing still running is touched.
func sweep(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cgroupPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pid, _, _ := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if err != nil || n == os.Getpid() || syscall.Kill(n, 0) != syscall.ESRCH {
			continue
		}
		syscall.Rmdir(filepath.Join(root, e.Name()))
	}
}

// Contained reports whether runs get a cgroup of their own on this host, which is
// what catches processes that leave a hook's process group (setsid, double forks).
func Contained() bool {
	c := newContainer()
	if c == nil {
		return false
	}
	c.release()
	return true
}

// noCgroup disables cgroups after the kernel refused to clone into one (no clone3,
// or a policy that forbids it), so later runs fork as before.
func noCgroup(c container) {
	cgroupsOff.Store(true)
	c.release()
}

type cgroup struct {
	dir, parent string
	dirfd       int
	killed      bool // a cgroup written to cgroup.kill kills whatever enters it later
}

func (c *cgroup) fd() int { return c.dirfd }

// pids lists the processes inside. It reads cgroup.procs through the cgroup's descriptor
// while a run holds one: a path lookup through the cgroup file system and os.ReadFile's
// stat cost several times the read (issue 21: 30 µs against 5 µs of every one-shot run,
// whose release looks here once).
func (c *cgroup) pids() []int {
	var b []byte
	if c.dirfd >= 0 {
		fd, err := syscall.Openat(c.dirfd, "cgroup.procs", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil
		}
		var buf [512]byte
		for {
			n, err := syscall.Read(fd, buf[:])
			if n > 0 {
				b = append(b, buf[:n]...)
				continue
			}
			if err == syscall.EINTR {
				continue
			}
			break
		}
		syscall.Close(fd)
	} else {
		var err error
		if b, err = os.ReadFile(filepath.Join(c.dir, "cgroup.procs")); err != nil {
			return nil
		}
	}
	if len(b) == 0 {
		return nil
	}
	var out []int
	for f := range strings.FieldsSeq(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

func (c *cgroup) signal(sig syscall.Signal) {
	for _, pid := range c.pids() {
		syscall.Kill(pid, sig)
	}
}

func (c *cgroup) kill() {
	// cgroup.kill (Linux 5.14) kills atomically, forks in flight included; before it,
	// signal what is listed until nothing is.
	c.killed = true
	atomicKill := os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) == nil
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		pids := c.pids()
		if len(pids) == 0 {
			return
		}
		if !atomicKill {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// release hands the cgroup back for the next run. Processes still inside
// (background processes the hook left running on purpose) first move to the host's
// cgroup and keep running, as without a cgroup.
func (c *cgroup) release() {
	empty := false
	for range 3 {
		pids := c.pids()
		if empty = len(pids) == 0; empty {
			break
		}
		for _, pid := range pids {
			os.WriteFile(filepath.Join(c.parent, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
		}
	}
	syscall.Close(c.dirfd)
	c.dirfd = -1
	idle.Lock()
	if empty && !c.killed && len(idle.free) < maxIdle && !cgroupsOff.Load() {
		idle.free = append(idle.free, c)
		idle.Unlock()
		return
	}
	idle.Unlock()
	syscall.Rmdir(c.dir) // EBUSY if a process forked past the moves: it stays
}

// findCgroup is the host's cgroup v2 directory when the host may create child
// cgroups in it, else "".
func findCgroup() string {
	rel := ""
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel = p
		}
	}
	if rel == "" || strings.HasSuffix(rel, " (deleted)") {
		return ""
	}
	mnt, root := cgroup2Mount()
	if mnt == "" {
		return ""
	}
	// The mount may show a subtree (a container's cgroup namespace is not at play
	// then): the path is relative to the mount's root.
	if root != "/" {
		r, ok := strings.CutPrefix(rel, root)
		if !ok {
			return ""
		}
		rel = r
	}
	dir := filepath.Join(mnt, rel)
	// Threaded cgroups and cgroups whose controllers forbid children are not tried.
	if t, err := os.ReadFile(filepath.Join(dir, "cgroup.type")); err == nil && !bytes.HasPrefix(t, []byte("domain")) {
		return ""
	}
	if syscall.Access(dir, 2|1) != nil { // W_OK|X_OK
		return ""
	}
	return dir
}

// cgroup2Mount finds the cgroup2 file system's mount point and root in mountinfo.
func cgroup2Mount() (mnt, root string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "id parent major:minor root mountpoint options [optional...] - fstype source superopts"
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 {
			continue
		}
		return unescapeMount(f[4]), unescapeMount(f[3])
	}
	return "", ""
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, ...).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Box is a cgroup for a process started outside Run (a persistent hook's): it holds the
// process and everything it starts, setsid and double forks included, as a run's cgroup
// does. Start the process with SysProcAttr.UseCgroupFD set and CgroupFD = FD().
type Box struct {
	c    container
	once sync.Once
}

// NewBox returns an empty Box, or nil where runs get no cgroup (see Contained).
func NewBox() *Box {
	c := newContainer()
	if c == nil {
		return nil
	}
	return &Box{c: c}
}

// FD is the descriptor of the cgroup to start the process in (SysProcAttr.CgroupFD).
func (b *Box) FD() int { return b.c.fd() }

// Refused says that the kernel refused to start a process in the Box while it started one
// without (no clone3, a policy): later runs and Boxes get no cgroup. The Box is released.
func (b *Box) Refused() { b.once.Do(func() { noCgroup(b.c) }) }

// Close kills every process inside and removes the Box. A second Close does nothing.
func (b *Box) Close() {
	b.once.Do(func() {
		b.c.kill()
		b.c.release()
	})
}
