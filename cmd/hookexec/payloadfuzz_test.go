//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/serve"
)

// make fuzz runs the long form: more payloads, sizes up to past serve.MaxMessageBytes,
// nesting up to 100000.
var payloadFuzzLong = flag.Bool("payloadfuzz.long", false, "the long form of TestInstalledDispatcherFuzz")

// fuzzAgent is an agent the dispatcher is installed for, with a deny-all guard on the event
// before a tool runs.
type fuzzAgent struct {
	name, settings, event, tool, projectEnv string
	timeout                                 int // the guard's timeout in the agent's unit
}

var fuzzAgents = []fuzzAgent{
	{"claude", ".claude/settings.json", "PreToolUse", "Bash", "CLAUDE_PROJECT_DIR", 30},
	{"codex", ".codex/hooks.json", "PreToolUse", "Bash", "", 30},
	{"gemini", ".gemini/settings.json", "BeforeTool", "run_shell_command", "GEMINI_PROJECT_DIR", 30000},
	{"qwen", ".qwen/settings.json", "PreToolUse", "run_shell_command", "QWEN_PROJECT_DIR", 30},
}

// stopsTool reads a dispatcher's answer before a tool call as the agent does: true when
// the tool does not run (exit 2; or exit 0 with JSON that denies, blocks, asks where the
// agent can ask, or stops). Exit 1, another status, or exit 0 without such JSON: it runs.
func stopsTool(agent string, code int, stdout []byte) bool {
	if code == 2 {
		return true
	}
	if code != 0 {
		return false
	}
	var out struct {
		Continue           *bool
		Decision           string
		Permission         string // Cursor
		PermissionDecision string // Copilot CLI
		HookSpecificOutput struct{ PermissionDecision string }
	}
	if len(bytes.TrimSpace(stdout)) == 0 || json.Unmarshal(stdout, &out) != nil {
		return false
	}
	stopped := out.Continue != nil && !*out.Continue
	d := out.HookSpecificOutput.PermissionDecision
	switch agent {
	case "cursor":
		return stopped || out.Permission == "deny" || out.Permission == "ask"
	case "copilot":
		return stopped || out.PermissionDecision == "deny" || out.PermissionDecision == "ask"
	case "windsurf": // the exit status only
		return false
	case "codex": // Codex fails an ask or a continue:false before a tool open
		return d == "deny" || out.Decision == "block"
	case "gemini":
		return stopped || out.Decision == "deny" || out.Decision == "block" || out.Decision == "ask"
	}
	return stopped || d == "deny" || d == "ask" || out.Decision == "block"
}

// fuzzPayloads generates the payloads: a valid call around a hostile tool_input (nesting,
// size, Unicode and invalid UTF-8, duplicate keys, huge numbers), truncations of them, and
// payloads that are no call at all.
func fuzzPayloads(r *rand.Rand, ag fuzzAgent, project string, n int, long bool) [][]byte {
	call := func(input string) []byte {
		if ag.name == "windsurf" { // the tool's input is tool_info
			return []byte(`{"agent_action_name":"` + ag.event + `","trajectory_id":"t","cwd":"` + project + `","tool_info":` + input + `}`)
		}
		return []byte(`{"session_id":"s1","transcript_path":"/dev/null","cwd":"` + project + `","hook_event_name":"` + ag.event +
			`","tool_name":"` + ag.tool + `","tool_use_id":"t` + fmt.Sprint(r.Int()) + `","tool_input":` + input + `}`)
	}
	depths := []int{299, 300, 301, 1000, 5000, payload.MaxDepth - 3, payload.MaxDepth + 1, 3 * payload.MaxDepth}
	sizes := []int{1 << 10, 64 << 10, 1 << 20}
	if long {
		depths = append(depths, 100000)
		sizes = append(sizes, 8<<20, serve.MaxMessageBytes-4096, serve.MaxMessageBytes+1)
	}
	nasty := []string{`\ud800`, `\udfff\ud800`, `\u0000`, "\xff", "\xc3\x28", "\xed\xa0\x80", "\u2028", `\"`, `\\`, "\U0001F600", "é"}
	fixed := [][]byte{nil, []byte(" \n"), []byte("[]"), []byte("null"), []byte(`"` + ag.event + `"`), []byte("1"), []byte("{}"),
		[]byte(`{"hook_event_name":"` + ag.event + `"`), []byte("\xff\xfe{"), []byte(`{"tool_input":{}}`)}
	var out [][]byte
	out = append(out, fixed...)
	for len(out) < n {
		var input string
		switch k := r.Intn(6); k {
		case 0, 1: // nesting
			d := depths[r.Intn(len(depths))]
			open, close := "[", "]"
			if k == 1 {
				open, close = `{"a":`, "}"
			}
			input = `{"q":` + strings.Repeat(open, d-2) + `1` + strings.Repeat(close, d-2) + `}`
		case 2: // size
			input = `{"command":"` + strings.Repeat("x", sizes[r.Intn(len(sizes))]) + `"}`
		case 3: // Unicode, invalid UTF-8, lone surrogates
			var b strings.Builder
			for i := 0; i < 1+r.Intn(40); i++ {
				b.WriteString(nasty[r.Intn(len(nasty))])
			}
			input = `{"command":"` + b.String() + `","` + b.String() + `":1}`
		case 4: // duplicate keys
			input = `{"command":"ls","command":"rm -rf /","command":{"command":[1,1]}}`
		default: // numbers no float holds
			nums := []string{"1e999999", "-0", strings.Repeat("9", 5000), "1.5e-400", "-1E+308", "0.0000000000000000000000001"}
			input = `{"n":` + nums[r.Intn(len(nums))] + `,"m":[` + nums[r.Intn(len(nums))] + `]}`
		}
		p := call(input)
		if r.Intn(3) == 0 { // truncated anywhere
			p = p[:1+r.Intn(len(p)-1)]
		}
		out = append(out, p)
	}
	return out
}

