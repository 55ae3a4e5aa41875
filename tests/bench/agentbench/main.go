// Command agentbench is make bench's third table: the time a PreToolUse guard adds to each
// tool call inside the real Claude Code (the pinned version of tests/live/versions.json,
// driven offline by tests/live/fakeapi), for a Python guard run one-shot by Claude Code
// itself and for the same guard kept persistent through hookexec install (the C client, the
// dispatcher and a warm daemon).
//
// Each session is one `claude -p` whose scripted model asks for -calls Bash tool calls, one
// per turn. A tool call's time is the interval between two consecutive requests of the main
// conversation (the model's answer is immediate: what remains is Claude Code handling the
// call, its hooks and the tool). Sessions of the four kinds — no hook, a /bin/true hook
// (what Claude Code's running any hook costs), the one-shot guard, the guard through
// hookexec — alternate, -sessions of each, and every figure is measured in
// the same run: the added time per call is a kind's median minus the no-hook median, the
// ratio its median over the no-hook median.
//
//	agentbench -hookexec build/hookexec [-calls 20] [-sessions 3]
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
)

var kindNames = [...]string{"no hook", "/bin/true hook (Claude Code runs it)", "Python guard, one-shot (Claude Code runs it)",
	"Python guard, persistent (hookexec install)"}

func main() {
	hookexec := flag.String("hookexec", "build/hookexec", "the hookexec binary (hookexec-hook beside it is what install registers)")
	calls := flag.Int("calls", 20, "Bash tool calls per session")
	sessions := flag.Int("sessions", 3, "sessions of each kind")
	python := flag.String("python", "python3", "the Python that runs the guard")
	flag.Parse()
	if err := run(*hookexec, *python, *calls, *sessions); err != nil {
		fmt.Fprintln(os.Stderr, "agentbench:", err)
		os.Exit(1)
	}
}

func run(hookexec, python string, calls, sessions int) error {
	hookexec, err := filepath.Abs(hookexec)
	if err != nil {
		return err
	}
	claude, version, err := agents.Install(context.Background(), "@anthropic-ai/claude-code", "claude")
	if errors.Is(err, agents.ErrNoNpm) {
		fmt.Println("\nhookexec inside the real agent: skipped:", err)
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
	// One project per kind, made once: the dispatched one keeps its daemon engine (and the
	// guard's process) warm across sessions, as a user's project does.
	projects := map[kind]string{}
	for k := noHook; k <= dispatched; k++ {
		dir, err := setup(root, k, hookexec, python)
		if err != nil {
			return err
		}
		projects[k] = dir
	}
	// A first session of each kind warms what a user's machine has warm (Claude Code's
	// files in the page cache, the daemon's engine and the persistent guard); not counted.
	samples := map[kind][]time.Duration{}
	for s := -1; s < sessions; s++ {
		for k := noHook; k <= dispatched; k++ {
			d, err := session(claude, projects[k], runtime, calls)
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
	fmt.Printf("\nhookexec inside the real agent: Claude Code %s, %d sessions × %d Bash calls per kind (tests/bench/agentbench)\n", version, sessions, calls)
	fmt.Printf("%-48s%12s%12s%14s%10s\n", "", "per call", "p90", "added", "ratio")
	for k := noHook; k <= dispatched; k++ {
		added := "—"
		if k != noHook {
			added = ms(med[k] - med[noHook])
		}
		fmt.Printf("%-48s%12s%12s%14s%9.2f×\n", kindNames[k], ms(med[k]), ms(p90(samples[k])), added, float64(med[k])/float64(med[noHook]))
	}
	one, disp := med[oneShot]-med[noHook], med[dispatched]-med[noHook]
	fmt.Printf("Claude Code's own cost of running a hook (/bin/true): %s per call; hookexec's dispatch and the warm guard on top of it: %s\n",
		ms(med[trueHook]-med[noHook]), ms(med[dispatched]-med[trueHook]))
	fmt.Printf("per tool call the one-shot guard takes %.1f× the time of the guard through hookexec", float64(med[oneShot])/float64(med[dispatched]))
	if disp > 0 {
		fmt.Printf("; the guard adds %.1f× less through hookexec (%s vs %s)\n", float64(one)/float64(disp), ms(disp), ms(one))
	} else {
		fmt.Printf("; through hookexec the guard adds nothing measurable over no hook (%s; one-shot adds %s)\n", ms(disp), ms(one))
	}
	return nil
}

// setup makes a project and a home for one kind and returns the project.
func setup(root string, k kind, hookexec, python string) (string, error) {
	dir := filepath.Join(root, fmt.Sprint(int(k)))
	project, home := filepath.Join(dir, "project"), filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
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
	hook := map[string]any{"type": "command", "command": python + " " + g}
	if k == trueHook {
		hook["command"] = "/bin/true"
	}
	if k == dispatched {
		hook["persistent"] = true // hookexec's; Claude Code ignores it
	}
	settings, _ := json.MarshalIndent(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Bash", "hooks": []any{hook}}}}}, "", "  ")
	if err := os.WriteFile(filepath.Join(project, ".claude", "settings.json"), append(settings, '\n'), 0o644); err != nil {
		return "", err
	}
	if k == dispatched {
		cmd := exec.Command(hookexec, "--project", project, "--home", home, "install", "--agent", "claude")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("hookexec install: %v\n%s", err, out)
		}
	}
	return project, nil
}

// session runs one claude -p with calls Bash tool calls and returns each call's time.
func session(claude, project, runtime string, calls int) ([]time.Duration, error) {
	var script []fakeapi.Turn
	for i := 0; i < calls; i++ {
		script = append(script, fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Bash",
			Input: json.RawMessage(fmt.Sprintf(`{"command": "echo call-%d", "description": "step"}`, i))}}})
	}
	script = append(script, fakeapi.Turn{Text: "done"})
	api := &fakeapi.Anthropic{Script: script}
	base, err := api.Start()
	if err != nil {
		return nil, err
	}
	defer api.Close()
	// 600 s is a hang guard only: a session takes seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
	cmd.Dir = project
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(filepath.Dir(project), "home"), "LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=sk-ant-fake-key-for-offline-tests",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "IS_SANDBOX=1", "HOOKEXEC_RUNTIME_DIR=" + runtime}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("claude: %v\n%s", err, out)
	}
	reqs := api.MainRequests()
	if len(reqs) != calls+1 {
		return nil, fmt.Errorf("claude sent %d requests, want %d (one per tool call and the last): %s", len(reqs), calls+1, out)
	}
	results := api.ToolResults()
	var d []time.Duration
	for i := 1; i < len(reqs); i++ {
		id := fmt.Sprintf("toolu_%d_0", i-1)
		if tr, ok := results[id]; !ok || !strings.Contains(tr.Text, fmt.Sprintf("call-%d", i-1)) {
			return nil, fmt.Errorf("tool call %s did not run: %+v", id, tr)
		}
		d = append(d, reqs[i].At.Sub(reqs[i-1].At))
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
