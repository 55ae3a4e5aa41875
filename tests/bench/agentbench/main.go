// Command agentbench is make bench's last tables: the time a PreToolUse guard adds to each
// tool call inside a real agent — Claude Code, and Codex, which starts in milliseconds (the
// pinned versions of tests/live/versions.json, driven offline by tests/live/fakeapi) — for
// a Python guard run one-shot by the agent itself, for the same guard kept persistent
// through hookexec install over each transport (the command transport: the C client and a
// warm daemon; the http transport, `install --transport http`, where the build has it), for
// the floor reference (an `http` hook to a minimal Go guard on 127.0.0.1, where the agent
// has http hooks), and for agentjail; then each session's first call apart from its others,
// the daemon's start (spawn to first answer) and its memory at rest and after 1, 5 and 20
// sessions (each read once the daemon's quiet release has run), with issue 30's targets
// beside the figures.
//
// Each session is one `claude -p` (or `codex exec`) whose scripted model asks for -calls
// shell tool calls, one per turn. A tool call's time is the interval between two consecutive requests of the main
// conversation (the model's answer is immediate: what remains is Claude Code handling the
// call, its hooks and the tool). Sessions of the kinds — no hook, a /bin/true hook
// (what Claude Code's running any hook costs), the http reference, the one-shot guard, the
// guard through hookexec over each transport, docs/policy.md's `rm -rf` policy guard in CEL
// and in Rego through hookexec, and with -agentjail agentjail's OPA daemon with its inline
// rm -rf rule — alternate, -sessions of each, and every figure is measured in the same run:
// a session's first call is kept apart; the added time per call is a kind's median over
// the other calls minus the no-hook median, the ratio its median over the no-hook median.
//
//	agentbench -hookexec build/hookexec [-calls 20] [-sessions 3] [-agents claude,codex]
//	           [-kinds true,http,cel,rego] [-agentjail DIR]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/daemon"
	"github.com/hookexec/hookexec/tests/live/agents"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
)

// guard is the same guard as tests/bench/bench_dispatch.py's: it refuses rm -rf, one-shot
// (a payload on stdin, exit 2 to block) or persistent (one JSON line per call).
const guard = `import json, sys
def answer(event):
    cmd = event.get("tool_input", {}).get("command", "")
    if "rm -rf" in cmd:
        return {"exit_code": 2, "stderr": "rm -rf is not allowed"}
    return {}
if __name__ == "__main__":
    import os
    if os.environ.get("HOOKEXEC_PERSISTENT"):
        for line in sys.stdin:
            print(json.dumps(answer(json.loads(line))), flush=True)
    else:
        a = answer(json.load(sys.stdin))
        sys.stderr.write(a.get("stderr", ""))
        sys.exit(a.get("exit_code", 0))
`

type kind int

// httpDir is the http transport's directory (HOOKEXEC_HTTP_DIR) in a run with its row.
var httpDir string

const (
	noHook kind = iota
	trueHook
	httpRef
	oneShot
	dispatched
	httpTransport
	celPolicy
	regoPolicy
	agentjailKind
)

var kindNames = [...]string{"no hook", "/bin/true hook (the agent runs it)", "http hook to a Go guard (the floor)",
	"Python guard, one-shot (the agent runs it)", "Python guard, hookexec, command transport",
	"Python guard, hookexec, http transport", "CEL policy (hookexec install)", "Rego policy (hookexec install)",
	"agentjail (its hook and OPA daemon)"}

// kindFlags are the -kinds names; no hook, the baseline, always runs.
var kindFlags = map[string]kind{"true": trueHook, "http": httpRef, "oneshot": oneShot, "persistent": dispatched,
	"http-transport": httpTransport, "cel": celPolicy, "rego": regoPolicy, "agentjail": agentjailKind}

// installed reports whether the kind's hooks run through hookexec install (and so through
// the bench's daemon).
func (k kind) installed() bool {
	return k == dispatched || k == httpTransport || k == celPolicy || k == regoPolicy
}

// model is a fake model API the bench drives.
type model interface {
	Start() (string, error)
	Close() error
	MainRequests() []fakeapi.Request
	ToolResults() map[string]fakeapi.ToolResult
}

