// Command agentbench is make bench's last tables: the time a PreToolUse guard adds to each
// tool call inside a real agent — Claude Code, and Codex, which starts in milliseconds (the
// pinned versions of tests/live/versions.json, driven offline by tests/live/fakeapi) — for
// a Python guard run one-shot by the agent itself and for the same guard kept persistent
// through hookexec install (the C client, the dispatcher and a warm daemon).
//
// Each session is one `claude -p` (or `codex exec`) whose scripted model asks for -calls
// shell tool calls, one per turn. A tool call's time is the interval between two consecutive requests of the main
// conversation (the model's answer is immediate: what remains is Claude Code handling the
// call, its hooks and the tool). Sessions of the kinds — no hook, a /bin/true hook
// (what Claude Code's running any hook costs), the one-shot guard, the guard through
// hookexec, docs/policy.md's `rm -rf` policy guard in CEL and in Rego through hookexec, and
// with -agentjail the same rule in agentjail's OPA daemon — alternate, -sessions of each,
// and every figure is measured in the same run: the added time per call is a kind's median
// minus the no-hook median, the ratio its median over the no-hook median.
//
//	agentbench -hookexec build/hookexec [-calls 20] [-sessions 3] [-agents claude,codex]
//	           [-kinds true,cel,rego] [-agentjail DIR]
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

const (
	noHook kind = iota
	trueHook
	oneShot
	dispatched
	celPolicy
	regoPolicy
	agentjailKind
	kindCount
)

var kindNames = [...]string{"no hook", "/bin/true hook (the agent runs it)", "Python guard, one-shot (the agent runs it)",
	"Python guard, persistent (hookexec install)", "CEL policy (hookexec install)", "Rego policy (hookexec install)",
	"agentjail (its hook and OPA daemon)"}

// kindFlags are the -kinds names; no hook, the baseline, always runs.
var kindFlags = map[string]kind{"true": trueHook, "oneshot": oneShot, "persistent": dispatched, "cel": celPolicy,
	"rego": regoPolicy, "agentjail": agentjailKind}

// installed reports whether the kind's hooks run through hookexec install.
func (k kind) installed() bool { return k == dispatched || k == celPolicy || k == regoPolicy }

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
	// commands are not permitted"), so no probe can show that an rm -rf rule ran.
	refusesRm bool
	newModel  func(script []fakeapi.Turn) model
	call      func(i int, command string) fakeapi.ToolCall // the i-th shell call
	callID    func(i int) string
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
	only := flag.String("kinds", "true,oneshot,persistent,cel,rego,agentjail",
		"the kinds besides no hook, of: true, oneshot, persistent, cel, rego, agentjail (agentjail only with -agentjail)")
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
	runtime := filepath.Join(root, "run")
	daemon := exec.Command(hookexec, "daemon", "--idle", "10m")
	daemon.Env = []string{"PATH=" + os.Getenv("PATH"), "HOOKEXEC_RUNTIME_DIR=" + runtime}
	if err := daemon.Start(); err != nil {
		return err
	}
	defer func() {
		ask := exec.Command(hookexec, "daemon", "--ask", "shutdown")
		ask.Env = daemon.Env
		_ = ask.Run()
		_ = daemon.Wait()
	}()
	if aj != nil {
		stop, err := aj.start(root)
		if err != nil {
			return fmt.Errorf("agentjail: %w", err)
		}
		defer stop()
	}
	// One project and one fake API per kind, made once: the agent's environment (the API's
	// URL in it) stays the same from session to session, so the daemon keeps the dispatched
	// kind's engine and its guard's process warm across sessions, as on a user's machine.
	var script []fakeapi.Turn
	for i := 0; i < calls; i++ {
		script = append(script, fakeapi.Turn{Tools: []fakeapi.ToolCall{a.call(i, fmt.Sprintf("echo call-%d", i))}})
	}
	// The probe removes a directory outside every project (there is none: rm -f succeeds)
	// and prints; each guard refuses it, the Python guards for its rm -rf, the policies
	// because the path is outside the project. An agent that refuses rm -f itself gets a
	// probe only the Python guards refuse, and no kind with the rm -rf rule.
	probe := fmt.Sprintf("rm -rf %s && echo rm -rf probe | tr a-z A-Z", filepath.Join(root, "probe-absent"))
	if a.refusesRm {
		probe = "echo rm -rf probe | tr a-z A-Z"
		kinds = slices.DeleteFunc(slices.Clone(kinds), func(k kind) bool {
			if k == celPolicy || k == regoPolicy || k == agentjailKind {
				fmt.Printf("%s: %s skipped: %s refuses rm -f commands itself, so no probe shows the rule ran\n", a.title, kindNames[k], a.title)
				return true
			}
			return false
		})
	}
	script = append(script, fakeapi.Turn{Tools: []fakeapi.ToolCall{a.call(calls, probe)}}, fakeapi.Turn{Text: "done"})
	projects, apis, bases := map[kind]string{}, map[kind]model{}, map[kind]string{}
	for _, k := range kinds {
		dir, err := setup(a, root, k, hookexec, python, aj)
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
	// A first round warms what a user's machine has warm (the agent's files in the page
	// cache, the daemon's engine and the persistent guard); not counted.
	samples := map[kind][]time.Duration{}
	for s := -1; s < sessions; s++ {
		for _, k := range kinds {
			d, err := session(a, bin, projects[k], runtime, apis[k], bases[k], calls, k != noHook && k != trueHook)
			if err != nil {
				return fmt.Errorf("%s: %w", kindNames[k], err)
			}
			if s >= 0 {
				samples[k] = append(samples[k], d...)
			}
		}
	}
	med := map[kind]time.Duration{}
	for k, d := range samples {
		med[k] = median(d)
	}
	fmt.Printf("\nhookexec inside the real agent: %s %s, %d sessions × %d shell calls per kind (tests/bench/agentbench)\n", a.title, version, sessions, calls)
	fmt.Printf("%-48s%12s%12s%14s%10s\n", "", "per call", "p90", "added", "ratio")
	for _, k := range kinds {
		added := "—"
		if k != noHook {
			added = ms(med[k] - med[noHook])
		}
		fmt.Printf("%-48s%12s%12s%14s%9.2f×\n", kindNames[k], ms(med[k]), ms(p90(samples[k])), added, float64(med[k])/float64(med[noHook]))
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
	return nil
}

// setup makes a project and a home for one kind and returns the project.
func setup(a benchAgent, root string, k kind, hookexec, python string, aj *agentjail) (string, error) {
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
	case dispatched:
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
		cmd := exec.Command(hookexec, "--project", project, "--home", home, "install", "--agent", a.name)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("hookexec install: %v\n%s", err, out)
		}
	}
	return project, nil
}

// session runs one session of calls shell calls, the script's, on api (which may have served
// earlier sessions) and returns each call's time. The script's last call, which the guard
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
		return nil, fmt.Errorf("the guard did not refuse the probe call: %q", probe.Text)
	case !guarded && !ran:
		return nil, fmt.Errorf("the probe call did not run without the guard: %q", probe.Text)
	}
	return d, nil
}

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
