//go:build unix

package template

import (
	"bytes"
	gocontext "context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The sandbox of the differential test (shelldiff_test.go): the shells it runs under,
// the recorder and trap programs on its PATH, the traps the hostile values name, and one
// run of a rendered command in a directory of its own.

// requireShellsEnv makes a missing shell a failure instead of a skip (CI sets it).
const requireShellsEnv = "HOOKEXEC_REQUIRE_SHELLS"

// diffShell is a shell /bin/sh may be, and how it is started as sh -c would be.
type diffShell struct {
	name string
	path string   // the binary
	args []string // argv before the script, argv[0] first
	// outside: not a shell hookexec runs commands with; its failures are printed, not failed.
	outside bool
}

// diffShells are the shells the property runs under. zsh runs twice: emulating sh (what
// it does when it is /bin/sh: promised) and native (zsh -c: hookexec never runs a command
// that way, so its failures are only printed; see docs/templates.md).
var diffShells = []diffShell{
	{name: "bash", path: "bash", args: []string{"bash", "-c"}},
	{name: "dash", path: "dash", args: []string{"dash", "-c"}},
	{name: "busybox", path: "busybox", args: []string{"sh", "-c"}},
	{name: "mksh", path: "mksh", args: []string{"mksh", "-c"}},
	{name: "zsh-sh", path: "zsh", args: []string{"zsh", "--emulate", "sh", "-c"}},
	{name: "zsh", path: "zsh", args: []string{"zsh", "-c"}, outside: true},
}

// evilNames are the program names evilbin/ holds: a PATH set to a value finds pwn there.
var evilNames = strings.Fields(`rec recin printf cat sh bash dash mksh ksh zsh busybox ls true false env
	timeout nice nohup setsid stdbuf xargs find sleep git python3 touch echo test [ tee grep sed awk`)

// sandbox is the directory tree the runs share.
type sandbox struct {
	base    string
	bin     string            // rec, recin, pwn, and the aliases the grammar names
	shbin   map[string]string // by shell: a directory whose sh is that shell
	shells  []diffShell
	skipped []string // shells not installed
	evil    []byte   // the script each run directory's evil file holds: it runs pwn
	runs    atomic.Int64
}

func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	base, err := os.MkdirTemp("", "hookexec-shelldiff-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	s := &sandbox{base: base, bin: filepath.Join(base, "bin"), shbin: map[string]string{}}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"bin", "evilbin", "home", "runs", "logs"} {
		must(os.Mkdir(filepath.Join(base, d), 0o755))
	}
	dash, err := exec.LookPath("dash")
	if err != nil {
		dash = "/bin/sh"
	}
	log := func(name string) string { return `"${HXLOG:-` + base + `}/` + name + `"` }
	scripts := map[string]string{
		"rec":   `printf '%s\0' "$#" "$@" >> ` + log("rec.log"),
		"recin": `in=$(cat; printf .); printf '%s\0' "$(($# + 1))" "$@" "${in%.}" >> ` + log("rec.log"),
		"pwn":   `printf '%s\0' "$(($# + 1))" "$0" "$@" >> ` + log("pwn.log") + `; : > XPWN-pwn 2>/dev/null`,
	}
	for name, body := range scripts {
		must(os.WriteFile(filepath.Join(s.bin, name), []byte("#!"+dash+"\n"+body+"\n"), 0o755))
	}
	pwn := filepath.Join(s.bin, "pwn")
	for _, name := range evilNames {
		must(os.Symlink(pwn, filepath.Join(base, "evilbin", name)))
	}
	// evilrepo is a git repository whose configuration runs pwn (core.fsmonitor): a value
	// naming it as a directory makes git read that configuration.
	if git, err := exec.LookPath("git"); err == nil {
		repo := filepath.Join(base, "evilrepo")
		for _, args := range [][]string{{"init", "-q", repo}, {"-C", repo, "config", "core.fsmonitor", pwn + " fsmonitor"}} {
			if out, err := exec.Command(git, args...).CombinedOutput(); err != nil {
				t.Fatalf("git %q: %v: %s", args, err, out)
			}
		}
	}
	s.evil = []byte("#!" + dash + "\n# sourced\n" + pwn + " sourced\n: > XPWN-evil\n")
	// Names the grammar uses for programs that have other names here.
	aliases := map[string]string{"ash": "busybox", "python3.13t": "python3"}
	for alias, target := range aliases {
		if p, err := exec.LookPath(target); err == nil {
			if target == "python3" {
				// pyenv's shim is slow and reads the environment: link the interpreter.
				if out, err := exec.Command(p, "-c", "import sys; print(sys.executable)").Output(); err == nil {
					p = strings.TrimSpace(string(out))
				}
			}
			must(os.Symlink(p, filepath.Join(s.bin, alias)))
		}
	}
	for _, sh := range diffShells {
		p, err := exec.LookPath(sh.path)
		if err != nil {
			if os.Getenv(requireShellsEnv) == "1" {
				t.Fatalf("%s is required (%s=1) and not installed: %v", sh.path, requireShellsEnv, err)
			}
			t.Logf("SKIP shell %s: %s is not installed (set %s=1 to make this a failure)", sh.name, sh.path, requireShellsEnv)
			s.skipped = append(s.skipped, sh.name)
			continue
		}
		sh.path = p
		dir := filepath.Join(base, "sh-"+sh.name)
		must(os.Mkdir(dir, 0o755))
		must(os.Symlink(p, filepath.Join(dir, "sh")))
		s.shbin[sh.name] = dir
		s.shells = append(s.shells, sh)
	}
	return s
}