// TestInstalledDispatcherFuzz fuzzes the payload through the dispatcher as install
// registers it (the C client beside the hookexec binary), for Claude Code, Codex, Gemini CLI and Qwen Code, with no daemon and with a
// daemon running, under a deny-all guard that counts its runs. Every answer stops the tool
// as the agent reads it, within the agent's timeout for the entry, and the guard runs at
// most once per call.
func TestInstalledDispatcherFuzz(t *testing.T) {
	t.Parallel()
	fast := buildFastClient(t)
	goBin := filepath.Join(filepath.Dir(fast), "hookexec")
	n := 40
	if *payloadFuzzLong {
		n = 120
	}
	for _, ag := range fuzzAgents {
		for _, mode := range []string{"no daemon", "daemon"} {
			t.Run(ag.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				s := newScenario(t)
				count := filepath.Join(s.root, "count")
				guard, _ := json.Marshal("echo x >> " + count + "; echo denied by the guard >&2; exit 2")
				s.write("project/"+ag.settings, fmt.Sprintf(`{"hooks": {%q: [{"hooks": [{"type": "command", "command": %s, "timeout": %d}]}]}}`,
					ag.event, guard, ag.timeout))
				inst := exec.Command(goBin, "--project", s.project, "--home", s.home, "install", "--agent", ag.name)
				inst.Env = append(os.Environ(), "HOME="+s.home)
				outb, err := inst.CombinedOutput()
				require.NoError(t, err, string(outb))
				var settings struct {
					Hooks map[string][]struct{ Hooks []struct{ Command string } }
				}
				require.NoError(t, json.Unmarshal([]byte(s.read("project/"+ag.settings)), &settings))
				command := settings.Hooks[ag.event][0].Hooks[0].Command
				require.Equal(t, fast+" --agent "+ag.name, command)
				bound := 35 * time.Second // the entry's timeout: the guard's 30 s and install's 5 s margin
				env := append(os.Environ(), "HOME="+s.home, "HOOKEXEC_LOG=", "HOOKEXEC_RUNTIME_DIR="+filepath.Join(s.root, "run"),
					"HOOKEXEC_DAEMON_IDLE=10m")
				if ag.projectEnv != "" {
					env = append(env, ag.projectEnv+"="+s.project)
				}
				if mode == "daemon" {
					d := exec.Command(goBin, "daemon")
					d.Env = append(env, "HOOKEXEC_DAEMON=")
					require.NoError(t, d.Start())
					t.Cleanup(func() { _ = d.Process.Kill(); _ = d.Wait() })
					eventually(t, "the daemon", func() bool {
						st := exec.Command(goBin, "daemon", "--ask", "status")
						st.Env = d.Env
						return st.Run() == nil
					})
					env = append(env, "HOOKEXEC_DAEMON=")
				} else {
					env = append(env, "HOOKEXEC_DAEMON=off")
				}
				r := rand.New(rand.NewSource(int64(len(ag.name)*31 + len(mode))))
				payloads := fuzzPayloads(r, ag, s.project, n, *payloadFuzzLong)
				var findings []string
				var refused, denied []time.Duration
				for _, p := range payloads {
					require.NoError(t, os.WriteFile(count, nil, 0o644))
					cmd := exec.Command("/bin/sh", "-c", command)
					cmd.Dir, cmd.Env, cmd.Stdin = s.project, env, bytes.NewReader(p)
					var stdout, stderr bytes.Buffer
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					start := time.Now()
					require.NoError(t, cmd.Start())
					done := make(chan error, 1)
					go func() { done <- cmd.Wait() }()
					var werr error
					select {
					case werr = <-done:
					case <-time.After(bound):
						_ = cmd.Process.Kill()
						<-done
						findings = append(findings, fmt.Sprintf("no answer within %v for %d bytes %.120q", bound, len(p), p))
						continue
					}
					took := time.Since(start)
					code := 0
					if ee, ok := werr.(*exec.ExitError); ok {
						code = ee.ExitCode()
					}
					ran, _ := os.ReadFile(count)
					runs := strings.Count(string(ran), "x")
					switch {
					case !stopsTool(ag.name, code, stdout.Bytes()):
						findings = append(findings, fmt.Sprintf("the tool runs: exit %d stdout %.200q stderr %.200q for %.120q", code, stdout.Bytes(), stderr.Bytes(), p))
					case runs > 1:
						findings = append(findings, fmt.Sprintf("the guard ran %d times for %.120q", runs, p))
					case runs == 1:
						denied = append(denied, took)
					default:
						refused = append(refused, took)
					}
				}
				t.Logf("%s, %s: %d payloads, %d findings; denied by the guard %d (max %v), refused without it %d (median %v, max %v)",
					ag.name, mode, len(payloads), len(findings), len(denied), maxOf(denied), len(refused), medianOf(refused), maxOf(refused))
				for _, f := range findings {
					t.Error(f)
				}
			})
		}
	}
}

func maxOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return slices.Max(ds).Round(time.Millisecond)
}

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2].Round(time.Millisecond)
}

// adaptTargets are the agents adapt answers, each with its event before a shell tool runs.
var adaptTargets = []fuzzAgent{
	{name: "claude", event: "PreToolUse", tool: "Bash"},
	{name: "codex", event: "PreToolUse", tool: "Bash"},
	{name: "gemini", event: "BeforeTool", tool: "run_shell_command"},
	{name: "qwen", event: "PreToolUse", tool: "run_shell_command"},
	{name: "cursor", event: "preToolUse", tool: "Shell"},
	{name: "copilot", event: "PreToolUse", tool: "bash"},
	{name: "windsurf", event: "pre_run_command"},
}

// TestAdaptPayloadFuzz fuzzes the payload through `hookexec adapt --from claude --to X` for
// every target, the command a deny-all Claude Code guard counting its runs: every answer
// stops the tool as X reads it, and the guard runs at most once.
func TestAdaptPayloadFuzz(t *testing.T) {
	t.Parallel()
	n := 30
	if *payloadFuzzLong {
		n = 100
	}
	for _, ag := range adaptTargets {
		t.Run(ag.name, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t)
			count := filepath.Join(s.root, "count")
			guard := "echo x >> " + count + "; echo denied by the guard >&2; exit 2"
			r := rand.New(rand.NewSource(int64(len(ag.name))))
			payloads := fuzzPayloads(r, ag, s.project, n, *payloadFuzzLong)
			var findings []string
			var took []time.Duration
			for _, p := range payloads {
				require.NoError(t, os.WriteFile(count, nil, 0o644))
				start := time.Now()
				out := s.runIn(string(p), "adapt", "--from", "claude", "--to", ag.name, guard)
				took = append(took, time.Since(start))
				ran, _ := os.ReadFile(count)
				if runs := strings.Count(string(ran), "x"); runs > 1 {
					findings = append(findings, fmt.Sprintf("the guard ran %d times for %.120q", runs, p))
				}
				if !stopsTool(ag.name, out.code, []byte(out.stdout)) {
					findings = append(findings, fmt.Sprintf("the tool runs: exit %d stdout %.200q stderr %.200q for %.120q", out.code, out.stdout, out.stderr, p))
				}
			}
			t.Logf("adapt --to %s: %d payloads, %d findings (median %v, max %v)", ag.name, len(payloads), len(findings), medianOf(took), maxOf(took))
			for _, f := range findings {
				t.Error(f)
			}
		})
	}
}
