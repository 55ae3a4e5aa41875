// Package latest tests tests/live/latest.sh (make test-latest) with a fake npm, which names
// each package's newest release, and a fake go, whose "suite" prints a canned suite log: which
// agents it reruns, and what its report says about drift (vectors, payload fields, events).
// The real run, against real releases, is make test-latest itself.
package latest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// A suite log as tests/live/suite prints it for a release that drifted.
const driftLog = `--- FAIL: TestCodexLive (12.00s)
    --- FAIL: TestCodexLive/deny_rm (3.00s)
Codex 999.0.0 (/cache/@openai+codex@999.0.0/node_modules/.bin/codex):
agree   allow_ls
DIFFER  deny_rm
          PreToolUse: codex ran the tool, hookexec blocked it
3 agree, 1 differ
payload fields: no vector fired SessionEnd this run
payload fields differ from payload_fields.json (check the new fields, then HOOKEXEC_LIVE_UPDATE=1):
  PreToolUse: new fields [effort]
  Interrupt: an event 0.169.0 never fired, fields [cwd]
events added since 0.169.0: Interrupt
events removed since 0.169.0: SessionEnd
events declared that the suite does not record: Interrupt
FAIL
`

const agreeLog = `Claude Code 2.1.330 (/cache/@anthropic-ai+claude-code@2.1.330/node_modules/.bin/claude):
agree   a
2 agree, 0 differ
payload fields: 3 events as 2.1.330 recorded them (every event)
`

type fixture struct {
	t             *testing.T
	out, goLog    string
	latest        map[string]string // package → newest; absent: npm view fails
	logs          map[string]string // agent → its suite's output
	rcs           map[string]int
	pins          map[string]string
	suitePackages map[string]string // agent → package, every suite in tests/live
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	data, err := os.ReadFile("../versions.json")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, out: t.TempDir(), latest: map[string]string{}, logs: map[string]string{}, rcs: map[string]int{},
		suitePackages: map[string]string{}}
	if err := json.Unmarshal(data, &f.pins); err != nil {
		t.Fatal(err)
	}
	for k, v := range f.pins {
		f.latest[k] = v
	}
	suites, _ := filepath.Glob("../*/live_test.go")
	for _, s := range suites {
		src, _ := os.ReadFile(s)
		if i := strings.Index(string(src), `Package: "`); i >= 0 && strings.Contains(string(src), "suite.Agent{") {
			rest := string(src)[i+len(`Package: "`):]
			f.suitePackages[filepath.Base(filepath.Dir(s))] = rest[:strings.Index(rest, `"`)]
		}
	}
	return f
}

// run runs latest.sh with the fakes and returns the report and its exit code.
func (f *fixture) run(env ...string) (string, int) {
	f.t.Helper()
	bin := f.t.TempDir()
	f.goLog = filepath.Join(bin, "go.log")
	var latest strings.Builder
	for pkg, v := range f.latest {
		latest.WriteString(pkg + " " + v + "\n")
	}
	write(f.t, filepath.Join(bin, "latest"), latest.String())
	// npm view --json PKG@latest version: the version from the table, or npm's error.
	write(f.t, filepath.Join(bin, "npm"), `#!/bin/sh
pkg=${3%@latest}
v=$(awk -v p="$pkg" '$1 == p { print $2 }' "$FAKE_BIN/latest")
[ -n "$v" ] || { echo "npm error code E404 $pkg" >&2; exit 1; }
printf '"%s"\n' "$v"
`)
	// go test -c -o OUT ./tests/live/AGENT: OUT prints the agent's canned log, checking it
	// runs as make test-latest runs a suite.
	write(f.t, filepath.Join(bin, "go"), `#!/bin/sh
echo "$@" >>"$FAKE_BIN/go.log"
a=$(basename "$5")
cat >"$4" <<EOF
#!/bin/sh
[ -n "\$HOOKEXEC_LIVE_LATEST" ] || { echo "not in latest mode"; exit 3; }
case "\$PWD" in */tests/live/$a) ;; *) echo "run in \$PWD"; exit 3 ;; esac
cat "$FAKE_BIN/$a.out"
exit \$(cat "$FAKE_BIN/$a.rc")
EOF
chmod +x "$4"
`)
	for a, log := range f.logs {
		write(f.t, filepath.Join(bin, a+".out"), log)
		write(f.t, filepath.Join(bin, a+".rc"), strconv.Itoa(f.rcs[a]))
	}
	cmd := exec.Command("bash", "../latest.sh")
	cmd.Env = append(os.Environ(), "GO="+filepath.Join(bin, "go"), "NPM="+filepath.Join(bin, "npm"), "FAKE_BIN="+bin,
		"LATEST_OUT="+f.out, "LATEST_FORCE=", "LATEST_AGENTS=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		f.t.Fatal(err)
	}
	report, rerr := os.ReadFile(filepath.Join(f.out, "report.md"))
	if rerr != nil {
		f.t.Fatalf("no report: %v\n%s", rerr, out)
	}
	return string(report), code
}