// benchAgent is what differs between the agents.
type benchAgent struct {
	name, title, pkg, bin string
	settings              string // the project's hooks file, relative to the project
	// refusesRm: the agent itself refuses a command running rm -f (Codex: "rm -f style
	// commands are not permitted"), so no probe can show that a rule on the path ran.
	refusesRm bool
	// noHTTP says why the agent has no `http` hook; empty when it has one.
	noHTTP   string
	newModel func(script []fakeapi.Turn) model
	call     func(i int, command string) fakeapi.ToolCall // the i-th shell call
	callID   func(i int) string
	// command is the agent's command for a session; dir holds the kind's project and home.
	command func(bin, dir, base string) (*exec.Cmd, error)
}

var benchAgents = map[string]benchAgent{
	"claude": {
		name: "claude", title: "Claude Code", pkg: "@anthropic-ai/claude-code", bin: "claude", settings: ".claude/settings.json",
		newModel: func(script []fakeapi.Turn) model { return &fakeapi.Anthropic{Script: script} },
		call: func(_ int, command string) fakeapi.ToolCall {
			in, _ := json.Marshal(map[string]string{"command": command, "description": "step"})
			return fakeapi.ToolCall{Name: "Bash", Input: in}
		},
		callID: func(i int) string { return fmt.Sprintf("toolu_%d_0", i) },
		command: func(bin, dir, base string) (*exec.Cmd, error) {
			cmd := exec.Command(bin, "-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
			cmd.Env = []string{"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=sk-ant-fake-key-for-offline-tests",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
				"DISABLE_ERROR_REPORTING=1", "IS_SANDBOX=1"}
			return cmd, nil
		},
	},
	"codex": {
		name: "codex", title: "Codex", pkg: "@openai/codex", bin: "codex", settings: ".codex/hooks.json", refusesRm: true,
		// Its binary's HookHandlerConfig variants (0.169.0): Command, Prompt, Agent, McpTool.
		noHTTP:   "its hook handlers are command, prompt, agent and mcp_tool (HookHandlerConfig in its binary): no http",
		newModel: func(script []fakeapi.Turn) model { return (&fakeapi.Responses{}).With(script) },
		call: func(_ int, command string) fakeapi.ToolCall {
			in, _ := json.Marshal(map[string]string{"cmd": command})
			return fakeapi.ToolCall{Name: "exec_command", Input: in}
		},
		callID: func(i int) string { return fmt.Sprintf("call_%d_0", i) },
		command: func(bin, dir, base string) (*exec.Cmd, error) {
			// As tests/live/codex: a fake Responses provider, the project trusted, hooks run
			// without hash approval.
			codexHome := filepath.Join(dir, "codex-home")
			if err := os.MkdirAll(codexHome, 0o700); err != nil {
				return nil, err
			}
			config := fmt.Sprintf("model = \"fake-model\"\nmodel_provider = \"fake\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n\n"+
				"[model_providers.fake]\nname = \"fake\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"FAKE_OPENAI_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n"+
				"[projects.%q]\ntrust_level = \"trusted\"\n\n[analytics]\nenabled = false\n\n[otel]\nexporter = \"none\"\n",
				base, filepath.Join(dir, "project"))
			if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
				return nil, err
			}
			cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
				"--dangerously-bypass-hook-trust", "--ephemeral", "--color", "never", "go")
			cmd.Env = []string{"CODEX_HOME=" + codexHome, "FAKE_OPENAI_KEY=fake-key-for-offline-tests", "RUST_LOG=error"}
			return cmd, nil
		},
	},
}