// outcome is what one run did.
type outcome struct {
	recs    [][]string // recorder calls: tag, then arguments (recin: then standard input)
	pwned   []string   // what the trap recorded, and the XPWN files
	timeout bool
	stderr  string
}

func (o outcome) tags() map[string]bool {
	m := map[string]bool{}
	for _, r := range o.recs {
		if len(r) > 0 {
			m[r[0]] = true
		}
	}
	return m
}

const runTimeout = 20 * time.Second

// run executes argv (argv[0] "/bin/sh" means the shell under test) in a fresh directory.
func (s *sandbox) run(sh diffShell, argv []string) (outcome, error) {
	n := s.runs.Add(1)
	dir := filepath.Join(s.base, "runs", strconv.FormatInt(n, 10))
	logs := filepath.Join(s.base, "logs", strconv.FormatInt(n, 10))
	defer os.RemoveAll(dir)
	defer os.RemoveAll(logs)
	for _, d := range []string{dir, logs} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return outcome{}, err
		}
	}
	// The directories are shared; the files are the run's own, since a value may name one
	// as a file to write (root writes through any permission).
	for _, name := range []string{"evilbin", "evilrepo"} {
		if err := os.Symlink(filepath.Join(s.base, name), filepath.Join(dir, name)); err != nil {
			return outcome{}, err
		}
	}
	for name, body := range map[string][]byte{"evil": s.evil, "hx.txt": []byte("sourced\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o755); err != nil {
			return outcome{}, err
		}
	}
	path := s.shbin[sh.name] + ":" + s.bin + ":/usr/local/bin:/usr/bin:/bin"
	ctx, cancel := gocontext.WithTimeout(gocontext.Background(), runTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if argv[0] == "/bin/sh" {
		cmd = exec.CommandContext(ctx, sh.path, append(slices.Clone(sh.args[1:]), argv[2:]...)...)
		cmd.Args[0] = sh.args[0]
	} else { // a Direct command: exec'd without a shell, found on the sandbox's PATH
		prog, err := lookIn(path, argv[0])
		if err != nil {
			return outcome{}, err
		}
		cmd = exec.CommandContext(ctx, prog, argv[1:]...)
		cmd.Args[0] = argv[0]
	}
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + path, "HXLOG=" + logs, "HOME=" + filepath.Join(s.base, "home"), "LANG=C.UTF-8", "TMPDIR=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limitWriter{w: &stderr, n: 2048}
	runErr := cmd.Run()
	if cmd.Process != nil {
		// Whatever the group left behind dies with it (a background job, a hung pager).
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var o outcome
	o.timeout = ctx.Err() != nil
	o.stderr = stderr.String()
	var ee *exec.ExitError
	if runErr != nil && !errors.As(runErr, &ee) && !o.timeout {
		return o, runErr
	}
	o.recs = readRecords(filepath.Join(logs, "rec.log"))
	for _, r := range readRecords(filepath.Join(logs, "pwn.log")) {
		o.pwned = append(o.pwned, "pwn ran: "+strings.TrimPrefix(strings.Join(r, " "), s.bin+"/"))
	}
	// pwn run without HXLOG (env -i) logs to the sandbox's base: claim it; it may belong
	// to a run in parallel with this one, but it fails the test either way.
	orphan := filepath.Join(logs, "orphan.log")
	if os.Rename(filepath.Join(s.base, "pwn.log"), orphan) == nil {
		for _, r := range readRecords(orphan) {
			o.pwned = append(o.pwned, "pwn ran (without HXLOG: this run or one in parallel): "+strings.Join(r, " "))
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "XPWN") {
			o.pwned = append(o.pwned, "file "+e.Name()+" created")
		}
		// A leaf that hands the value to a data filter writes it to hx.<tag>.
		if tag, ok := strings.CutPrefix(e.Name(), "hx."); ok && e.Type().IsRegular() && strings.HasPrefix(tag, "T") {
			if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				o.recs = append(o.recs, []string{tag, string(b)})
			}
		}
	}
	return o, nil
}

var errNotFound = errors.New("not found on the sandbox PATH")

func lookIn(path, name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, errNotFound)
}

// limitWriter keeps the first n bytes.
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// readRecords parses a log of "count\0field\0..." records.
func readRecords(path string) [][]string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	fields := strings.Split(string(b), "\x00")
	var out [][]string
	for i := 0; i < len(fields); {
		n, err := strconv.Atoi(fields[i])
		if err != nil || i+1+n > len(fields) {
			return append(out, []string{"<unreadable record>", strings.Join(fields[i:], "|")})
		}
		out = append(out, fields[i+1:i+1+n])
		i += 1 + n
		if i == len(fields)-1 && fields[i] == "" {
			break
		}
	}
	return out
}