// ran is the agents whose suite the script built.
func (f *fixture) ran() []string {
	data, _ := os.ReadFile(f.goLog)
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if fs := strings.Fields(line); len(fs) > 0 {
			out = append(out, filepath.Base(fs[len(fs)-1]))
		}
	}
	sort.Strings(out)
	return out
}

// row is the report's table row of agent.
func row(report, agent string) string {
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(line, "| "+agent+" |") {
			return line
		}
	}
	return ""
}

func TestLatestEqualToThePinIsNotRerunUnlessForced(t *testing.T) {
	f := newFixture(t)
	f.logs["claude"] = agreeLog
	report, code := f.run("LATEST_AGENTS=claude")
	if code != 0 || len(f.ran()) != 0 {
		t.Fatalf("exit %d, ran %v; want 0 and no suite run\n%s", code, f.ran(), report)
	}
	if r := row(report, "claude"); !strings.Contains(r, "latest = pinned, no new release") {
		t.Errorf("claude's row: %q", r)
	}
	report, code = f.run("LATEST_AGENTS=claude", "LATEST_FORCE=1")
	if code != 0 || strings.Join(f.ran(), " ") != "claude" {
		t.Fatalf("forced: exit %d, ran %v; want 0 and claude's suite\n%s", code, f.ran(), report)
	}
	r := row(report, "claude")
	for _, want := range []string{"2 agree, 0 differ", "3 events as 2.1.330 recorded them", "agrees;", "load "} {
		if !strings.Contains(r, want) {
			t.Errorf("claude's row lacks %q: %q", want, r)
		}
	}
}

func TestLatestDriftIsReported(t *testing.T) {
	f := newFixture(t)
	f.latest["@openai/codex"] = "999.0.0"
	f.logs["codex"], f.rcs["codex"] = driftLog, 1
	report, code := f.run("LATEST_AGENTS=codex")
	if code != 1 {
		t.Errorf("exit %d; a drifted release exits 1", code)
	}
	r := row(report, "codex")
	for _, want := range []string{"| " + f.pins["@openai/codex"] + " | 999.0.0 |", "3 agree, 1 differ", "**drift** (exit 1)",
		"events added since 0.169.0: Interrupt", "events removed since 0.169.0: SessionEnd", "no vector fired SessionEnd"} {
		if !strings.Contains(r, want) {
			t.Errorf("codex's row lacks %q: %q", want, r)
		}
	}
	details := report[strings.Index(report, "## codex"):]
	for _, want := range []string{"DIFFER  deny_rm", "codex ran the tool, hookexec blocked it", "PreToolUse: new fields [effort]",
		"Interrupt: an event 0.169.0 never fired", "events added since 0.169.0: Interrupt", "events removed since 0.169.0: SessionEnd",
		"events declared that the suite does not record: Interrupt", "--- FAIL: TestCodexLive/deny_rm"} {
		if !strings.Contains(details, want) {
			t.Errorf("the details lack %q:\n%s", want, details)
		}
	}
	if strings.Contains(details, "agree   allow_ls") {
		t.Errorf("the details list an agreeing vector:\n%s", details)
	}
}

// Runs of one agent at a time add up to one report; every suite and every pinned package
// without one has a row.
func TestLatestRowsAddUp(t *testing.T) {
	f := newFixture(t)
	f.latest["@openai/codex"] = "999.0.0"
	f.logs["codex"], f.rcs["codex"] = driftLog, 1
	f.logs["claude"] = agreeLog
	f.run("LATEST_AGENTS=codex")
	report, _ := f.run("LATEST_AGENTS=claude")
	if !strings.Contains(row(report, "codex"), "**drift**") || !strings.Contains(row(report, "claude"), "latest = pinned") {
		t.Errorf("the second run lost the first one's row:\n%s", report)
	}
	if !strings.Contains(report, "## codex") {
		t.Errorf("the second run lost the first one's details:\n%s", report)
	}
	for a := range f.suitePackages {
		if a != "codex" && a != "claude" && !strings.Contains(row(report, a), "not run yet") {
			t.Errorf("%s's row: %q", a, row(report, a))
		}
	}
	covered := map[string]bool{}
	for _, pkg := range f.suitePackages {
		covered[pkg] = true
	}
	for pkg, pin := range f.pins {
		if strings.HasPrefix(pkg, "pypi:") || covered[pkg] {
			continue
		}
		if r := row(report, "("+pkg+")"); !strings.Contains(r, "| "+pin+" | "+f.latest[pkg]+" |") || !strings.Contains(r, "no live suite") {
			t.Errorf("the pinned %s without a suite: row %q", pkg, r)
		}
	}
}

func TestLatestRegistryFailureIsReported(t *testing.T) {
	f := newFixture(t)
	delete(f.latest, "@openai/codex")
	report, code := f.run("LATEST_AGENTS=codex")
	if code != 1 || len(f.ran()) != 0 {
		t.Errorf("exit %d, ran %v; want 1 and no suite run", code, f.ran())
	}
	if r := row(report, "codex"); !strings.Contains(r, "npm view @openai/codex failed") || !strings.Contains(r, "E404") {
		t.Errorf("codex's row: %q", r)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}