func main() {
	hookexec := flag.String("hookexec", "build/hookexec", "the hookexec binary (hookexec-hook beside it is what install registers)")
	calls := flag.Int("calls", 20, "shell tool calls per session")
	sessions := flag.Int("sessions", 3, "sessions of each kind")
	python := flag.String("python", "python3", "the Python that runs the guard")
	names := flag.String("agents", "claude,codex", "the agents to run, of: claude, codex")
	only := flag.String("kinds", "true,http,oneshot,persistent,http-transport,cel,rego,agentjail",
		"the kinds besides no hook, of: true, http, oneshot, persistent, http-transport, cel, rego, agentjail (agentjail only with -agentjail)")
	ajSource := flag.String("agentjail", os.Getenv("HOOKEXEC_BENCH_AGENTJAIL"),
		"agentjail's source tree (github.com/LuD1161/agentjail): its hook and daemon are built from it and run with the same rm -rf rule; without it no agentjail row")
	flag.Parse()
	kinds := []kind{noHook}
	for _, name := range strings.Split(*only, ",") {
		k, ok := kindFlags[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "agentbench: unknown kind %q\n", name)
			os.Exit(2)
		}
		if k != agentjailKind || *ajSource != "" {
			kinds = append(kinds, k)
		}
	}
	var aj *agentjail
	if *ajSource != "" && slices.Contains(kinds, agentjailKind) {
		var err error
		if aj, err = buildAgentjail(*ajSource); err != nil {
			fmt.Fprintf(os.Stderr, "agentbench: agentjail: %v\n", err)
			os.Exit(1)
		}
	}
	for _, name := range strings.Split(*names, ",") {
		a, ok := benchAgents[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "agentbench: unknown agent %q\n", name)
			os.Exit(2)
		}
		if err := run(a, *hookexec, *python, *calls, *sessions, kinds, aj); err != nil {
			fmt.Fprintf(os.Stderr, "agentbench: %s: %v\n", a.title, err)
			os.Exit(1)
		}
	}
}

