package main

// The end-to-end harness: every test runs the built hookexec binary (built once by TestMain,
// or $HOOKEXEC_BIN, e.g. build/hookexec from make) in a scenario of its own files.
// Golden files live in testdata/golden; go test ./cmd/hookexec -update rewrites them.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	code, err := buildAndRun(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

func buildAndRun(m *testing.M) (int, error) {
	if b := os.Getenv("HOOKEXEC_BIN"); b != "" {
		abs, err := filepath.Abs(b)
		if err != nil {
			return 0, err
		}
		binary = abs
		return m.Run(), nil
	}
	dir, err := os.MkdirTemp("", "hookexec-cli-test-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "hookexec")
	// Built without -race: the binary is the subject, started hundreds of times. serve's
	// goroutines run under the detector in-process (serve_test.go).
	args := []string{"build", "-o", binary}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("building hookexec: %v", err)
	}
	return m.Run(), nil
}

// scenario is a project and a home directory with files of a test's own.
type scenario struct {
	t       *testing.T
	root    string
	project string
	home    string
	env     []string
}

func newScenario(t *testing.T) *scenario {
	t.Helper()
	root := t.TempDir()
	s := &scenario{t: t, root: root, project: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
	require.NoError(t, os.MkdirAll(s.project, 0o755))
	require.NoError(t, os.MkdirAll(s.home, 0o755))
	return s
}

// write creates a file under the scenario root ("project/..." or "home/...").
func (s *scenario) write(rel, content string) string {
	s.t.Helper()
	p := filepath.Join(s.root, rel)
	require.NoError(s.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(s.t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// script creates an executable file.
func (s *scenario) script(rel, content string) string {
	p := s.write(rel, content)
	require.NoError(s.t, os.Chmod(p, 0o755))
	return p
}

func (s *scenario) read(rel string) string {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.root, rel))
	require.NoError(s.t, err)
	return string(b)
}

type output struct {
	stdout, stderr string
	code           int
}

// run runs hookexec with --project and --home of the scenario before args, in the project.
func (s *scenario) run(args ...string) output {
	s.t.Helper()
	return s.runIn("", args...)
}

// runIn runs hookexec with stdin.
func (s *scenario) runIn(stdin string, args ...string) output {
	s.t.Helper()
	full := append([]string{"--project", s.project, "--home", s.home}, args...)
	cmd := exec.Command(binary, full...)
	cmd.Dir = s.project
	// No daemon unless a test asks for one (with a runtime dir of its own).
	cmd.Env = append(os.Environ(), "HOME="+s.home, "NO_COLOR=", "HOOKEXEC_LOG=", "HOOKEXEC_AUDIT_LOG=", "HOOKEXEC_AUDIT_KEY_FILE=", "HOOKEXEC_DAEMON=off")
	cmd.Env = append(cmd.Env, s.env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	require.NoError(s.t, cmd.Start())
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // a hang guard, not a speed check
		_ = cmd.Process.Kill()
		s.t.Fatalf("hookexec %v did not finish", args)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(s.t, err)
	}
	return output{stdout: out.String(), stderr: errb.String(), code: code}
}

// runCmd runs cmd with stdin and returns what it wrote and its exit code; a command that
// cannot be run at all fails t.
func runCmd(t testing.TB, cmd *exec.Cmd, stdin string) output {
	t.Helper()
	cmd.Stdin = strings.NewReader(stdin)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return output{stdout: o.String(), stderr: e.String(), code: code}
}

var durationRE = regexp.MustCompile(` *\d+(\.\d)?(ms|s)\b`)

// normalise makes output comparable across runs: the scenario root becomes $ROOT and each
// duration becomes "#ms". Durations in table cells (right-aligned, fixed width, so preceded
// by two spaces or more) keep their width, so the alignment is still checked.
func (s *scenario) normalise(text string) string {
	text = strings.ReplaceAll(text, s.root, "$ROOT")
	return durationRE.ReplaceAllStringFunc(text, func(m string) string {
		unit := "ms"
		if !strings.HasSuffix(m, "ms") {
			unit = "s"
		}
		lead := len(m) - len(strings.TrimLeft(m, " "))
		if lead < 2 {
			return strings.Repeat(" ", lead) + "#" + unit
		}
		return strings.Repeat(" ", len(m)-len(unit)-1) + "#" + unit
	})
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./cmd/hookexec -update")
	require.Equal(t, string(want), got, "output differs from %s (go test ./cmd/hookexec -update rewrites it)", path)
}