func run(a benchAgent, hookexec, python string, calls, sessions int, kinds []kind, aj *agentjail) error {
	hookexec, err := filepath.Abs(hookexec)
	if err != nil {
		return err
	}
	// The guards run from the project directory: a relative -python (build/venv/bin/python)
	// is made absolute here; a bare name (python3) is looked up on PATH as the shell would.
	if strings.ContainsRune(python, filepath.Separator) {
		if python, err = filepath.Abs(python); err != nil {
			return err
		}
	}
	bin, version, err := agents.Install(context.Background(), a.pkg, a.bin)
	if errors.Is(err, agents.ErrNoNpm) {
		fmt.Printf("\nhookexec inside %s: skipped: %v\n", a.title, err)
		return nil
	}
	if err != nil {
		return err
	}
	if python, err = exec.LookPath(python); err != nil {
		return err
	}
	root, err := os.MkdirTemp("", "hookexec-agentbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	load0 := loadAvg()
	// The kinds this agent and this build can run; each one left out says why.
	transport, err := hasHTTPTransport(hookexec)
	if err != nil {
		return err
	}
	kinds = slices.DeleteFunc(slices.Clone(kinds), func(k kind) bool {
		why := ""
		switch {
		case (k == httpRef || k == httpTransport) && a.noHTTP != "":
			why = a.title + " " + version + ": " + a.noHTTP
		case k == httpTransport && !transport:
			why = "not available in this build (`hookexec install --help` has no --transport)"
		case a.refusesRm && (k == celPolicy || k == regoPolicy):
			why = a.title + " refuses rm -f commands itself, so no probe shows that a rule on the path ran"
		}
		if why != "" {
			fmt.Printf("%s: %s: %s\n", a.title, kindNames[k], why)
		}
		return why != ""
	})
	// The daemon's start, spawn to first answer: five daemons started and stopped in turn,
	// then the one the sessions use.
	starts, err := startTimes(hookexec, root, 5)
	if err != nil {
		return err
	}
	runtime := filepath.Join(root, "run")
	httpDir = ""
	if slices.Contains(kinds, httpTransport) {
		// The http transport's port and secret, before the daemon starts (it reads them
		// then); install --transport http finds and keeps them.
		httpDir = filepath.Join(root, "http")
		if _, err := daemon.SetupHTTP(httpDir); err != nil {
			return err
		}
	}
	d, took, err := startDaemon(hookexec, runtime)
	if err != nil {
		return err
	}
	defer d.stop()
	starts = append(starts, took)
	mems := []memory{}
	rest, err := daemonMemory(runtime, "at rest")
	if err != nil {
		return err
	}
	mems = append(mems, rest)
	var guardURL string
	if slices.Contains(kinds, httpRef) {
		g, err := startHTTPGuard()
		if err != nil {
			return fmt.Errorf("the http guard: %w", err)
		}
		defer g.Close()
		guardURL = g.url
	}
	if aj != nil && slices.Contains(kinds, agentjailKind) {
		stop, err := aj.start(root)
		if err != nil {
			return fmt.Errorf("agentjail: %w", err)
		}
		defer stop()
	}
	// One project and one fake API per kind, made once: the agent's environment (the API's
	// URL in it) stays the same from session to session, as on a user's machine; the
	// agent still gives each session's hooks an environment of its own (its session id).
	var script []fakeapi.Turn
	for i := 0; i < calls; i++ {
		script = append(script, fakeapi.Turn{Tools: []fakeapi.ToolCall{a.call(i, fmt.Sprintf("echo call-%d", i))}})
	}
	// The probe removes a directory outside every project (there is none: rm -f succeeds)
	// and prints; each guard refuses it, those matching "rm -rf" for its text, the policies
	// because the path is outside the project. An agent that refuses rm -f itself gets a
	// probe only the guards matching the text refuse, and no kind with the path rule.
	probe := fmt.Sprintf("rm -rf %s && echo rm -rf probe | tr a-z A-Z", filepath.Join(root, "probe-absent"))
	if a.refusesRm {
		probe = "echo rm -rf probe | tr a-z A-Z"
	}
	script = append(script, fakeapi.Turn{Tools: []fakeapi.ToolCall{a.call(calls, probe)}}, fakeapi.Turn{Text: "done"})
	projects, apis, bases := map[kind]string{}, map[kind]model{}, map[kind]string{}
	for _, k := range kinds {
		dir, err := setup(a, root, k, hookexec, python, guardURL, aj)
		if err != nil {
			return err
		}
		projects[k] = dir
		apis[k] = a.newModel(script)
		if bases[k], err = apis[k].Start(); err != nil {
			return err
		}
		defer apis[k].Close()
	}
	// served counts the sessions through the daemon; its memory is read after the 1st, 5th
	// and 20th.
	served := 0
	afterSession := func(k kind) error {
		if !k.installed() {
			return nil
		}
		served++
		if served == 1 || served == 5 || served == 20 {
			m, err := daemonMemory(runtime, fmt.Sprintf("after %d session(s)", served))
			if err != nil {
				return err
			}
			mems = append(mems, m)
		}
		return nil
	}
	// A first round warms what a user's machine has warm (the agent's files in the page
	// cache, the daemon's engines and the persistent guard); not counted.
	// agentjail's hook fails open (it allows the call) when its daemon has not answered
	// within 45 ms: on a loaded machine some of its sessions let the probe through. That is
	// its behaviour, counted and reported; every other guard letting it through fails the
	// bench.
	first, other := map[kind][]time.Duration{}, map[kind][]time.Duration{}
	leaked := 0
	for s := -1; s < sessions; s++ {
		for _, k := range kinds {
			d, err := session(a, bin, projects[k], runtime, apis[k], bases[k], calls, k != noHook && k != trueHook)
			if k == agentjailKind && errors.Is(err, errProbeRan) {
				leaked++
				err = nil
			}
			if err != nil {
				return fmt.Errorf("%s: %w", kindNames[k], err)
			}
			if s >= 0 {
				first[k] = append(first[k], d[0])
				other[k] = append(other[k], d[1:]...)
			}
			if err := afterSession(k); err != nil {
				return err
			}
		}
	}
	// Up to 20 sessions through the daemon (untimed): more of the first installed kind.
	if i := slices.IndexFunc(kinds, kind.installed); i >= 0 {
		for k := kinds[i]; served < 20; {
			if _, err := session(a, bin, projects[k], runtime, apis[k], bases[k], calls, true); err != nil {
				return fmt.Errorf("%s: %w", kindNames[k], err)
			}
			if err := afterSession(k); err != nil {
				return err
			}
		}
	}
	load1 := loadAvg()
	report(a, version, calls, sessions, kinds, first, other, starts, mems, aj, load0, load1)
	if leaked > 0 {
		fmt.Printf("agentjail let the probe through in %d of its %d sessions: its hook fails open when its daemon has not answered within 45 ms\n",
			leaked, sessions+1)
	}
	return nil
}

// report prints the run's tables and issue 30's targets beside the figures.
func report(a benchAgent, version string, calls, sessions int, kinds []kind, first, other map[kind][]time.Duration,
	starts []time.Duration, mems []memory, aj *agentjail, load0, load1 string) {
	med, med1 := map[kind]time.Duration{}, map[kind]time.Duration{}
	for k := range other {
		med[k], med1[k] = median(other[k]), median(first[k])
	}
	fmt.Printf("\nhookexec inside the real agent: %s %s, %d sessions × %d shell calls per kind, in turns; load %s → %s (tests/bench/agentbench)\n",
		a.title, version, sessions, calls, load0, load1)
	fmt.Printf("%-46s%12s%11s%11s%8s%13s%13s\n", "", "other calls", "p90", "added", "ratio", "first call", "first/other")
	for _, k := range kinds {
		added := "—"
		if k != noHook {
			added = ms(med[k] - med[noHook])
		}
		fmt.Printf("%-46s%12s%11s%11s%7.2f×%13s%12.2f×\n", kindNames[k], ms(med[k]), ms(p90(other[k])), added,
			float64(med[k])/float64(med[noHook]), ms(med1[k]), float64(med1[k])/float64(med[k]))
	}
	has := func(ks ...kind) bool {
		for _, k := range ks {
			if _, ok := med[k]; !ok {
				return false
			}
		}
		return true
	}
	if has(trueHook, dispatched) {
		fmt.Printf("%s's own cost of running a hook (/bin/true): %s per call; hookexec's dispatch and the warm guard on top of it: %s\n",
			a.title, ms(med[trueHook]-med[noHook]), ms(med[dispatched]-med[trueHook]))
	}
	if has(oneShot, dispatched) {
		one, disp := med[oneShot]-med[noHook], med[dispatched]-med[noHook]
		fmt.Printf("per tool call the one-shot guard takes %.1f× the time of the guard through hookexec", float64(med[oneShot])/float64(med[dispatched]))
		if disp > 0 {
			fmt.Printf("; the guard adds %.1f× less through hookexec (%s vs %s)\n", float64(one)/float64(disp), ms(disp), ms(one))
		} else {
			fmt.Printf("; through hookexec the guard adds nothing measurable over no hook (%s; one-shot adds %s)\n", ms(disp), ms(one))
		}
	}
	for _, k := range []kind{celPolicy, regoPolicy} {
		var than []string
		for _, base := range []kind{trueHook, agentjailKind} {
			if has(k, base) {
				than = append(than, fmt.Sprintf("%s over %s", ms(med[k]-med[base]), kindNames[base]))
			}
		}
		if len(than) > 0 {
			fmt.Printf("%s per call: %s\n", kindNames[k], strings.Join(than, "; "))
		}
	}
	fmt.Printf("\nthe daemon (the one the sessions used, %s)\n", a.title)
	sorted := slices.Clone(starts)
	slices.Sort(sorted)
	fmt.Printf("start, spawn to first answer: median %s (%s–%s, %d starts)\n", ms(median(starts)), ms(sorted[0]), ms(sorted[len(sorted)-1]), len(starts))
	fmt.Printf("%-22s%12s%14s%9s%28s\n", "memory", "RSS", "of it anon", "engines", "hook processes (RSS)")
	for _, m := range mems {
		fmt.Printf("%-22s%12s%14s%9d%28s\n", m.label, mib(m.rss), mib(m.anon), m.engines, fmt.Sprintf("%d (%s)", m.children, mib(m.childrenRSS)))
	}
	if aj != nil && aj.pid != 0 && has(agentjailKind) {
		if rss, err := procStatus(aj.pid, "VmRSS"); err == nil {
			fmt.Printf("agentjail's daemon after its sessions: RSS %s\n", mib(rss))
		}
	}

	fmt.Printf("\ntargets (issue 30), this run:\n")
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "MISSED"
	}
	// ratio of two added times; a reference adding nothing measurable gives no ratio.
	ratio := func(k, ref kind, limit float64) string {
		if !has(k, ref) {
			return "no figure"
		}
		got, base := med[k]-med[noHook], med[ref]-med[noHook]
		if got <= 0 {
			return fmt.Sprintf("adds nothing measurable (%s; the reference %s) met", ms(got), ms(base))
		}
		if base <= 0 {
			return fmt.Sprintf("%s vs %s: the reference adds nothing measurable, no ratio", ms(got), ms(base))
		}
		r := float64(got) / float64(base)
		return fmt.Sprintf("%s / %s = %.2f× %s", ms(got), ms(base), r, verdict(r <= limit))
	}
	guards := []kind{}
	for _, k := range []kind{dispatched, httpTransport} {
		if has(k) {
			guards = append(guards, k)
		}
	}
	for _, t := range []struct {
		ref   kind
		limit float64
		name  string
	}{{httpRef, 1.15, "the http reference's"}, {agentjailKind, 0.6, "agentjail's"}} {
		var parts []string
		for _, k := range guards {
			parts = append(parts, kindNames[k]+": "+ratio(k, t.ref, t.limit))
		}
		if !has(t.ref) {
			parts = []string{"no " + kindNames[t.ref] + " row in this run"}
		}
		fmt.Printf("- hookexec's added ≤ %.2f× %s added: %s\n", t.limit, t.name, strings.Join(parts, "; "))
	}
	// The agent's own first tool call is slower with no hook at all (its shell starts), so the
	// raw ratio is printed for the record and the target is read on what the guard adds: to a
	// session's first call over the no-hook first call, against what it adds to the others.
	var parts, raw []string
	for _, k := range guards {
		raw = append(raw, fmt.Sprintf("%s %.2f×", kindNames[k], float64(med1[k])/float64(med[k])))
		add1, add := med1[k]-med1[noHook], med[k]-med[noHook]
		switch {
		case add1 <= add:
			parts = append(parts, fmt.Sprintf("%s: adds %s to a first call, %s to the others, met", kindNames[k], ms(add1), ms(add)))
		case add <= 0:
			parts = append(parts, fmt.Sprintf("%s: adds %s to a first call, nothing measurable to the others (%s), no ratio", kindNames[k], ms(add1), ms(add)))
		default:
			r := float64(add1) / float64(add)
			parts = append(parts, fmt.Sprintf("%s: adds %s to a first call / %s to the others = %.2f× %s", kindNames[k], ms(add1), ms(add), r, verdict(r <= 1.2)))
		}
	}
	fmt.Printf("- a session's first call ≤ 1.2× its other calls, read on what the guard adds (medians over %d sessions): %s\n  raw first/other: %s; no hook %.2f× (the agent's own first call)\n",
		sessions, strings.Join(parts, "; "), strings.Join(raw, ", "), float64(med1[noHook])/float64(med[noHook]))
	// Flat is read from the first reading after which the daemon holds the engines and hook
	// processes it holds after 20 sessions: the bench's installed kinds are projects of
	// their own, each with its engine, so the readings before the last kind's first session
	// grow by engines, not by sessions.
	var one, twenty *memory
	for i := range mems {
		if mems[i].label == "after 20 session(s)" {
			twenty = &mems[i]
		}
	}
	for i := range mems {
		if twenty != nil && mems[i].label != "at rest" && mems[i].engines == twenty.engines && mems[i].children == twenty.children {
			one = &mems[i]
			break
		}
	}
	worst := 0
	for _, m := range mems {
		worst = max(worst, m.rss)
	}
	fmt.Printf("- daemon RSS ≤ 30 MiB plus the hook processes it keeps: at most %s %s", mib(worst), verdict(worst <= 30*1024))
	if one != nil && twenty != nil {
		r := float64(twenty.rss) / float64(one.rss)
		fmt.Printf("; flat over sessions (≤ 1.05×), %s → after 20 (%d engines, %d hook processes in both): %.2f× %s",
			one.label, twenty.engines, twenty.children, r, verdict(r <= 1.05))
	}
	fmt.Println()
}

// hasHTTPTransport reports whether this build's install has --transport (issue 30's http
// transport, `install --agent claude --transport http`).
func hasHTTPTransport(hookexec string) (bool, error) {
	out, err := exec.Command(hookexec, "install", "--help").CombinedOutput()
	if err != nil {
		return false, fmt.Errorf("hookexec install --help: %v\n%s", err, out)
	}
	return strings.Contains(string(out), "--transport"), nil
}

// loadAvg is the machine's load average over the last minute.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// setup makes a project and a home for one kind and returns the project.
// guardURL is the http guard's (for httpRef).
func setup(a benchAgent, root string, k kind, hookexec, python, guardURL string, aj *agentjail) (string, error) {
	dir := filepath.Join(root, fmt.Sprint(int(k)))
	project, home := filepath.Join(dir, "project"), filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Dir(filepath.Join(project, a.settings)), 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return "", err
	}
	if k == noHook {
		return project, nil
	}
	g := filepath.Join(dir, "guard.py")
	if err := os.WriteFile(g, []byte(guard), 0o644); err != nil {
		return "", err
	}
	group := map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": python + " " + g}}}
	switch k {
	case trueHook:
		group["hooks"] = []any{map[string]any{"type": "command", "command": "/bin/true"}}
	case httpRef:
		group["hooks"] = []any{map[string]any{"type": "http", "url": guardURL}}
	case dispatched, httpTransport:
		group["hooks"].([]any)[0].(map[string]any)["persistent"] = true // hookexec's; Claude Code ignores it
	case celPolicy, regoPolicy:
		rule, err := docRule()
		if err != nil {
			return "", err
		}
		group = rule.cel
		if k == regoPolicy {
			group = rule.rego // its module: guards/rmrf.rego beside the settings file
			guards := filepath.Join(filepath.Dir(filepath.Join(project, a.settings)), "guards")
			if err := os.MkdirAll(guards, 0o755); err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(guards, "rmrf.rego"), []byte(rule.module), 0o644); err != nil {
				return "", err
			}
		}
	case agentjailKind:
		group["hooks"] = []any{map[string]any{"type": "command", "command": aj.hookCommand(a.name)}}
	}
	settings, _ := json.MarshalIndent(map[string]any{"hooks": map[string]any{"PreToolUse": []any{group}}}, "", "  ")
	if err := os.WriteFile(filepath.Join(project, a.settings), append(settings, '\n'), 0o644); err != nil {
		return "", err
	}
	if k.installed() {
		scopes := [][]string{nil}
		if k == httpTransport {
			// The user's install carries the transport's secret, which the project's needs.
			scopes = [][]string{{"--user", "--transport", "http"}, {"--transport", "http"}}
		}
		for _, scope := range scopes {
			args := append([]string{"--project", project, "--home", home, "install", "--agent", a.name}, scope...)
			cmd := exec.Command(hookexec, args...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
			if httpDir != "" {
				cmd.Env = append(cmd.Env, "HOOKEXEC_HTTP_DIR="+httpDir)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				return "", fmt.Errorf("hookexec install: %v\n%s", err, out)
			}
		}
	}
	return project, nil
}

// session runs one session of calls shell calls, the script's, on api (which may have served
// earlier sessions) and returns each call's time, the session's first call first. The script's last call, which the guard
// refuses ("echo rm -rf probe | tr a-z A-Z", not timed), shows that the guard did run
// (guarded) or that nothing refused it.
func session(a benchAgent, bin, project, runtime string, api model, base string, calls int, guarded bool) ([]time.Duration, error) {
	before := len(api.MainRequests())
	dir := filepath.Dir(project)
	c, err := a.command(bin, dir, base)
	if err != nil {
		return nil, err
	}
	// 600 s is a hang guard only: a session takes seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Path, c.Args[1:]...)
	cmd.Dir = project
	cmd.Env = append(c.Env, "PATH="+os.Getenv("PATH"), "HOME="+filepath.Join(dir, "home"), "LANG=C.UTF-8",
		"HOOKEXEC_RUNTIME_DIR="+runtime)
	if httpDir != "" {
		cmd.Env = append(cmd.Env, "HOOKEXEC_HTTP_DIR="+httpDir)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", a.bin, err, out)
	}
	reqs := api.MainRequests()[before:]
	if len(reqs) != calls+2 {
		return nil, fmt.Errorf("%s sent %d requests, want %d (one per tool call and the last): %s", a.bin, len(reqs), calls+2, out)
	}
	results := api.ToolResults()
	var d []time.Duration
	for i := 1; i <= calls; i++ {
		id := a.callID(i - 1)
		if tr, ok := results[id]; !ok || !strings.Contains(tr.Text, fmt.Sprintf("call-%d", i-1)) {
			return nil, fmt.Errorf("tool call %s did not run: %+v", id, tr)
		}
		d = append(d, reqs[i].At.Sub(reqs[i-1].At))
	}
	probe, ok := results[a.callID(calls)]
	switch ran := strings.Contains(probe.Text, "RM -RF PROBE"); {
	case !ok:
		return nil, fmt.Errorf("no result for the probe call %s", a.callID(calls))
	case guarded && ran:
		return d, fmt.Errorf("%w: %q", errProbeRan, probe.Text)
	case !guarded && !ran:
		return nil, fmt.Errorf("the probe call did not run without the guard: %q", probe.Text)
	}
	return d, nil
}

// errProbeRan: the session's guard did not refuse the probe.
var errProbeRan = errors.New("the guard did not refuse the probe call")

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func p90(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*9/10)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
